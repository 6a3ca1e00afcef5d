import { describe, expect, it } from 'vitest';
import { kindsByName } from '../../src/engine/kinds.js';
import { buildPlan } from '../../src/engine/planner.js';
import { markRevertPlan, revertSet } from '../../src/engine/revert.js';
import { checkSafety } from '../../src/engine/safety.js';
import type { HistoryChange, HistoryRecord } from '../../src/state/history.js';
import { allKinds, ledgerWith, noApprovals, planInputs } from './builders.js';

// Reverting an apply that deleted a brand, its campaign and a number: the brand and campaign come back
// only as new registrations (irreversible; the campaign priced at its kind's vetting review, the brand
// at fees the API does not state), the number not at all.
const brand = { profile_uuid: 'P1', brand_alias: 'acme' };
const campaign = { campaign_alias: 'spring', usecase: 'MARKETING', brand_id: { ref: 'acme' } };
const deleted = (address: string, id: string, before: Record<string, unknown>): HistoryChange => ({
  address,
  kind: address.split('/')[0] as string,
  action: 'delete',
  id,
  before,
  requests: 1,
  fees_usd: 0,
  irreversible: true,
  result: 'done',
});
const record: HistoryRecord & { type: 'apply' } = {
  format_version: 1,
  seq: 7,
  prev: null,
  at: '2026-11-25T00:00:00.000Z',
  origin: {},
  hash: '0'.repeat(64),
  type: 'apply',
  trigger: 'apply',
  plan: { digest: 'd'.repeat(64), created_at: '2026-11-25T00:00:00.000Z' },
  approvals: {},
  changes: [deleted('Campaign/spring', 'C1', campaign), deleted('Brand/acme', 'B1', brand), deleted('PhoneNumber/main', 'N1', { number: '+15125550101' })],
  requests: 3,
  fees_usd: 0,
  result: 'applied',
};
const kinds = kindsByName(allKinds);
const set = revertSet(record, ledgerWith([]));
const plan = markRevertPlan(buildPlan(planInputs({ desired: set.resources })), set, kinds);

describe('the plan of a revert', () => {
  it('registers the brand and campaign anew, irreversible, the campaign billed at its vetting review; the number is blocked', () => {
    expect(plan.changes.map((change) => [change.address, change.action, change.flags.irreversible, change.flags.billable_usd])).toEqual([
      ['Brand/acme', 'create', true, 0],
      ['Campaign/spring', 'wait', true, 15],
      ['PhoneNumber/main', 'blocked', false, 0],
    ]);
    expect(plan.summary).toMatchObject({ cost_usd: 15, irreversible: 2, blocked: 1 });
    expect(plan.reverts).toBe(7);
    const reasons = new Map(plan.changes.map((change) => [change.address, change.reasons.at(-1)]));
    expect(reasons.get('Campaign/spring')).toBe("registering it again submits it to the registry's vetting review: 15 USD");
    expect(reasons.get('Brand/acme')).toBe("registering it again goes through the registry's vetting again, at fees not stated by the API (not counted in the plan's cost)");
  });

  it('is refused without the approvals of both registrations and of the vetting review, and passes with them', () => {
    const refused = checkSafety(plan, noApprovals, set.resources, ledgerWith([]));
    expect(refused.map((violation) => [violation.code, violation.address ?? ''])).toEqual([
      ['irreversible', 'Brand/acme'],
      ['irreversible', 'Campaign/spring'],
      ['cost', ''],
    ]);
    const approved = { ...noApprovals, allow_irreversible: ['Brand/acme', 'Campaign/spring'], max_cost_usd: 15 };
    expect(checkSafety(plan, approved, set.resources, ledgerWith([]))).toEqual([]);
  });
});
