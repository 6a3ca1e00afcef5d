import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * `drift --write` after three changes made outside telform (a trunk flag, an ACL address, a campaign
 * sample): the manifest's git diff is exactly those values, every other byte (comments, quoting,
 * order) is untouched, and the next plan is empty. `--accept` writes some changes and not others.
 */
const git = promisify(execFile);
let harness: EmulatorForCli;
let folder: string;
const state = ['--state', 'pbx.json'];
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const api = (method: string, pathname: string, body?: unknown) => callApi(harness.emulator, method, pathname, body);

// The campaign's description makes the emulator's registry decline it: only a FAILED campaign can be updated.
const manifest = `# The office PBX and its messaging, reviewed in pull requests.
apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: office
spec:
  ip_addresses:
    - 203.0.113.10 # reception
    - "198.51.100.0/28"   # the server room
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-out
spec:
  trunk_direction: outbound
  secure: false   # TLS once the PBX supports it
  ipacl_uuid: { ref: office }
---
apiVersion: telform/v1
kind: Brand
metadata:
  name: tea
spec:
  profile_uuid: 5eed0000-0000-4000-8000-000000000004
  brand_alias: Fabrikam Tea
---
apiVersion: telform/v1
kind: Campaign
metadata:
  name: tea-orders
spec:
  brand_id: { ref: tea }
  vertical: RETAIL
  usecase: ACCOUNT_NOTIFICATION
  description: Order notifications for the Fabrikam Tea shop; the carriers decline it in the emulator.
  sample1: "Fabrikam Tea: your order 881 has shipped. Reply STOP to opt out."
  sample2: 'Fabrikam Tea: your order 881 was delivered. Reply STOP to opt out.'
  message_flow: Customers tick an SMS updates box on the checkout form and confirm by replying YES.
  help_message: "Fabrikam Tea: help at fabrikam.example.com or 1-800-555-0188."
  optout_message: "Fabrikam Tea: you are unsubscribed and will receive no more messages."
  subscriber_optin: true
  subscriber_optout: true
  subscriber_help: true
  direct_lending: false
  embedded_link: false
  embedded_phone: false
  age_gated: false
  affiliate_marketing: false
`;

async function ids(): Promise<Record<string, string>> {
  const ledger = JSON.parse(await readFile(path.join(folder, 'pbx.json'), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return Object.fromEntries(Object.entries(ledger.resources).map(([address, entry]) => [address, entry.id]));
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 500 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-drift-write-'));
  await writeFile(path.join(folder, 'pbx.yaml'), manifest);
  await git('git', ['init', '-q'], { cwd: folder });
  await git('git', ['add', 'pbx.yaml'], { cwd: folder });
  await git('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'pbx'], { cwd: folder });
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('drift --write', () => {
  it('writes exactly the three values changed outside telform, keeps every other byte, and leaves an empty plan', async () => {
    expect((await cli(['apply', '-f', 'pbx.yaml', ...state, '--auto-approve', '--wait', '1m'])).code).toBe(0);
    await advanceClock(harness.emulator, 1_000);
    const id = await ids();
    // Support fixes things by hand in the console: TLS on, a new office address, a clearer sample.
    expect((await api('POST', `/Zentrunk/Trunk/${id['Trunk/pbx-out']}/`, { secure: true })).status).toBeLessThan(300);
    expect(
      (
        await api('POST', `/Zentrunk/IPAccessControlList/${id['TrunkIpAcl/office']}/`, {
          ip_addresses: ['203.0.113.10', '198.51.100.0/28', '192.0.2.44'],
        })
      ).status,
    ).toBeLessThan(300);
    const sample = "Fabrikam Tea: order 881 shipped, it's on its way! Reply STOP to opt out.";
    expect(
      (await api('POST', `/10dlc/Campaign/${id['Campaign/tea-orders']}/`, { sample1: sample })).status,
    ).toBeLessThan(300);
    await advanceClock(harness.emulator, 1_000);
    expect((await cli(['drift', '-f', 'pbx.yaml', ...state])).code).toBe(2);

    const onlyTrunk = await cli(['drift', '-f', 'pbx.yaml', ...state, '--write', '--accept', 'Trunk/pbx-out']);
    expect(onlyTrunk.stdout).toBe('wrote pbx.yaml: Trunk/pbx-out secure\n');
    const write = await cli(['drift', '-f', 'pbx.yaml', ...state, '--write']);
    expect(write.code).toBe(0);
    expect(write.stdout).toBe(
      'wrote pbx.yaml: TrunkIpAcl/office ip_addresses\nwrote pbx.yaml: Campaign/tea-orders sample1\n',
    );

    const expected = manifest
      .replace('secure: false   # TLS', 'secure: true   # TLS')
      .replace(
        '    - "198.51.100.0/28"   # the server room\n',
        '    - "198.51.100.0/28"   # the server room\n    - "192.0.2.44"\n',
      )
      .replace(
        'sample1: "Fabrikam Tea: your order 881 has shipped. Reply STOP to opt out."',
        `sample1: ${JSON.stringify(sample)}`,
      );
    expect(await readFile(path.join(folder, 'pbx.yaml'), 'utf8')).toBe(expected);
    const diff = await git('git', ['diff', '-U0', '--no-color'], { cwd: folder });
    expect(diff.stdout.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual([
      '+    - "192.0.2.44"',
      '-  secure: false   # TLS once the PBX supports it',
      '+  secure: true   # TLS once the PBX supports it',
      '-  sample1: "Fabrikam Tea: your order 881 has shipped. Reply STOP to opt out."',
      `+  sample1: ${JSON.stringify(sample)}`,
    ]);

    const plan = await cli(['plan', '-f', 'pbx.yaml', ...state, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes. The account matches the manifests.');
    expect(plan.code).toBe(0);
    const again = await cli(['drift', '-f', 'pbx.yaml', ...state, '--write']);
    expect(again.stdout).toBe('Nothing to write: no value changed outside telform differs from the manifests.\n');
  });

  it('refuses --accept of an address that names no changed resource, with a suggestion, and --accept without --write', async () => {
    const typo = await cli(['drift', '-f', 'pbx.yaml', ...state, '--write', '--accept', 'Trunk/pbx-ot']);
    expect(typo.code).toBe(1);
    // The state still records the values telform last applied, so the three still count as changed outside it.
    expect(typo.stderr).toContain(
      'error: --accept Trunk/pbx-ot: not a resource changed outside telform; did you mean Trunk/pbx-out? (changed outside telform: Campaign/tea-orders, Trunk/pbx-out, TrunkIpAcl/office)',
    );
    const alone = await cli(['drift', '-f', 'pbx.yaml', ...state, '--accept', 'Trunk/pbx-out']);
    expect(alone.stderr).toContain('error: --accept chooses what --write writes: give --write too');
  });
});
