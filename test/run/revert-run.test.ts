import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { startHarness, type Harness } from './harness.js';

// `telform revert N` as an operation, in process: saved for review, applied after the watcher's
// "yes" (recorded as the revert of #N), a second time nothing, and written into the manifests.

let harness: Harness;
let globals: GlobalOptions;

// Block YAML: `--write` edits a block mapping in place, every other byte kept.
const acl = (ip: string) =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses:\n    - ${ip}\n`;
const approvals = approvalsFrom({});

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'revert.state.json') };
  const context = harness.context(harness.envOf(0));
  for (const ip of ['203.0.113.10', '203.0.113.11']) {
    await harness.write('acl.yaml', acl(ip));
    const applied = await applyManifests(
      { source: { paths: ['acl.yaml'], values: { value: [] } }, approvals, options: {}, parallelism: 4, waitMs: 0 },
      globals,
      context,
      { planned: () => ({}) },
    );
    expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied' } });
  }
});
afterAll(async () => {
  await harness.close();
});

function changesOf(plan: { changes: readonly { action: string; address: string }[] }): string[] {
  return plan.changes.map((change) => `${change.action} ${change.address}`);
}

describe('revertApply (run/revert-run.ts)', () => {
  it('saves the revert of #2 for review, applies it after a "yes" as the revert of #2, and then finds nothing to revert', async () => {
    const context = harness.context(harness.envOf(0));
    const told: string[] = [];
    const watcher = {
      planned: (run: { plan: { changes: readonly { action: string; address: string }[] }; steps: number }) => {
        told.push(`${changesOf(run.plan).join(', ')} (${run.steps} steps)`);
        return { approve: async () => true, done: () => told.push('done') };
      },
    };
    const saved = await revertApply(
      { seq: 2, mode: 'save', out: 'revert-2.json', approvals },
      globals,
      context,
      watcher,
    );
    expect(saved.mode === 'saved' ? [saved.out, changesOf(saved.plan), saved.violations] : saved.mode).toEqual([
      'revert-2.json',
      ['update TrunkIpAcl/office'],
      [],
    ]);
    expect(JSON.parse(await readFile(path.join(harness.folder, 'revert-2.json'), 'utf8'))).toMatchObject({
      reverts: 2,
    });

    const cancelled = await revertApply(
      { seq: 2, mode: 'apply', approvals, parallelism: 4, waitMs: 0 },
      globals,
      context,
      { planned: () => ({ approve: async () => false }) },
    );
    expect(cancelled).toMatchObject({ mode: 'apply', outcome: { status: 'cancelled' } });

    const applied = await revertApply(
      { seq: 2, mode: 'apply', approvals, parallelism: 4, waitMs: 0 },
      globals,
      context,
      watcher,
    );
    expect(
      applied.mode === 'apply' && applied.outcome.status === 'applied' ? applied.outcome.record : undefined,
    ).toMatchObject({ seq: 3, trigger: 'revert', reverts: 2 });
    expect(told).toEqual(['update TrunkIpAcl/office (1 steps)', 'done', 'update TrunkIpAcl/office (1 steps)', 'done']);

    const again = await revertApply(
      { seq: 2, mode: 'apply', approvals, parallelism: 4, waitMs: 0 },
      globals,
      context,
      watcher,
    );
    expect(again).toMatchObject({ mode: 'apply', outcome: { status: 'no_changes' } });
  });

  it('writes the values from before #2 into the manifests, without planning', async () => {
    const context = harness.context(harness.envOf(0));
    const written = await revertApply({ seq: 2, mode: 'write', files: ['acl.yaml'] }, globals, context, {
      planned: () => {
        throw new Error('a revert written into the manifests plans nothing');
      },
    });
    expect(written).toEqual({
      mode: 'written',
      result: { written: [expect.stringMatching(/^acl\.yaml(:\d+)?: TrunkIpAcl\/office /)], notes: [] },
    });
    expect(await readFile(path.join(harness.folder, 'acl.yaml'), 'utf8')).toBe(acl('203.0.113.10'));
  });
});
