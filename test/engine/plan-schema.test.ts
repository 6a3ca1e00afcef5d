import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { planSchema, renderPlanJsonSchema } from '../../src/engine/plan-schema.js';
import { desired, ledgerWith, live, planInputs } from './builders.js';

describe('schemas/plan.schema.json', () => {
  it('is what the plan schema generates (run `npm run schemas` after changing the plan)', async () => {
    const committed = await readFile(path.resolve(import.meta.dirname, '../../schemas/plan.schema.json'), 'utf8');
    expect(committed).toBe(renderPlanJsonSchema());
  });

  it('describes the plans the planner makes', () => {
    const acl = desired(
      'TrunkIpAcl',
      'office',
      { name: 'office', ip_addresses: ['203.0.113.10'] },
      { secretSources: {} },
    );
    const plan = buildPlan(
      planInputs({
        desired: [acl, desired('Trunk', 'pbx', { name: 'pbx', ipacl_uuid: { ref: 'office' } })],
        live: new Map([['TrunkIpAcl', [live('a1', { name: 'office', ip_addresses: ['203.0.113.9'] })]]]),
        ledger: ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'a1', spec: acl.spec }]),
      }),
    );
    const parsed = planSchema.safeParse(JSON.parse(JSON.stringify(plan)));
    expect(parsed.success).toBe(true);
    expect(plan.changes.map((change) => change.action)).toEqual(['update', 'create']);
  });
});
