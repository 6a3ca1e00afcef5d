import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { repointState } from '../../src/run/state-endpoint.js';
import { openState } from '../../src/run/state-location.js';
import { documentOf, startHarness, type Harness } from './harness.js';

// `state endpoint` in process: the same account served at another address takes the ledger over
// after its resources are found there; other credentials change nothing.

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe('repointState', () => {
  it('re-points the ledger once a managed resource is found at the new address, and refuses another account', async () => {
    await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.20'] }));
    const state = path.join(harness.folder, 'repoint.state.json');
    const run = await reconcile(
      { paths: ['acl.yaml'] },
      { endpoint: harness.emulator.url, state },
      approvalsFrom({}),
      harness.context(harness.envOf(0)),
      { lock: true },
    );
    expect((await withReconciliation(run, () => applyReconciled(run, { parallelism: 2, waitMs: 0 }))).status).toBe(
      'applied',
    );

    const elsewhere = harness.emulator.url.replace('127.0.0.1', 'localhost');
    await expect(repointState(elsewhere, { state }, harness.context(harness.envOf(1)))).rejects.toMatchObject({
      code: 'state_endpoint_account',
    });
    expect(await repointState(elsewhere, { state }, harness.context(harness.envOf(0)))).toEqual({
      state,
      account: harness.envOf(0).TELFORM_AUTH_ID,
      before: harness.emulator.url,
      after: elsewhere,
      found: 1,
      sampled: 1,
    });
    const store = await openState({ state }, {}, { lock: false });
    try {
      expect(store.ledger.endpoint).toBe(elsewhere);
    } finally {
      await store.close();
    }
  });
});
