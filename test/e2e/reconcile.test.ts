import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { demoSecrets, examplesDir } from './examples.js';

/**
 * The reconciler end to end: the built CLI against an emulator on 127.0.0.1, through every example:
 * plan → apply → empty plan → out-of-band change → drift exit 2 naming it → apply restores it.
 */
let harness: EmulatorForCli;
let folder: string;
let env: Record<string, string>;
const api = (method: string, pathname: string, body?: unknown) => callApi(harness.emulator, method, pathname, body);

function cli(args: string[]) {
  return runCli(args, { cwd: folder, env });
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 300 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-reconcile-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
  env = { ...harness.env, ...demoSecrets() };
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('plan, apply and drift through every example', () => {
  it('plans the creation of every example resource, sending no write', async () => {
    const run = await cli(['plan', '-f', 'examples/', '--detailed-exitcode']);
    // The one note: applying it would claim the account, which nobody owns yet.
    expect(run.stderr).toBe(
      'note: this apply claims account MAEMULATOR0000000001 for the new state telform.state.json: nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read the account (hand-over: telform state release and telform state claim)\n',
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('  # TrunkIpAcl/pbx-office will be created');
    // The numbers exist already: one is attached (an update), two wait for their campaign.
    expect(run.stdout).toMatch(
      /Plan: \d+ to create, 1 to update, 0 to replace, 0 to delete\. Cost: 0 USD\. Irreversible: 0\./,
    );
    expect(run.stdout).toContain('  # PhoneNumber/acme-orders-1 waits for the registry');
    const writes = harness.emulator.runtime.log.list({ type: 'request' }).filter((entry) => entry.method !== 'GET');
    expect(writes).toEqual([]);
  });

  it('applies everything, waiting for the brands, then plans nothing', async () => {
    const apply = await cli(['apply', '-f', 'examples/', '--auto-approve', '--wait', '1m']);
    expect(apply.stderr).not.toContain('FAILED');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(
      /Apply complete: \d+ created, 3 updated, 0 replaced, 0 deleted, 0 adopted\. Pending: 0\. Blocked: 0\. Failed: 0\./,
    );
    // Calls routable: the support number is on the inbound trunk; messages flow: two numbers linked COMPLETED to an ACTIVE campaign.
    const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const inbound = ledger.resources['Trunk/support-inbound']?.id as string;
    expect((await api('GET', '/Number/15125550103/')).body.application).toMatch(
      new RegExp(`/Zentrunk/Trunk/${inbound}/$`),
    );
    const campaignId = ledger.resources['Campaign/acme-orders']?.id as string;
    expect(
      ((await api('GET', `/10dlc/Campaign/${campaignId}/`)).body.campaign as Record<string, unknown>)
        .registration_status,
    ).toBe('ACTIVE');
    expect((await api('GET', `/10dlc/Campaign/${campaignId}/Number/`)).body.phone_numbers).toEqual([
      { number: '15125550101', status: 'COMPLETED' },
      { number: '15125550102', status: 'COMPLETED' },
    ]);
    const plan = await cli(['plan', '-f', 'examples/', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes. The account matches the manifests.');
    expect(plan.code).toBe(0);
    expect((await cli(['drift', '-f', 'examples/'])).code).toBe(0);
  });

  it('tells an out-of-band change (exit 2, named) from a manifest change (exit 3), and apply restores it', async () => {
    const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const trunkId = ledger.resources['Trunk/pbx-outbound']?.id as string;
    expect((await api('POST', `/Zentrunk/Trunk/${trunkId}/`, { secure: false })).status).toBe(202);
    const drift = await cli(['drift', '-f', 'examples/']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('Trunk/pbx-outbound: differs (account → manifest)');
    expect(drift.stdout).toContain('~ secure: false → true');

    const apply = await cli(['apply', '-f', 'examples/', '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stderr).toContain(`updated  Trunk/pbx-outbound (id ${trunkId})`);
    expect((await cli(['drift', '-f', 'examples/'])).code).toBe(0);

    const manifest = path.join(folder, 'examples/pbx/trunks.yaml');
    const original = await readFile(manifest, 'utf8');
    await writeFile(manifest, original.replace('    - 198.51.100.0/28\n', '    - 198.51.100.0/28\n    - 192.0.2.1\n'));
    const pending = await cli(['drift', '-f', 'examples/']);
    expect(pending.code).toBe(3);
    expect(pending.stdout).toContain('TrunkIpAcl/pbx-office: update');
    const plan = await cli(['plan', '-f', 'examples/']);
    expect(plan.stdout).toContain('      + ip_addresses["192.0.2.1"] = "192.0.2.1"');
    await writeFile(manifest, original);
  });
});
