import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { moveResource } from '../../src/run/state-edits.js';
import { startHarness, type Harness } from './harness.js';

// A revert follows what happened after the apply it reverts: a number an apply detached is attached
// again (telform never releases numbers); a resource renamed since (`metadata.moved_from`, `state
// mv`) is reverted under its name now, and a rename's record lists it; a value that refers to what a
// later apply deleted is blocked in the plan, naming that apply, and goes back once that is reverted.

let harness: Harness;
let globals: GlobalOptions;
const approvals = approvalsFrom({});
const quiet = { planned: () => ({ approve: async () => true }) };

const uri = (name: string, host: string) =>
  `apiVersion: telform/v1\nkind: OriginationUri\nmetadata:\n  name: ${name}\nspec:\n  uri: ${host}:5060\n`;
const trunk = (name: string, label: string, primary: string, movedFrom?: string) =>
  `apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: ${name}\n${movedFrom ? `  moved_from: Trunk/${movedFrom}\n` : ''}spec:\n  name: ${label}\n  trunk_direction: inbound\n  primary_uri_uuid: { ref: ${primary} }\n`;
const number = (app: string) =>
  `apiVersion: telform/v1\nkind: PhoneNumber\nmetadata:\n  name: main-line\nspec:\n  number: "+15125550101"\n  app_id: { ref: ${app} }\n`;

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'follow.state.json') };
});
afterAll(async () => {
  await harness.close();
});

async function apply(documents: string[], flags: Parameters<typeof approvalsFrom>[0] = {}) {
  await harness.write('pbx.yaml', documents.join('---\n'));
  const applied = await applyManifests(
    {
      source: { paths: ['pbx.yaml'], values: { value: [] } },
      approvals: approvalsFrom(flags),
      options: {},
      parallelism: 4,
      waitMs: 0,
    },
    globals,
    harness.context(harness.envOf(0)),
    { planned: () => ({}) },
  );
  if (applied.mode !== 'apply' || applied.outcome.status !== 'applied') throw new Error(JSON.stringify(applied));
  return applied.outcome.record;
}

async function revert(seq: number, flags: Parameters<typeof approvalsFrom>[0] = {}) {
  const reverted = await revertApply(
    { seq, mode: 'apply', approvals: approvalsFrom(flags), parallelism: 4, waitMs: 0 },
    globals,
    harness.context(harness.envOf(0)),
    quiet,
  );
  if (reverted.mode !== 'apply') throw new Error(reverted.mode);
  return reverted;
}

const changesOf = (record: { type: string; changes?: Array<{ action: string; address: string }> }) =>
  (record.changes ?? []).map((change) => `${change.action} ${change.address}`);

describe('a revert follows the history after the apply it reverts', () => {
  it('attaches a detached number again, follows renames, and blocks a value that refers to what a later apply deleted', async () => {
    const a = uri('pbx-a', 'sip-a.pbx.example.com');
    const b = uri('pbx-b', 'sip-b.pbx.example.com');
    await apply([a, b, trunk('office', 'office', 'pbx-a'), number('office')]); // #1
    await apply([a, b, trunk('office', 'office-2', 'pbx-b'), number('office')]); // #2
    // #3 detaches the number and deletes the URI #2 pointed away from.
    const third = await apply([b, trunk('office', 'office-2', 'pbx-b')], { forceDeletes: true, maxNumbersAffected: 1 });
    expect(changesOf(third).sort()).toEqual(['delete OriginationUri/pbx-a', 'delete PhoneNumber/main-line']);
    // #4 renames the trunk, and only that: the record lists the move.
    const fourth = await apply([b, trunk('front-desk', 'office-2', 'pbx-b', 'office')]);
    expect(fourth).toMatchObject({
      seq: 4,
      changes: [{ address: 'Trunk/front-desk', action: 'move', moved_from: 'Trunk/office', result: 'done' }],
    });
    // And the state renames it again.
    await moveResource('Trunk/front-desk', 'Trunk/reception', globals, harness.context(harness.envOf(0)));

    // The value #2 replaced refers to OriginationUri/pbx-a, which #3 deleted: blocked, naming #3, under the trunk's name now.
    const blocked = await revert(2);
    const acted = blocked.plan.changes.filter((change) => change.action !== 'noop');
    expect(acted.map((change) => [change.action, change.address, change.reasons])).toEqual([
      [
        'blocked',
        'Trunk/reception',
        [
          'primary_uri_uuid: its value before #2 refers to OriginationUri/pbx-a, which apply #3 deleted; revert #3 first (it creates OriginationUri/pbx-a again), then this one',
        ],
      ],
    ]);
    expect(blocked.plan.warnings).toContain(
      'Trunk/office: renamed Trunk/reception since apply #2; the revert follows it',
    );

    // #3 reverted: the URI is created again and the number attached again (never "released").
    const back = await revert(3);
    expect(back.plan.warnings[0]).toBe(
      'revert of apply #3: this plan creates again what #3 deleted: OriginationUri/pbx-a; attaches again what #3 detached (telform never releases a number): PhoneNumber/main-line; nothing else in the account changes',
    );
    expect(back.outcome).toMatchObject({ status: 'applied', record: { seq: 7, reverts: 3 } });
    expect(back.outcome.status === 'applied' ? changesOf(back.outcome.record) : []).toEqual([
      'create OriginationUri/pbx-a',
      'update PhoneNumber/main-line',
    ]);
    // Attached to the trunk #3 detached it from, under its name now.
    expect((await harness.entry('follow.state.json', 'PhoneNumber/main-line'))?.applied_spec).toMatchObject({
      app_id: { ref: 'reception' },
    });

    // Now #2 goes back on the trunk under its name now, to the URI created again.
    const second = await revert(2);
    expect(second.plan.warnings[0]).toBe(
      'revert of apply #2: this plan puts back Trunk/reception name, primary_uri_uuid to the values before #2; nothing else in the account changes',
    );
    expect(second.outcome).toMatchObject({ status: 'applied' });
    expect((await harness.entry('follow.state.json', 'Trunk/reception'))?.applied_spec).toMatchObject({
      name: 'office',
      primary_uri_uuid: { ref: 'pbx-a' },
    });
  });
});
