import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests, type ApplyRequest } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { planManifests } from '../../src/run/plan.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

// `telform apply` of one account as an operation, in process: the watcher is told the plan before
// anything is asked or sent, a "no" sends nothing, and `--format json` gives the accounts report's entry.

let harness: Harness;
let globals: GlobalOptions;

beforeAll(async () => {
  harness = await startHarness();
  await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'pbx_ip' }] }));
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'apply.state.json') };
});
afterAll(async () => {
  await harness.close();
});

function request(changes: Partial<ApplyRequest> = {}): ApplyRequest {
  return {
    source: { paths: ['acl.yaml'], values: { value: ['pbx_ip=203.0.113.10'] } },
    approvals: approvalsFrom({}),
    options: {},
    parallelism: 4,
    waitMs: 0,
    ...changes,
  };
}

async function aclCount(index: number): Promise<number> {
  const account = accounts[index];
  const authorization = `Basic ${Buffer.from(`${account?.authId}:${account?.authToken}`).toString('base64')}`;
  const response = await fetch(`${harness.emulator.url}/v1/Account/${account?.authId}/Zentrunk/IPAccessControlList/`, {
    headers: { authorization },
  });
  return ((await response.json()) as { meta: { total_count: number } }).meta.total_count;
}

describe('applyManifests (run/apply-run.ts)', () => {
  it('tells the watcher the plan first; a "no" sends nothing, a "yes" applies with the progress events and ends the watch once', async () => {
    const context = harness.context(harness.envOf(0));
    const told: string[] = [];
    const cancelled = await applyManifests(request(), globals, context, {
      planned: (run) => {
        told.push(
          `${run.account} ${run.steps} ${run.plan.changes.map((change) => `${change.action} ${change.address}`).join(', ')}`,
        );
        return { approve: async () => false, done: () => told.push('done') };
      },
    });
    expect(cancelled).toMatchObject({ mode: 'apply', outcome: { status: 'cancelled' } });
    expect(told).toEqual([`${accounts[0].authId} 1 create TrunkIpAcl/office`, 'done']);
    expect(await aclCount(0)).toBe(0);

    const events: string[] = [];
    const applied = await applyManifests(request(), globals, context, {
      planned: () => ({
        approve: async () => true,
        onEvent: (event) => events.push(`${event.type} ${event.change.address}`),
      }),
    });
    expect(
      applied.mode === 'apply' && applied.outcome.status === 'applied' ? applied.outcome.record.seq : undefined,
    ).toBe(1);
    expect(events).toEqual(['started TrunkIpAcl/office', 'finished TrunkIpAcl/office']);
    expect(await aclCount(0)).toBe(1);
  });

  it('gives the accounts report entry for --format json, and never asks', async () => {
    const context = harness.context(harness.envOf(1));
    const state = { ...globals, state: path.join(harness.folder, 'json.state.json') };
    const asked: string[] = [];
    const watcher = { planned: () => ({ approve: async () => (asked.push('asked'), false) }) };
    expect(await applyManifests(request({ asReportEntry: true }), state, context, watcher)).toEqual({
      mode: 'entry',
      entry: {
        name: accounts[1].authId,
        exit_code: 0,
        status: 'applied',
        summary:
          'Apply complete: 1 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 0. Blocked: 0. Failed: 0.',
      },
    });
    expect(await applyManifests(request({ asReportEntry: true }), state, context, watcher)).toEqual({
      mode: 'entry',
      entry: { name: accounts[1].authId, exit_code: 0, status: 'no_changes', summary: 'Nothing to apply.' },
    });
    expect(asked).toEqual([]);
  });

  it('applies a saved plan exactly, with no values read, and refuses what its gates refused before asking', async () => {
    const context = harness.context(harness.envOf(2));
    const state = { ...globals, state: path.join(harness.folder, 'saved.state.json') };
    await planManifests(
      {
        paths: ['acl.yaml'],
        values: { value: ['pbx_ip=203.0.113.20'] },
        approvals: approvalsFrom({}),
        options: {},
        out: 'acl.plan.json',
        detailedExitcode: false,
      },
      state,
      context,
    );
    const applied = await applyManifests(
      request({ source: { savedPlan: path.join(harness.folder, 'acl.plan.json') } }),
      state,
      context,
      { planned: () => ({}) },
    );
    expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied', failed: false } });
    expect(await aclCount(2)).toBe(1);

    // Manifests that no longer name the ACL delete every one of the kind: refused without --force-deletes, before approve is asked.
    await harness.write('other.yaml', documentOf('TrunkIpAcl', 'other', { ip_addresses: ['203.0.113.30'] }));
    const asked: string[] = [];
    const refused = await applyManifests(
      request({ source: { paths: ['other.yaml'], values: { value: [] } } }),
      state,
      context,
      { planned: () => ({ approve: async () => (asked.push('asked'), true) }) },
    );
    expect(
      refused.mode === 'apply' && refused.outcome.status === 'refused'
        ? refused.outcome.violations.map((violation) => violation.code)
        : [],
    ).toEqual(['mass_delete']);
    expect(asked).toEqual([]);
    expect(await aclCount(2)).toBe(1);
  });
});
