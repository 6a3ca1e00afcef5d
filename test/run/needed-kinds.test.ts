import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNeeds, neededKinds } from '../../src/engine/needed-kinds.js';
import { plannerKinds } from '../../src/engine/kinds.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { driftOf } from '../../src/run/drift.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { catalog } from '../../src/resources/index.js';
import { emptyLedger } from '../../src/state/ledger.js';
import { documentOf, startHarness, type Harness } from './harness.js';
import { startProductGate, type ProductGate } from './product-gate.js';

// Read what the run needs: a run lists only the kinds its manifests, its state and their references
// need, so an account without SIP trunking (its lists answer 403) plans, drifts and applies a Brand;
// a Trunk document gets one error naming the product and the document.

let harness: Harness;
let gate: ProductGate;

beforeAll(async () => {
  harness = await startHarness();
  gate = await startProductGate(harness.emulator.url, '/Zentrunk/', 'SIP trunking not enabled for this account');
  await harness.write(
    'brand.yaml',
    documentOf('Brand', 'acme', { profile_uuid: '5eed0000-0000-4000-8000-000000000002', brand_alias: 'Acme' }),
  );
  await harness.write('trunk.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }));
});
afterAll(async () => {
  await gate.close();
  await harness.close();
});

const globals = (): GlobalOptions => ({ endpoint: gate.url, state: path.join(harness.folder, 'brand.state.json') });

describe('the kinds a run reads', () => {
  it('are those of the manifests, the state and their references, and the kinds referring to them', () => {
    const kinds = plannerKinds(catalog);
    const needs = neededKinds({
      kinds,
      desired: [
        {
          kind: 'Brand',
          name: 'acme',
          address: 'Brand/acme',
          protect: false,
          spec: {},
          secretSources: {},
          source: { file: 'brand.yaml', line: 1, column: 1 },
        },
      ],
      ledger: emptyLedger('local', 'MATEST'),
    });
    expect([...needs.required].map(([kind, neededBy]) => [kind, describeNeeds(neededBy)])).toEqual([
      ['Brand', ['Brand/acme (brand.yaml:1)']],
      ['Profile', ['Brand/acme (brand.yaml:1)']],
    ]);
    expect([...needs.helpful].sort()).toEqual(['Campaign', 'PhoneNumber', 'SipIpAcl']);
  });

  it('let a Brand plan, apply and drift on an account without SIP trunking, never asking for a trunking list', async () => {
    const approvals = approvalsFrom({});
    const context = harness.context(harness.envOf(0));
    const applied = await reconcile({ paths: ['brand.yaml'] }, globals(), approvals, context, { lock: true });
    const outcome = await withReconciliation(applied, async (run) => {
      expect(run.plan.changes.map((change) => [change.address, change.action])).toEqual([['Brand/acme', 'create']]);
      return applyReconciled(run, { parallelism: 4, waitMs: 0 });
    });
    expect(outcome.status).toBe('applied');
    const drift = await reconcile({ paths: ['brand.yaml'] }, globals(), approvals, context, {
      lock: false,
      readOnly: true,
    });
    await withReconciliation(drift, async (run) => {
      expect(driftOf(run).report.status).toBe('in_sync');
    });
    expect(gate.paths.filter((asked) => asked.includes('/Zentrunk/'))).toEqual([]);
  });

  it('refuse a Trunk document with one error naming the product and the document', async () => {
    const state = { ...globals(), state: path.join(harness.folder, 'trunk.state.json') };
    await expect(
      reconcile({ paths: ['trunk.yaml'] }, state, approvalsFrom({}), harness.context(harness.envOf(1)), {
        lock: false,
      }),
    ).rejects.toThrow(
      'the account does not have SIP trunking (the API answered 403 to GET /Zentrunk/IPAccessControlList/: SIP trunking not enabled for this account), and TrunkIpAcl/office (trunk.yaml:1) needs it (TrunkIpAcl); enable SIP trunking on the account, or remove that document',
    );
  });
});
