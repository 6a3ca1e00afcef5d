import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWaves } from '../../src/engine/waves.js';
import { accountsReportProblem } from '../../src/render/accounts-report-schema.js';
import { applyStep } from '../../src/run/account-steps.js';
import type { AccountsRun } from '../../src/run/accounts.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { assertNoUnfinishedRollout, runRollout } from '../../src/run/rollout.js';
import { runAccountsFanOut } from '../../src/run/accounts-run.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

/**
 * What a rollout in waves guards (issue 33): a failed gate names the change and the API's message
 * (item 24); while it is stopped, a plain apply of its accounts is refused (item 18); a resume after
 * the manifests changed is refused (item 2); and a manifest change not yet applied is not a clean
 * gate, only a registry wait is (item 2).
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const env = {
  A_ID: accounts[0].authId,
  A_TOKEN: accounts[0].authToken,
  B_ID: accounts[1].authId,
  B_TOKEN: accounts[1].authToken,
  C_ID: accounts[2].authId,
  C_TOKEN: accounts[2].authToken,
};

const run = (accountsFile: string): AccountsRun => ({
  command: 'apply',
  accountsFile,
  only: [],
  accountParallelism: 1,
  globals: {},
  approvals: approvalsFrom({}),
  lock: true,
  step: applyStep({ parallelism: 4, waitMs: 0 }),
});

async function fleet(h: Harness, names: string[], extra: Record<string, string[]> = {}): Promise<void> {
  await h.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'office_ip' }] }));
  await h.write(
    'accounts.yaml',
    JSON.stringify({
      defaults: { state: 'states/{account}.json', endpoint: h.emulator.url },
      accounts: names.map((name, index) => ({
        name,
        manifests: ['acl.yaml', ...(extra[name] ?? [])],
        credentials: { auth_id_env: `${name.toUpperCase()}_ID`, auth_token_env: `${name.toUpperCase()}_TOKEN` },
        values: { office_ip: `203.0.113.${index + 1}` },
      })),
    }),
  );
}

describe('a rollout stopped at a failed gate', () => {
  it('names the failed change and the API message, refuses a plain apply of its accounts, and refuses a resume after the manifests changed', async () => {
    const h = await startHarness();
    harness = h;
    // c's brand names a profile the account does not have: the API refuses the create.
    await h.write(
      'brand.yaml',
      documentOf('Brand', 'acme', {
        profile_uuid: '5eed0000-0000-4000-8000-00000000dead',
        brand_alias: 'Acme',
        brand_type: 'STANDARD',
      }),
    );
    await fleet(h, ['a', 'b', 'c'], { c: ['brand.yaml'] });
    const notes: string[] = [];
    const report = await runRollout(
      run('accounts.yaml'),
      { waves: parseWaves('1,100%'), canary: [], soakMs: 0, resume: false, restart: false },
      h.context(env, notes),
    );
    expect(report.exit_code).toBe(1);
    const reason =
      'apply failed: Brand/acme: the API answered 400 to POST /10dlc/Brand/: profile_uuid 5eed0000-0000-4000-8000-00000000dead does not name a profile of this account';
    expect(report.rollout?.waves[1]).toEqual({
      wave: 2,
      accounts: ['b', 'c'],
      status: 'failed',
      failures: [{ account: 'c', reason }],
    });
    expect(notes).toContain(`[wave 2/2] gate failed: c (${reason}); the rollout stops here`);
    // What report show|merge will read back fits the report schema (plans, errors and waves included).
    expect(accountsReportProblem(JSON.parse(JSON.stringify(report)))).toBeUndefined();

    // A plain apply of every account would ship c past its gate; of the accounts that passed, it may run.
    const stopped = `the rollout recorded in ${path.join(h.folder, 'states', '_rollout.json')} stopped at wave 2 of 2, and c has not passed it: continue it with --resume, start over with --waves STEPS --restart, or apply anyway with --ignore-rollout`;
    await expect(runAccountsFanOut(run('accounts.yaml'), {}, h.context(env))).rejects.toThrow(stopped);
    await expect(
      assertNoUnfinishedRollout({ accountsFile: 'accounts.yaml', only: ['a', 'b'], shard: undefined }, h.context(env)),
    ).resolves.toBeUndefined();

    // The shared manifest changes: resuming would ship the new version to c past the canary that passed the old one.
    await h.write(
      'acl.yaml',
      documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'office_ip' }, '198.51.100.9'] }),
    );
    await expect(
      runRollout(run('accounts.yaml'), { canary: [], soakMs: 0, resume: true, restart: false }, h.context(env)),
    ).rejects.toThrow(
      `the manifests or values of a, b, c changed since the rollout recorded in ${path.join(h.folder, 'states', '_rollout.json')} started; resuming would ship them past the gates the earlier version passed: start a new rollout of this version with --waves STEPS --restart`,
    );
    // Nothing of the new version went anywhere.
    expect((await h.entry('states/b.json', 'TrunkIpAcl/office'))?.applied_spec).toMatchObject({
      ip_addresses: ['203.0.113.2'],
    });
  });
});

describe("a wave's gate", () => {
  it('is not clean while an account of the wave has a manifest change not yet applied', async () => {
    const h = await startHarness();
    harness = h;
    await fleet(h, ['a', 'b']);
    // During the soak someone edits the shared manifest: the wave's account is no longer on the version rolled out.
    const clock: Clock = {
      now: systemClock.now,
      sleep: async () => {
        await writeFile(
          path.join(h.folder, 'acl.yaml'),
          documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'office_ip' }, '198.51.100.9'] }),
        );
      },
    };
    const report = await runRollout(
      run('accounts.yaml'),
      { waves: parseWaves('1,100%'), canary: [], soakMs: 1_000, resume: false, restart: false, clock },
      h.context(env),
    );
    expect(report.exit_code).toBe(1);
    expect(report.rollout?.waves).toEqual([
      {
        wave: 1,
        accounts: ['a'],
        status: 'failed',
        failures: [{ account: 'a', reason: 'drift check: manifest changes not yet applied: TrunkIpAcl/office' }],
      },
      { wave: 2, accounts: ['b'], status: 'not_started' },
    ]);
  });
});
