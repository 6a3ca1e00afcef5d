// The approval rules judge every apply, not only `apply plan.json` (run/judgement.ts): an account of
// `apply --accounts` and an applied `revert N --policy FILE` whose change a rule gives to people are
// refused before any write, naming the rule, as `apply -f` of it is.
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import { applyStep } from '../../src/run/account-steps.js';
import { runAccounts } from '../../src/run/accounts.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let globals: GlobalOptions;
const alice = generateKeyPairSync('ed25519').privateKey;
const unwatched = { planned: () => ({}) };

function writes(since: number): string[] {
  return harness.emulator.runtime.log
    .list({ type: 'request' })
    .filter((entry) => entry.seq > since && entry.method !== 'GET')
    .map((entry) => `${entry.method} ${entry.path}`);
}
const lastSeq = () => harness.emulator.runtime.log.list({ type: 'request' }).at(-1)?.seq ?? 0;

beforeAll(async () => {
  harness = await startHarness();
  await harness.write(
    'voice.yaml',
    [
      documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      documentOf('Trunk', 'pbx-out', { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  await harness.write(
    'people.yaml',
    [
      'apiVersion: telform/v1',
      'kind: People',
      'people:',
      `  alice: { keys: ["${sshPublicKeyLine(alice)}"], roles: [voice-leads] }`,
    ].join('\n'),
  );
  await harness.write(
    'approvals.yaml',
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'people: people.yaml',
      'approvals:',
      '  - { id: trunk-changes, match: change.kind == "Trunk", needs: 1 of voice-leads, ttl: 24h }',
    ].join('\n'),
  );
  await harness.write(
    'accounts.yaml',
    [
      'accounts:',
      '  - name: voice',
      '    manifests: [voice.yaml]',
      '    state: fleet.state.json',
      `    endpoint: ${harness.emulator.url}`,
      '    policies: [approvals.yaml]',
      '    credentials: { auth_id_env: TELFORM_AUTH_ID, auth_token_env: TELFORM_AUTH_TOKEN }',
      '',
    ].join('\n'),
  );
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'voice.state.json') };
});
afterAll(async () => {
  await harness.close();
});

describe('the approval rules on every apply path', () => {
  it('refuses an account of apply --accounts whose trunk a rule gives to people, writing nothing', async () => {
    const since = lastSeq();
    const report = await runAccounts(
      {
        command: 'apply',
        accountsFile: 'accounts.yaml',
        only: [],
        accountParallelism: 1,
        globals: {},
        approvals: approvalsFrom({}),
        lock: true,
        step: applyStep({ parallelism: 4, waitMs: 0 }),
      },
      harness.context(harness.envOf(1)),
    );
    const [account] = report.accounts;
    expect(account?.status).toBe('error');
    expect(account?.error?.code).toBe('approval_refused');
    expect(account?.error?.message).toContain('trunk-changes');
    expect(writes(since)).toEqual([]);
  });

  it('refuses an applied revert judged by the policy whose change a rule gives to people', async () => {
    // Apply #1 without the rules makes the trunk; reverting it deletes the trunk, a change of the rule.
    const applied = await applyManifests(
      {
        source: { paths: ['voice.yaml'], values: { value: [] } },
        approvals: approvalsFrom({}),
        options: {},
        parallelism: 4,
        waitMs: 0,
      },
      globals,
      harness.context(harness.envOf(0)),
      unwatched,
    );
    expect(applied.mode === 'apply' && applied.outcome.status).toBe('applied');
    const since = lastSeq();
    await expect(
      revertApply(
        {
          seq: 1,
          mode: 'apply',
          parallelism: 4,
          waitMs: 0,
          approvals: approvalsFrom({ forceDeletes: true }),
          policies: ['approvals.yaml'],
        },
        globals,
        harness.context(harness.envOf(0)),
        unwatched,
      ),
    ).rejects.toMatchObject({ code: 'approval_refused', message: expect.stringContaining('trunk-changes') });
    expect(writes(since)).toEqual([]);
  });
});
