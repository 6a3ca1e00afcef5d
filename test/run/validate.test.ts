import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/manifest/report.js';
import { validate } from '../../src/run/validate.js';

/** `telform validate` as an operation, in process: -f with values and --scope, and the accounts loop. */

let folder: string;
const io = () => ({ cwd: folder, env: {} });
const noFlags = { checkSecrets: false, allowSecretFilesOutside: false, scope: [], state: {} };
const acl =
  'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [{ value: pbx_ip }]\n';
const trunk =
  'apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: out\nspec:\n  trunk_direction: outbound\n  ipacl_uuid: { ref: office }\n';

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-run-validate-'));
  await mkdir(path.join(folder, 'voice'));
  await writeFile(path.join(folder, 'voice', 'acl.yaml'), acl);
  await writeFile(path.join(folder, 'voice', 'trunk.yaml'), trunk);
  await writeFile(path.join(folder, 'values.yaml'), 'pbx_ip: 203.0.113.10\n');
  await writeFile(
    path.join(folder, 'accounts.yaml'),
    JSON.stringify({
      defaults: { state: 'states/{account}.json' },
      accounts: [
        {
          name: 'acme',
          manifests: 'voice/',
          values: { pbx_ip: '203.0.113.20' },
          credentials: { auth_id_env: 'ACME_ID', auth_token_env: 'ACME_TOKEN' },
        },
        {
          name: 'globex',
          manifests: 'voice/',
          credentials: { auth_id_env: 'GLOBEX_ID', auth_token_env: 'GLOBEX_TOKEN' },
        },
        {
          name: 'initech',
          manifests: 'voice/',
          values: { pbx_ip: '203.0.113.30' },
          scope: 'messaging',
          credentials: { auth_id_env: 'INITECH_ID', auth_token_env: 'INITECH_TOKEN' },
        },
      ],
    }),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const problemsOf = (summary: { problems: readonly Parameters<typeof formatProblem>[0][] }) =>
  summary.problems.map(formatProblem);

describe('validate (run/validate.ts)', () => {
  it('checks the manifests of -f with the values of --values and --value, exit 0 when valid', async () => {
    const validation = await validate(
      { mode: 'one', paths: ['voice/'], values: { values: 'values.yaml', value: [] } },
      noFlags,
      io(),
    );
    expect(validation).toMatchObject({
      mode: 'one',
      exitCode: 0,
      summary: { errorCount: 0, warningCount: 0, resourceCount: 2 },
    });
  });

  it('without the value the manifests need, the problem is at its line and the exit code is 1', async () => {
    const validation = await validate({ mode: 'one', paths: ['voice/acl.yaml'], values: { value: [] } }, noFlags, io());
    expect(validation.exitCode).toBe(1);
    if (validation.mode !== 'one') throw new Error('expected one summary');
    expect(problemsOf(validation.summary)).toEqual([
      expect.stringMatching(/^voice\/acl\.yaml:6:\d+  TrunkIpAcl\/office  .*pbx_ip/),
    ]);
  });

  it('--scope makes a document outside the scope an error', async () => {
    const validation = await validate(
      { mode: 'one', paths: ['voice/trunk.yaml'], values: { value: [] } },
      { ...noFlags, scope: ['messaging'] },
      io(),
    );
    expect(validation.exitCode).toBe(1);
    if (validation.mode !== 'one') throw new Error('expected one summary');
    expect(problemsOf(validation.summary)).toEqual([
      expect.stringContaining('Trunk/out is outside the scope this state owns (messaging'),
    ]);
  });

  it('checks every account of an accounts file with its own values and scope; one invalid account makes exit 1', async () => {
    const validation = await validate({ mode: 'accounts', accountsFile: 'accounts.yaml' }, noFlags, io());
    if (validation.mode !== 'accounts') throw new Error('expected the accounts loop');
    expect(validation.exitCode).toBe(1);
    expect(validation.accounts.map((account) => [account.name, account.summary.errorCount])).toEqual([
      ['acme', 0],
      ['globex', 1],
      ['initech', 2],
    ]);
    expect(problemsOf(validation.accounts[1]!.summary)).toEqual([expect.stringContaining('pbx_ip')]);
    expect(problemsOf(validation.accounts[2]!.summary)).toEqual([
      expect.stringContaining('TrunkIpAcl/office is outside the scope this state owns'),
      expect.stringContaining('Trunk/out is outside the scope this state owns'),
    ]);
  });

  it("an account's own scope wins over --scope", async () => {
    const validation = await validate(
      { mode: 'accounts', accountsFile: 'accounts.yaml' },
      { ...noFlags, scope: ['voice'] },
      io(),
    );
    if (validation.mode !== 'accounts') throw new Error('expected the accounts loop');
    expect(validation.accounts.map((account) => [account.name, account.summary.errorCount])).toEqual([
      ['acme', 0],
      ['globex', 1],
      ['initech', 2],
    ]);
  });
});

describe('the held-value rule: the state vouches for a value that breaks a create rule', () => {
  const sideways =
    'apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: legacy\nspec:\n  trunk_direction: sideways\n  ipacl_uuid: { ref: office }\n';
  const ledger = (trunkDirection: string) =>
    JSON.stringify({
      format_version: 1,
      lineage: '00000000-0000-4000-8000-000000000001',
      endpoint: 'local',
      account: 'MA00000000000000000A',
      serial: 1,
      resources: {
        'Trunk/legacy': {
          kind: 'Trunk',
          name: 'legacy',
          id: 'trunk-1',
          applied_spec: { name: 'legacy', trunk_direction: trunkDirection, ipacl_uuid: { ref: 'office' } },
          secrets: {},
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      },
    });
  const run = async (state: { state?: string } | 'off') => {
    await writeFile(path.join(folder, 'held', 'trunk.yaml'), sideways);
    const validation = await validate(
      { mode: 'one', paths: ['held/'], values: { value: [] } },
      { ...noFlags, state },
      io(),
    );
    if (validation.mode !== 'one') throw new Error('expected one summary');
    return { exitCode: validation.exitCode, problems: problemsOf(validation.summary) };
  };

  beforeAll(async () => {
    await mkdir(path.join(folder, 'held'));
    await writeFile(
      path.join(folder, 'held', 'acl.yaml'),
      'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [203.0.113.10]\n',
    );
    await writeFile(path.join(folder, 'holding.json'), ledger('sideways'));
    await writeFile(path.join(folder, 'other-value.json'), ledger('both'));
  });

  it('is a warning when the state records that object holding that same value', async () => {
    const { exitCode, problems } = await run({ state: 'holding.json' });
    expect(exitCode).toBe(0);
    expect(problems).toEqual([
      expect.stringMatching(/^held\/trunk\.yaml:6:20  Trunk\/legacy  spec\.trunk_direction: warning: must be one of/),
    ]);
  });

  it('is an error at its line when the state records another value, no such object, or there is no state', async () => {
    const other = await run({ state: 'other-value.json' });
    expect(other.exitCode).toBe(1);
    expect(other.problems).toEqual([
      expect.stringMatching(
        /^held\/trunk\.yaml:6:20  Trunk\/legacy  spec\.trunk_direction: must be one of .*\(the state other-value\.json records Trunk\/legacy holding another value: a change of spec\.trunk_direction must meet this rule\)$/,
      ),
    ]);
    const none = await run({ state: 'missing.json' });
    expect(none.exitCode).toBe(1);
    expect(none.problems[0]).toMatch(/\(no state at missing\.json: .*pass --state .*run telform import/);
    const off = await run('off');
    expect(off.exitCode).toBe(1);
    expect(off.problems[0]).toContain('(--no-state: every object is new, and a new one must meet this rule)');
  });
});
