import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { documentOf, startHarness, type Harness } from './harness.js';
import { startProductGate, type ProductGate } from './product-gate.js';

// One object's failure is that object's: a ledger object the list no longer shows is fetched by id;
// when that read fails (here a 400), the object is unknown and blocked, and the rest of the plan goes on.

let harness: Harness;
let gate: ProductGate | undefined;

beforeAll(async () => {
  harness = await startHarness();
  await harness.write(
    'acls.yaml',
    [
      documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      documentOf('TrunkIpAcl', 'lab', { ip_addresses: ['203.0.113.20'] }),
    ].join('\n---\n'),
  );
});
afterAll(async () => {
  await gate?.close();
  await harness.close();
});

describe('a failed read of one ledger object', () => {
  it('blocks that object and plans the others', async () => {
    const state = path.join(harness.folder, 'acls.state.json');
    gate = await startProductGate(harness.emulator.url, '/nothing-refused-yet/', '');
    const direct: GlobalOptions = { endpoint: gate.url, state };
    const context = harness.context(harness.envOf(2));
    const first = await reconcile({ paths: ['acls.yaml'] }, direct, approvalsFrom({}), context, { lock: true });
    expect((await withReconciliation(first, (run) => applyReconciled(run, { parallelism: 2, waitMs: 0 }))).status).toBe(
      'applied',
    );
    const office = (await harness.entry('acls.state.json', 'TrunkIpAcl/office'))?.id ?? '';
    // Gone from the list (deleted out of band), and its read by id answers 400 instead of 404.
    const deleted = await fetch(
      `${harness.emulator.url}/v1/Account/${harness.envOf(2).TELFORM_AUTH_ID}/Zentrunk/IPAccessControlList/${office}/`,
      {
        method: 'DELETE',
        headers: {
          authorization: `Basic ${Buffer.from(`${harness.envOf(2).TELFORM_AUTH_ID}:${harness.envOf(2).TELFORM_AUTH_TOKEN}`).toString('base64')}`,
        },
      },
    );
    expect(deleted.status).toBe(204);
    gate.refuse(`/IPAccessControlList/${office}/`, 'Bad request', 400);
    const run = await reconcile({ paths: ['acls.yaml'] }, { endpoint: gate.url, state }, approvalsFrom({}), context, {
      lock: false,
    });
    await withReconciliation(run, async () => {
      expect(run.plan.changes.map((change) => [change.address, change.action])).toEqual([
        ['TrunkIpAcl/lab', 'noop'],
        ['TrunkIpAcl/office', 'blocked'],
      ]);
      expect(run.plan.changes[1]?.reasons).toEqual([
        `${office} could not be read (the API answered 400 to GET /Zentrunk/IPAccessControlList/${office}/: Bad request): unknown, so nothing is planned for it this run`,
      ]);
    });
  });
});
