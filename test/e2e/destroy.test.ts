import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { demoSecrets, examplesDir } from './examples.js';

/**
 * `--destroy` on the examples: the teardown plan lists every managed resource for deletion, in
 * reverse dependency order, with the approvals it needs; applied with them, it leaves the account
 * with only what telform never managed (an import before and after reads the same). `--exclude`
 * leaves a resource and what depends on it out.
 */
let harness: EmulatorForCli;
let folder: string;
let env: Record<string, string>;

const cli = (args: string[]) => runCli(args, { cwd: folder, env });

async function ledgerAddresses(): Promise<string[]> {
  const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
    resources: Record<string, unknown>;
  };
  return Object.keys(ledger.resources);
}

/** Every file an import of the whole account writes, by name (with a state of its own, which then releases the account). */
async function importAccount(out: string): Promise<Record<string, string>> {
  const run = await cli(['import', '--out', out, '--state', `${out}.json`]);
  expect(run.code).toBe(0);
  // The import claimed the account for its state; a snapshot keeps no account, so it gives it up.
  expect((await cli(['--state', `${out}.json`, 'state', 'release'])).code).toBe(0);
  const files = (await readdir(path.join(folder, out), { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(path.join(folder, out), path.join(entry.parentPath, entry.name)));
  return Object.fromEntries(
    await Promise.all(
      files.sort().map(async (file) => [file, await readFile(path.join(folder, out, file), 'utf8')] as const),
    ),
  );
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 300 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-destroy-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
  env = { ...harness.env, ...demoSecrets() };
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('a teardown as a reviewed intent', () => {
  let untouched: Record<string, string>;

  it('leaves out an excluded resource and what depends on it, and says so', async () => {
    untouched = await importAccount('before');
    const plan = await cli(['plan', '-f', 'examples/', '--exclude', 'TrunkIpAcl/pbx-office']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('TrunkIpAcl/pbx-office will be created');
    expect(plan.stdout).not.toContain('Trunk/pbx-outbound will be created');
    expect(plan.stdout).toContain('  # TrunkCredential/pbx-trunk-login will be created');
    expect(plan.stdout).toContain(
      'warning: --exclude: this plan leaves out TrunkIpAcl/pbx-office and what depends on it (Trunk/pbx-outbound); changes to them are neither shown nor applied',
    );
    const typo = await cli(['plan', '-f', 'examples/', '--exclude', 'TrunkIpAcl/pbx-ofice']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      'error: --exclude TrunkIpAcl/pbx-ofice: no such resource in the manifests or the state; did you mean TrunkIpAcl/pbx-office?',
    );
  });

  it('plans the deletion of every managed resource in reverse order, with the approvals each needs', async () => {
    const apply = await cli(['apply', '-f', 'examples/', '--auto-approve', '--wait', '1m']);
    expect(apply.code).toBe(0);
    const managed = await ledgerAddresses();

    const plan = await cli(['plan', '--destroy', '--format', 'json']);
    expect(plan.code).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      destroy: boolean;
      changes: Array<{ address: string; action: string }>;
      required_approvals: Array<{ flag: string; given: boolean }>;
    };
    expect(json.destroy).toBe(true);
    expect(json.changes.every((change) => change.action === 'delete')).toBe(true);
    expect(json.changes.map((change) => change.address).sort()).toEqual([...managed].sort());
    const at = (address: string) => json.changes.findIndex((change) => change.address === address);
    // Reverse dependency order: what uses a resource is deleted before it.
    expect(at('PhoneNumber/acme-orders-1')).toBeLessThan(at('Campaign/acme-orders'));
    expect(at('Campaign/acme-orders')).toBeLessThan(at('Brand/acme-retail'));
    expect(at('Brand/acme-retail')).toBeLessThan(at('Profile/acme-retail'));
    expect(at('Trunk/pbx-outbound')).toBeLessThan(at('TrunkIpAcl/pbx-office'));
    expect(json.required_approvals).toContainEqual({ flag: '--allow-irreversible Brand/acme-retail', given: false });
    // Deleting the inbound trunk and the campaign breaks calls to one number and messages of two.
    expect(json.required_approvals).toContainEqual({ flag: '--max-numbers-affected 3', given: false });
    expect(
      json.required_approvals.some(
        (approval) => approval.flag === '--allow-empty' || approval.flag === '--force-deletes',
      ),
    ).toBe(false);

    const text = await cli(['plan', '--destroy']);
    expect(text.stdout.split('\n')[0]).toBe(
      `TEARDOWN (--destroy): this plan deletes every resource telform manages in account ${env.TELFORM_AUTH_ID} (${managed.length}); what telform never managed is left alone.`,
    );
    expect(text.stdout).toContain('  # Trunk/pbx-inbound will be deleted');
    const markdown = await cli(['plan', '--destroy', '--format', 'markdown']);
    expect(markdown.stdout.split('\n')[0]).toBe('### telform plan: teardown');
    const withFiles = await cli(['plan', '--destroy', '-f', 'examples/']);
    expect(withFiles.stderr).toContain(
      'error: --destroy deletes everything the state manages and reads no manifests: give either -f or --destroy',
    );
  });

  it('applies a saved teardown with its approvals (irreversible, blast radius; a protected resource unprotected first), leaving only what telform never managed', async () => {
    const refused = await cli(['apply', '--destroy', '--auto-approve', '--allow-irreversible', 'all']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Trunk/pbx-inbound is protected in the state');
    expect(await ledgerAddresses()).not.toEqual([]);

    expect((await cli(['state', 'unprotect', 'Trunk/pbx-inbound'])).code).toBe(0);
    // Reviewed as a saved plan with its approvals, applied exactly by the merge job.
    const saved = await cli([
      'plan',
      '--destroy',
      '-o',
      'teardown.json',
      '--allow-irreversible',
      'all',
      '--max-numbers-affected',
      '3',
    ]);
    expect(saved.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(folder, 'teardown.json'), 'utf8')).destroy).toBe(true);
    const destroy = await cli(['apply', 'teardown.json']);
    expect(destroy.stderr).not.toMatch(/failed|refused/);
    expect(destroy.code).toBe(0);
    expect(await ledgerAddresses()).toEqual([]);
    const again = await cli(['plan', '--destroy', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    // Torn down, the state gives the account up for the snapshot's import.
    expect((await cli(['state', 'release'])).code).toBe(0);
    expect(await importAccount('after')).toEqual(untouched);
  });
});
