import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { parseHistory, verifyHistory, type HistoryRecord } from '../../src/state/history.js';
import { accounts, startHarness, type Harness } from './harness.js';
import { applyStep } from '../../src/run/account-steps.js';
import { runAccounts } from '../../src/run/accounts.js';
import { readAccountsHistory } from '../../src/run/history-read.js';

// The history an apply appends (in process, against the emulator): one chained record per apply, with
// the manifests' commit, before and after values and secrets only as fingerprints.

let harness: Harness;
const env = () => ({
  ...harness.envOf(0),
  PBX_TRUNK_PASSWORD: 'trunk-secret-0001',
  PBX_URI_PASSWORD: 'uri-secret-00001',
});
const globals = (): GlobalOptions => ({
  endpoint: harness.emulator.url,
  state: path.join(harness.folder, 'pbx.state.json'),
});
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], {
    cwd: harness.folder,
    encoding: 'utf8',
  }).trim();

export const versionA = `${JSON.stringify({ apiVersion: 'telform/v1', kind: 'TrunkIpAcl', metadata: { name: 'pbx-office' }, spec: { ip_addresses: ['203.0.113.10', '198.51.100.0/28'] } })}
---
${JSON.stringify({ apiVersion: 'telform/v1', kind: 'OriginationUri', metadata: { name: 'pbx-primary' }, spec: { uri: 'sip.pbx.example.com:5060;transport=tcp' } })}
---
${JSON.stringify({ apiVersion: 'telform/v1', kind: 'OriginationUri', metadata: { name: 'pbx-backup' }, spec: { uri: '203.0.113.20:5060', authentication_needed: true, username: 'pbxinbound', password: { fromEnv: 'PBX_URI_PASSWORD' } } })}
`;
export const versionB = versionA
  .replace(", '198.51.100.0/28'", '')
  .replace('"203.0.113.10","198.51.100.0/28"', '"203.0.113.10"')
  .replace('sip.pbx.example.com', 'sip2.pbx.example.net');

async function apply(): Promise<HistoryRecord> {
  const run = await reconcile({ paths: ['pbx.yaml'] }, globals(), approvalsFrom({}), harness.context(env()), {
    lock: true,
  });
  const outcome = await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
  if (outcome.status !== 'applied') throw new Error(`not applied: ${outcome.status}`);
  return outcome.record;
}

beforeAll(async () => {
  harness = await startHarness();
  git('init', '-q');
});
afterAll(async () => {
  await harness.close();
});

describe('the history of applies', () => {
  it('appends one chained record per apply, with the commit, before and after, and no secret', async () => {
    await harness.write('pbx.yaml', versionA);
    git('add', 'pbx.yaml');
    git('commit', '-q', '-m', 'A');
    const commitA = git('rev-parse', 'HEAD');
    const first = await apply();
    await harness.write('pbx.yaml', versionB);
    git('commit', '-q', '-am', 'B');
    const commitB = git('rev-parse', 'HEAD');
    const second = await apply();

    const lines = (await readFile(path.join(harness.folder, 'pbx.state.json.history'), 'utf8')).trim().split('\n');
    expect(parseHistory(lines)).toEqual([first, second]);
    expect(first).toMatchObject({
      seq: 1,
      prev: null,
      type: 'apply',
      trigger: 'apply',
      result: 'applied',
      origin: { commit: commitA },
    });
    expect(second).toMatchObject({ seq: 2, prev: first.hash, origin: { commit: commitB } });
    expect(second.ledger_serial).toBe(
      (JSON.parse(await readFile(path.join(harness.folder, 'pbx.state.json'), 'utf8')) as { serial: number }).serial,
    );
    expect(
      second.type === 'apply' &&
        second.changes.map((change) => [change.address, change.action, change.before, change.after]),
    ).toEqual([
      [
        'OriginationUri/pbx-primary',
        'update',
        expect.objectContaining({ uri: 'sip.pbx.example.com:5060;transport=tcp' }),
        expect.objectContaining({ uri: 'sip2.pbx.example.net:5060;transport=tcp' }),
      ],
      [
        'TrunkIpAcl/pbx-office',
        'update',
        expect.objectContaining({ ip_addresses: ['203.0.113.10', '198.51.100.0/28'] }),
        expect.objectContaining({ ip_addresses: ['203.0.113.10'] }),
      ],
    ]);
    const text = lines.join('\n');
    expect(text).not.toContain('uri-secret-00001');
    expect(text).not.toContain('trunk-secret-0001');
    expect(
      first.type === 'apply' &&
        first.changes.find((change) => change.address === 'OriginationUri/pbx-backup')?.secrets_after?.password?.hmac,
    ).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyHistory(lines)).toEqual({ ok: true, count: 2, first: 1, last: 2, trimmed: false, anchored: false });

    // One byte of the second record changed: it is the one named.
    const edited = [lines[0] as string, (lines[1] as string).replace('sip2.pbx', 'sip3.pbx')];
    expect(verifyHistory(edited)).toMatchObject({ ok: false, position: 2, seq: 2 });
  });

  it("keeps each account's history in its own state, names a rollout's wave in it, and gathers them for --accounts", async () => {
    await harness.write(
      'acl.yaml',
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'TrunkIpAcl',
        metadata: { name: 'edge' },
        spec: { ip_addresses: ['203.0.113.50'] },
      }),
    );
    await harness.write(
      'accounts.yaml',
      JSON.stringify({
        defaults: { endpoint: harness.emulator.url },
        accounts: [1, 2].map((index) => ({
          name: `a${index}`,
          manifests: ['acl.yaml'],
          state: `a${index}.state.json`,
          credentials: { auth_id_env: `ID${index}`, auth_token_env: `TOKEN${index}` },
        })),
      }),
    );
    const env = {
      ID1: accounts[1].authId,
      TOKEN1: accounts[1].authToken,
      ID2: accounts[2].authId,
      TOKEN2: accounts[2].authToken,
    };
    const report = await runAccounts(
      {
        command: 'apply',
        accountsFile: 'accounts.yaml',
        only: [],
        accountParallelism: 2,
        globals: {},
        approvals: approvalsFrom({}),
        lock: true,
        step: applyStep({ parallelism: 4, waitMs: 0 }),
        history: { trigger: 'rollout', wave: { number: 1, of: 2 } },
      },
      harness.context(env),
    );
    expect(report.accounts.map((account) => account.status)).toEqual(['applied', 'applied']);
    const gathered = await readAccountsHistory('accounts.yaml', [], harness.context(env));
    expect(
      gathered.map((account) => [
        account.name,
        account.records.map((record) => record.type === 'apply' && [record.seq, record.trigger, record.wave]),
      ]),
    ).toEqual([
      ['a1', [[1, 'rollout', { number: 1, of: 2 }]]],
      ['a2', [[1, 'rollout', { number: 1, of: 2 }]]],
    ]);
  });
});
