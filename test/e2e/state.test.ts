import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyLedger, serializeLedger } from '../../src/state/ledger.js';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-state-'));
  const ledger = emptyLedger('local', 'MAEMULATOR0000000001');
  for (const [kind, name, id] of [
    ['Trunk', 'pbx-out', '12345678901234567'],
    ['TrunkIpAcl', 'office', 'a7b1c2d3-0000-4000-8000-000000000001'],
  ] as const) {
    ledger.resources[`${kind}/${name}`] = {
      kind,
      name,
      id,
      applied_spec: { name },
      secrets: {},
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }
  ledger.resources['TrunkCredential/pbx'] = {
    kind: 'TrunkCredential',
    name: 'pbx',
    id: 'c1',
    applied_spec: { name: 'pbx', username: 'pbxuser' },
    secrets: { password: { hmac: 'ab'.repeat(32), key_id: 'k', source: { fromEnv: 'PBX_TRUNK_PASSWORD' } } },
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  await writeFile(path.join(folder, 'telform.state.json'), serializeLedger(ledger));
});

describe('telform state', () => {
  it('lists managed resources with their ids', async () => {
    const run = await runCli(['state', 'list'], { cwd: folder });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'Trunk/pbx-out        12345678901234567',
        'TrunkCredential/pbx  c1',
        'TrunkIpAcl/office    a7b1c2d3-0000-4000-8000-000000000001',
        '',
      ].join('\n'),
    );
    const { lineage } = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      lineage: string;
    };
    expect(run.stderr).toBe(
      `3 managed resources (state serial 0, account MAEMULATOR0000000001 at local)\nlineage ${lineage}\n`,
    );
  });

  it('lists them as JSON with --format json, and refuses a format that cannot list them by name', async () => {
    const run = await runCli(['state', 'list', '--format', 'json'], { cwd: folder });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const { lineage } = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      lineage: string;
    };
    expect(JSON.parse(run.stdout)).toEqual({
      account: 'MAEMULATOR0000000001',
      endpoint: 'local',
      serial: 0,
      lineage,
      resources: [
        { address: 'Trunk/pbx-out', id: '12345678901234567' },
        { address: 'TrunkCredential/pbx', id: 'c1' },
        { address: 'TrunkIpAcl/office', id: 'a7b1c2d3-0000-4000-8000-000000000001' },
      ],
    });
    expect(await runCli(['state', 'list', '--format', 'markdown'], { cwd: folder })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "error: option '--format <format>' argument 'markdown' is invalid. Allowed choices are text, json.",
      ),
    });
  });

  it('shows one resource without its secret fingerprint, with where the secret came from', async () => {
    const run = await runCli(['state', 'show', 'TrunkCredential/pbx'], { cwd: folder });
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout) as { id: string; secrets: Record<string, string> };
    expect(shown.id).toBe('c1');
    expect(shown.secrets).toEqual({ password: '(fingerprint, from env PBX_TRUNK_PASSWORD)' });
    expect(run.stdout).not.toContain('abab');
  });

  it('renames with mv and forgets with rm, backing the ledger up first', async () => {
    const moved = await runCli(['state', 'mv', 'Trunk/pbx-out', 'Trunk/office-outbound'], { cwd: folder });
    expect(moved.code).toBe(0);
    expect(moved.stdout).toBe('moved Trunk/pbx-out to Trunk/office-outbound\n');
    const removed = await runCli(['state', 'rm', 'TrunkIpAcl/office'], { cwd: folder });
    expect(removed.stdout).toBe('forgot TrunkIpAcl/office\n');
    const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      serial: number;
      resources: Record<string, { id: string; name: string }>;
    };
    expect(Object.keys(ledger.resources)).toEqual(['Trunk/office-outbound', 'TrunkCredential/pbx']);
    expect(ledger.resources['Trunk/office-outbound']).toMatchObject({
      id: '12345678901234567',
      name: 'office-outbound',
    });
    expect(ledger.serial).toBe(2);
    expect((await readdir(folder)).filter((name) => name.endsWith('.backup'))).toHaveLength(2);
  });

  it('refuses unknown addresses, moves across kinds and a missing state file, in one sentence', async () => {
    expect(await runCli(['state', 'show', 'Trunk/nope'], { cwd: folder })).toMatchObject({
      code: 1,
      stderr: 'error: Trunk/nope is not in the state telform.state.json (see telform state list)\n',
    });
    expect((await runCli(['state', 'mv', 'Trunk/pbx-out', 'Brand/x'], { cwd: folder })).stderr).toBe(
      'error: Trunk/pbx-out is a Trunk; it cannot become a Brand\n',
    );
    expect((await runCli(['state', 'list', '--state', 'elsewhere.json'], { cwd: folder })).stderr).toBe(
      'error: there is no state at elsewhere.json (use --state to name it)\n',
    );
  });
});

describe('telform state mv of a resource with a secret', () => {
  let harness: EmulatorForCli;
  let account: string;
  beforeAll(async () => {
    harness = await emulatorForCli();
    account = await mkdtemp(path.join(tmpdir(), 'telform-e2e-state-mv-'));
  });
  afterAll(async () => {
    await harness.emulator.close();
    await rm(account, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    runCli(args, { cwd: account, env: { ...harness.env, PBX_PASSWORD: 'Tr0ub4dor_and_3' } });
  const manifest = (login: string) =>
    [
      {
        kind: 'TrunkCredential',
        metadata: { name: login },
        spec: { username: 'pbxuser01', password: { fromEnv: 'PBX_PASSWORD' } },
      },
      { kind: 'TrunkIpAcl', metadata: { name: 'office' }, spec: { ip_addresses: ['203.0.113.10'] } },
      {
        kind: 'Trunk',
        metadata: { name: 'pbx-out' },
        spec: { trunk_direction: 'outbound', ipacl_uuid: { ref: 'office' }, credential_uuid: { ref: login } },
      },
    ]
      .map((document) => JSON.stringify({ apiVersion: 'telform/v1', ...document }))
      .join('\n---\n');

  it("keeps the credential's password fingerprint valid under the new address: the next plan is empty", async () => {
    await writeFile(path.join(account, 'account.yaml'), manifest('login'));
    expect((await cli(['apply', '-f', 'account.yaml', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(account, 'account.yaml'), manifest('pbx-login'));
    const moved = await cli(['state', 'mv', 'TrunkCredential/login', 'TrunkCredential/pbx-login']);
    expect(moved).toMatchObject({ code: 0, stdout: 'moved TrunkCredential/login to TrunkCredential/pbx-login\n' });
    const plan = await cli(['plan', '-f', 'account.yaml', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes. The account matches the manifests.');
    expect(plan.code).toBe(0);
  });
});
