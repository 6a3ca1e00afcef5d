import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWaves } from '../../src/engine/waves.js';
import { applyStep } from '../../src/run/account-steps.js';
import type { AccountsRun } from '../../src/run/accounts.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { runRollout } from '../../src/run/rollout.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

/**
 * The drift half of a wave's gate, in process: the wave applies cleanly, then during `--soak` its
 * account is changed outside telform; the drift check after the soak fails the gate, the rollout
 * stops before the next wave, and the record says so.
 */

let harness: Harness;
const env = {
  ONE_ID: accounts[0].authId,
  ONE_TOKEN: accounts[0].authToken,
  TWO_ID: accounts[1].authId,
  TWO_TOKEN: accounts[1].authToken,
};

beforeAll(async () => {
  harness = await startHarness();
  await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'office_ip' }] }));
  await harness.write(
    'accounts.yaml',
    JSON.stringify({
      defaults: { state: 'states/{account}.json', endpoint: harness.emulator.url },
      accounts: [
        {
          name: 'one',
          manifests: ['acl.yaml'],
          credentials: { auth_id_env: 'ONE_ID', auth_token_env: 'ONE_TOKEN' },
          values: { office_ip: '203.0.113.1' },
        },
        {
          name: 'two',
          manifests: ['acl.yaml'],
          credentials: { auth_id_env: 'TWO_ID', auth_token_env: 'TWO_TOKEN' },
          values: { office_ip: '203.0.113.2' },
        },
      ],
    }),
  );
});
afterAll(async () => {
  await harness.close();
});

const run: () => AccountsRun = () => ({
  command: 'apply',
  accountsFile: 'accounts.yaml',
  only: [],
  accountParallelism: 2,
  globals: {},
  approvals: approvalsFrom({}),
  lock: true,
  step: applyStep({ parallelism: 4, waitMs: 0 }),
});

describe('a rollout whose wave drifts during the soak', () => {
  it('fails the gate after the soak, names the account, and starts no later wave', async () => {
    const slept: number[] = [];
    // The soak is where someone edits the account by hand: the drift check after it must see it.
    const clock: Clock = {
      now: systemClock.now,
      sleep: async (milliseconds) => {
        slept.push(milliseconds);
        const id = (await harness.entry('states/one.json', 'TrunkIpAcl/office'))?.id as string;
        const authorization = `Basic ${Buffer.from(`${accounts[0].authId}:${accounts[0].authToken}`).toString('base64')}`;
        const response = await fetch(
          `${harness.emulator.url}/v1/Account/${accounts[0].authId}/Zentrunk/IPAccessControlList/${id}/`,
          { method: 'DELETE', headers: { authorization } },
        );
        expect(response.status).toBe(204);
      },
    };
    const notes: string[] = [];
    const report = await runRollout(
      run(),
      { waves: parseWaves('1,100%'), canary: [], soakMs: 600_000, resume: false, restart: false, clock },
      harness.context(env, notes),
    );
    expect(slept).toEqual([600_000]);
    expect(report.exit_code).toBe(1);
    expect(report.accounts.map((account) => [account.name, account.status])).toEqual([['one', 'applied']]);
    expect(report.rollout).toEqual({
      resumed: false,
      stopped_at: 1,
      waves: [
        {
          wave: 1,
          accounts: ['one'],
          status: 'failed',
          failures: [{ account: 'one', reason: 'drift check: changed outside telform: TrunkIpAcl/office' }],
        },
        { wave: 2, accounts: ['two'], status: 'not_started' },
      ],
    });
    expect(notes).toContain('[wave 1/2] applied; soaking 10m before the drift check');
    const record = JSON.parse(await readFile(path.join(harness.folder, 'states', '_rollout.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({
      kind: 'telform-rollout',
      status: 'stopped',
      passed: 0,
      accounts: { one: 'done' },
      stopped: { wave: 1 },
    });
    // Nothing of the second wave ran: its account has no state at all.
    await expect(access(path.join(harness.folder, 'states', 'two.json'))).rejects.toThrow(/ENOENT/);
  });

  it('resumes with the repair: the drift check passes once the account is applied again, and the next wave runs', async () => {
    // The first account is done; the drift check is what stopped it. Resuming checks the wave's gate again:
    // the deleted ACL is still drift, so the operator repairs it first (a plain apply of that account).
    const { runAccounts } = await import('../../src/run/accounts.js');
    const repaired = await runAccounts({ ...run(), only: ['one'] }, harness.context(env));
    expect(repaired.accounts.map((account) => account.status)).toEqual(['applied']);
    const report = await runRollout(
      run(),
      { canary: [], soakMs: 0, resume: true, restart: false },
      harness.context(env),
    );
    expect(report.exit_code).toBe(0);
    expect(report.accounts.map((account) => account.name)).toEqual(['two']);
    expect(report.rollout?.waves.map((wave) => wave.status)).toEqual(['passed', 'passed']);
    expect((await harness.entry('states/two.json', 'TrunkIpAcl/office'))?.id).toBeTruthy();
  });
});
