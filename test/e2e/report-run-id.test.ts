import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAccountsReport, type AccountOutcome } from '../../src/render/accounts-report.js';
import { cleanEnv, emulatorForCli, runCli } from './cli.js';

// `report merge` on shard files of a shared volume (the Kubernetes merge job): a shard that did
// not run today leaves yesterday's file, which a run id tells apart.
let folder: string;

const outcome = (name: string): AccountOutcome => ({
  name,
  exit_code: 0,
  status: 'in_sync',
  summary: 'The account matches the manifests and the state.',
});
const cli = (args: string[]) => runCli(args, { cwd: folder, env: cleanEnv() });

async function shardFile(index: number, runId: string | undefined): Promise<string> {
  const file = `drift-${index}.json`;
  const report = buildAccountsReport('drift', [outcome(`acct-${index}`)], { index, count: 2 }, runId);
  await writeFile(path.join(folder, file), `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-run-id-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('report merge --run-id', () => {
  it("merges the shards of one run and keeps its id; refuses yesterday's shard file, a file without an id, and mixed runs", async () => {
    const today = [await shardFile(1, '2026-11-26'), await shardFile(2, '2026-11-26')];
    const merged = await cli(['report', 'merge', '--run-id', '2026-11-26', ...today, '--format', 'json']);
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({
      run_id: '2026-11-26',
      accounts: [{ name: 'acct-1' }, { name: 'acct-2' }],
    });

    const stale = await shardFile(2, '2026-11-25');
    expect(await cli(['report', 'merge', '--run-id', '2026-11-26', today[0] as string, stale])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: drift-2.json is from run 2026-11-25, not 2026-11-26: that shard did not run this time, or its report was not replaced; nothing was merged\n',
    });
    expect(await cli(['report', 'merge', today[0] as string, stale])).toMatchObject({
      code: 1,
      stderr:
        'error: drift-2.json is of run 2026-11-25 and drift-1.json of run 2026-11-26; merge the reports of one run\n',
    });
    const unmarked = await shardFile(2, undefined);
    expect(await cli(['report', 'merge', '--run-id', '2026-11-26', today[0] as string, unmarked])).toMatchObject({
      code: 1,
      stderr:
        'error: drift-2.json carries no run id, so it may be from another run; write shard reports with --run-id 2026-11-26\n',
    });
  });

  it('drift --accounts --run-id records the id in the report of the run', async () => {
    const api = await emulatorForCli();
    try {
      await writeFile(
        path.join(folder, 'office.yaml'),
        JSON.stringify({
          apiVersion: 'telform/v1',
          kind: 'TrunkIpAcl',
          metadata: { name: 'office' },
          spec: { ip_addresses: ['192.0.2.1'] },
        }),
      );
      await writeFile(
        path.join(folder, 'accounts.yaml'),
        JSON.stringify({
          accounts: [
            {
              name: 'solo',
              manifests: ['office.yaml'],
              state: 'solo.json',
              credentials: { auth_id_env: 'TELFORM_AUTH_ID', auth_token_env: 'TELFORM_AUTH_TOKEN' },
            },
          ],
        }),
      );
      const run = await runCli(
        ['drift', '--accounts', 'accounts.yaml', '--shard', '1/1', '--run-id', 'nightly-42', '--format', 'json'],
        { cwd: folder, env: api.env },
      );
      expect(JSON.parse(run.stdout)).toMatchObject({
        command: 'drift',
        shard: { index: 1, count: 1 },
        run_id: 'nightly-42',
        accounts: [{ name: 'solo' }],
      });
    } finally {
      await api.emulator.close();
    }
  });
});

describe('report show|merge of a damaged report (issue 33 item 15)', () => {
  it('refuses a field of the wrong type in one line naming the file and the field, before any renderer reads it', async () => {
    const report = buildAccountsReport('drift', [outcome('acct-1')], { index: 1, count: 1 });
    const damaged = { ...report, accounts: [{ ...report.accounts[0], summary: null }] };
    await writeFile(path.join(folder, 'null-summary.json'), `${JSON.stringify(damaged)}\n`);
    const line =
      'error: null-summary.json is not a report telform wrote: accounts[0].summary: expected string, received null (write shard reports with --format json)\n';
    expect(await cli(['report', 'show', 'null-summary.json'])).toEqual({ code: 1, stdout: '', stderr: line });
    expect(await cli(['report', 'merge', 'null-summary.json', '--format', 'markdown'])).toEqual({
      code: 1,
      stdout: '',
      stderr: line,
    });
  });
});
