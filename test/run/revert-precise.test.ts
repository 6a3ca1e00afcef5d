import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { readStateHistory } from '../../src/run/history-read.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { startHarness, type Harness } from './harness.js';

// A revert puts back only the fields apply #N changed (in process, file state): a later apply's change
// to another field stays; a later apply's change to the same field is a conflict that refuses the
// revert, naming the apply and the field, until `--over` takes it (recorded in the history).

let harness: Harness;
let globals: GlobalOptions;
const approvals = approvalsFrom({});
const manifests = (trunk: Record<string, unknown>) =>
  [
    {
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name: 'edge' },
      spec: { ip_addresses: ['203.0.113.40'] },
    },
    {
      apiVersion: 'telform/v1',
      kind: 'Trunk',
      metadata: { name: 'edge' },
      spec: { trunk_direction: 'outbound', ipacl_uuid: { ref: 'edge' }, ...trunk },
    },
  ]
    .map((document) => JSON.stringify(document))
    .join('\n---\n');

async function apply(trunk: Record<string, unknown>): Promise<void> {
  await harness.write('edge.yaml', manifests(trunk));
  const applied = await applyManifests(
    { source: { paths: ['edge.yaml'], values: { value: [] } }, approvals, options: {}, parallelism: 4, waitMs: 0 },
    globals,
    harness.context(harness.envOf(0)),
    { planned: () => ({}) },
  );
  expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied' } });
}

const warnings: string[][] = [];
const watcher = {
  planned: (run: { plan: { warnings: string[] } }) => {
    warnings.push(run.plan.warnings);
    return { approve: async () => true };
  },
};
async function liveTrunk(): Promise<Record<string, unknown>> {
  const entry = await harness.entry('precise.state.json', 'Trunk/edge');
  const response = await fetch(
    `${harness.emulator.url}/v1/Account/${harness.envOf(0).TELFORM_AUTH_ID}/Zentrunk/Trunk/${entry?.id}/`,
    {
      headers: {
        authorization: `Basic ${Buffer.from(`${harness.envOf(0).TELFORM_AUTH_ID}:${harness.envOf(0).TELFORM_AUTH_TOKEN}`).toString('base64')}`,
      },
    },
  );
  return ((await response.json()) as { object: Record<string, unknown> }).object;
}

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'precise.state.json') };
});
afterAll(async () => {
  await harness.close();
});

describe('a field-precise revert', () => {
  it('puts back the field #2 changed and leaves the field #3 changed later', async () => {
    await apply({ secure: true }); // #1
    await apply({ secure: false }); // #2: secure turned off
    await apply({ secure: false, trunk_status: 'disabled' }); // #3: the trunk deliberately disabled
    const reverted = await revertApply(
      { seq: 2, mode: 'apply', parallelism: 4, waitMs: 0, approvals },
      globals,
      harness.context(harness.envOf(0)),
      watcher,
    );
    expect(reverted).toMatchObject({ mode: 'apply', outcome: { status: 'applied' } });
    expect(warnings.at(-1)?.[0]).toBe(
      'revert of apply #2: this plan puts back Trunk/edge secure to the values before #2; nothing else in the account changes',
    );
    expect(await liveTrunk()).toMatchObject({ secure: true, trunk_status: 'disabled' });
  });

  it('refuses a field a later apply changed again, naming it, and takes it with --over, recorded in the history', async () => {
    await apply({ secure: true, trunk_status: 'disabled', name: 'edge-five' }); // #5
    await apply({ secure: true, trunk_status: 'disabled', name: 'edge-six' }); // #6
    const context = harness.context(harness.envOf(0));
    await expect(
      revertApply({ seq: 5, mode: 'apply', parallelism: 4, waitMs: 0, approvals }, globals, context, watcher),
    ).rejects.toThrow(
      'the revert of apply #5 is refused: Trunk/edge name was changed again by apply #6; put it back anyway with --over 6; nothing was sent',
    );
    expect(warnings.at(-1)).toContain(
      'conflict: Trunk/edge name was changed again by apply #6; it is not put back, and the revert is refused (--over 6 puts it back anyway)',
    );
    expect((await liveTrunk()).name).toBe('edge-six');

    const taken = await revertApply(
      { seq: 5, mode: 'apply', parallelism: 4, waitMs: 0, approvals, over: [6] },
      globals,
      context,
      watcher,
    );
    expect(taken).toMatchObject({
      mode: 'apply',
      outcome: { status: 'applied', record: { seq: 7, reverts: 5, over: [6] } },
    });
    expect(warnings.at(-1)).toEqual(
      expect.arrayContaining([
        'revert of apply #5: this plan puts back Trunk/edge name to the values before #5',
        '--over 6: Trunk/edge name is put back although apply #6 changed it again',
      ]),
    );
    expect(await liveTrunk()).toMatchObject({ name: 'edge', secure: true, trunk_status: 'disabled' });
    const history = await readStateHistory(globals, context);
    expect(history.records.at(-1)).toMatchObject({ seq: 7, trigger: 'revert', reverts: 5, over: [6] });
  });
});
