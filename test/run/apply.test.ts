import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { applyStep } from '../../src/run/account-steps.js';
import { runAccounts } from '../../src/run/accounts.js';
import { applyReconciled, type ApplyRunOutcome } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { emulatorClock } from '../support/clock.js';
import { repository } from '../e2e/cli.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

// The apply operation in process: `apply -f` and each account of `apply --accounts` go through
// `applyReconciled`, so a protection is recorded (and then enforced) on both paths, and an accounts
// apply shares the run's read memo with its plan.

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

/** `apply -f acl.yaml --auto-approve` as account 0, with its own state. */
async function applySingle(approvals = approvalsFrom({})): Promise<ApplyRunOutcome> {
  const globals: GlobalOptions = {
    endpoint: harness.emulator.url,
    state: path.join(harness.folder, 'single.state.json'),
  };
  const run = await reconcile({ paths: ['acl.yaml'] }, globals, approvals, harness.context(harness.envOf(0)), {
    lock: true,
  });
  return withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
}

/** `apply --accounts accounts.yaml --auto-approve` over account 1 alone, with its own state. */
async function applyAccounts(approvals = approvalsFrom({})) {
  await harness.write(
    'accounts.yaml',
    JSON.stringify({
      defaults: { endpoint: harness.emulator.url },
      accounts: [
        {
          name: 'two',
          manifests: ['acl.yaml'],
          state: 'two.state.json',
          credentials: { auth_id_env: 'TWO_ID', auth_token_env: 'TWO_TOKEN' },
        },
      ],
    }),
  );
  const env = { TWO_ID: accounts[1].authId, TWO_TOKEN: accounts[1].authToken };
  const report = await runAccounts(
    {
      command: 'apply',
      accountsFile: 'accounts.yaml',
      only: [],
      accountParallelism: 2,
      globals: {},
      approvals,
      lock: true,
      step: applyStep({ parallelism: 4, waitMs: 0 }),
    },
    harness.context(env),
  );
  return report.accounts[0];
}

async function aclCount(index: number): Promise<number> {
  const account = accounts[index];
  const authorization = `Basic ${Buffer.from(`${account?.authId}:${account?.authToken}`).toString('base64')}`;
  const response = await fetch(`${harness.emulator.url}/v1/Account/${account?.authId}/Zentrunk/IPAccessControlList/`, {
    headers: { authorization },
  });
  return ((await response.json()) as { meta: { total_count: number } }).meta.total_count;
}

describe('one apply operation for apply -f and apply --accounts', () => {
  it('records metadata.protect on both paths without a request, then refuses to delete the protected ACL on both', async () => {
    await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'vault', { ip_addresses: ['203.0.113.10'] }));
    expect((await applySingle()).status).toBe('applied');
    expect((await applyAccounts())?.status).toBe('applied');

    await harness.write(
      'acl.yaml',
      documentOf('TrunkIpAcl', 'vault', { ip_addresses: ['203.0.113.10'] }, { protect: true }),
    );
    const before = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET').length;
    expect(await applySingle()).toEqual({
      status: 'no_changes',
      recorded: [{ address: 'TrunkIpAcl/vault', protect: true }],
    });
    expect(await applyAccounts()).toMatchObject({
      status: 'no_changes',
      exit_code: 0,
      summary: 'Nothing to apply. Recorded in the state: TrunkIpAcl/vault is protected.',
    });
    expect(
      harness.emulator.runtime.log.list({ type: 'request' }).filter((entry) => entry.method !== 'GET').length,
    ).toBe(before);
    expect((await harness.entry('single.state.json', 'TrunkIpAcl/vault'))?.protect).toBe(true);
    expect((await harness.entry('two.state.json', 'TrunkIpAcl/vault'))?.protect).toBe(true);

    // The document goes away: even with --force-deletes, the protection recorded holds on both paths.
    await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'other', { ip_addresses: ['203.0.113.11'] }));
    const forced = approvalsFrom({ forceDeletes: true });
    const single = await applySingle(forced);
    expect(single.status).toBe('refused');
    const message =
      'TrunkIpAcl/vault is protected in the state (an apply recorded metadata.protect: true) and would be deleted; to lift it, apply it once with metadata.protect: false, or run `telform state unprotect TrunkIpAcl/vault`';
    expect(single.status === 'refused' ? single.violations.map((violation) => violation.message) : []).toEqual([
      message,
    ]);
    expect(await applyAccounts(forced)).toMatchObject({
      status: 'error',
      exit_code: 1,
      error: { code: 'unsafe_plan', message: `apply refused 1 unapproved change; nothing was sent: ${message}` },
    });
    expect(await aclCount(0)).toBe(1);
    expect(await aclCount(1)).toBe(1);
  });
});

describe("the accounts apply shares its plan's reads", () => {
  it("lists the account's numbers once over a plan and an apply that polls a campaign for them", async () => {
    const emulator: RunningEmulator = harness.emulator;
    // Sleeps of `--wait` move the emulator's clock: the registry approves without real waiting.
    const clock = emulatorClock(emulator);
    await harness.write(
      'tendlc-accounts.yaml',
      JSON.stringify({
        accounts: [
          {
            name: 'one',
            endpoint: emulator.url,
            manifests: [path.join(repository, 'examples/10dlc')],
            state: 'tendlc.state.json',
            credentials: { auth_id_env: 'ONE_ID', auth_token_env: 'ONE_TOKEN' },
          },
        ],
      }),
    );
    const since = emulator.runtime.log.list().at(-1)?.seq ?? 0;
    const report = await runAccounts(
      {
        command: 'apply',
        accountsFile: 'tendlc-accounts.yaml',
        only: [],
        accountParallelism: 1,
        globals: {},
        approvals: approvalsFrom({}),
        lock: true,
        step: applyStep({ parallelism: 4, waitMs: 3_600_000, clock }),
      },
      harness.context({ ONE_ID: accounts[2].authId, ONE_TOKEN: accounts[2].authToken }),
    );
    expect(report.accounts[0]).toMatchObject({ status: 'applied', exit_code: 0 });
    const requests = emulator.runtime.log.list({ account: accounts[2].authId, type: 'request', sinceSeq: since });
    // The numbers were linked after their campaign was polled to ACTIVE (reads of the campaign)…
    expect(
      requests.filter((entry) => entry.method === 'POST' && /\/Campaign\/[^/]+\/Number\/$/.test(entry.path)).length,
    ).toBe(2);
    expect(
      requests.filter((entry) => entry.method === 'GET' && /\/Campaign\/[^/]+\/$/.test(entry.path)).length,
    ).toBeGreaterThan(0);
    // …and the account's numbers were listed once, for the plan, not again for each campaign read.
    expect(requests.filter((entry) => entry.method === 'GET' && /\/Number\/$/.test(entry.path)).length).toBe(1);
  });
});
