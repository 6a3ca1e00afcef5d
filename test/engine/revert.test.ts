import { describe, expect, it } from 'vitest';
import { kindsByName } from '../../src/engine/kinds.js';
import { buildPlan } from '../../src/engine/planner.js';
import { markRevertPlan, revertSet } from '../../src/engine/revert.js';
import { checkSafety } from '../../src/engine/safety.js';
import type { HistoryChange, HistoryRecord } from '../../src/state/history.js';
import { allKinds, ledgerWith, live, noApprovals, planInputs } from './builders.js';

// Reverting an apply that deleted a campaign: it comes back only as a new registration, irreversible and
// priced at its kind's vetting review. A deleted brand cannot be registered again from its profile, nor
// the campaign under it: blocked, nothing billed. (A detached number is attached again: test/run/revert-follow.test.ts.)
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
  changes: [deleted('Campaign/spring', 'C1', campaign), deleted('Brand/acme', 'B1', brand)],
  requests: 3,
  fees_usd: 0,
  result: 'applied',
};
const kinds = kindsByName(allKinds);

describe('the plan of a revert', () => {
  it('registers a deleted campaign anew under its brand: irreversible, billed at the vetting review its kind declares', () => {
    const campaignOnly = { ...record, changes: [deleted('Campaign/spring', 'C1', campaign)] };
    const ledger = ledgerWith([{ kind: 'Brand', name: 'acme', id: 'B1', spec: brand }]);
    const set = revertSet(campaignOnly, ledger);
    const account = new Map([['Brand', [live('B1', brand, { registry: { registration_status: 'COMPLETED' } })]]]);
    const plan = markRevertPlan(buildPlan(planInputs({ desired: set.resources, live: account, ledger })), set, kinds);
    expect(
      plan.changes.map((change) => [
        change.address,
        change.action,
        change.flags.irreversible,
        change.flags.billable_usd,
      ]),
    ).toEqual([
      ['Brand/acme', 'noop', false, 0],
      ['Campaign/spring', 'create', true, 15],
    ]);
    expect(plan.summary).toMatchObject({ create: 1, cost_usd: 15, irreversible: 1, blocked: 0 });
    expect(plan.reverts).toBe(7);
    expect(plan.changes[1]?.reasons).toEqual([
      'apply #7 deleted it: it returns only as a new registration (a new id, a new vetting that can take days), never as the one that was deleted',
      "registering it again submits it to the registry's vetting review: 15 USD",
    ]);
    expect(
      checkSafety(plan, noApprovals, set.resources, ledger).map((violation) => [
        violation.code,
        violation.address ?? '',
      ]),
    ).toEqual([
      ['irreversible', 'Campaign/spring'],
      ['cost', ''],
    ]);
    expect(
      checkSafety(
        plan,
        { ...noApprovals, allow_irreversible: ['Campaign/spring'], max_cost_usd: 15 },
        set.resources,
        ledger,
      ),
    ).toEqual([]);
  });

  it('blocks a deleted brand (its profile has had its one brand) and the campaign registered under it: nothing billed', () => {
    const set = revertSet(record, ledgerWith([]));
    const plan = markRevertPlan(buildPlan(planInputs({ desired: set.resources })), set, kinds);
    expect(
      plan.changes.map((change) => [
        change.address,
        change.action,
        change.flags.irreversible,
        change.flags.billable_usd,
        change.reasons.at(-1),
      ]),
    ).toEqual([
      [
        'Brand/acme',
        'blocked',
        false,
        0,
        'deleted by apply #7: the API lets a profile register one brand, ever, and profile P1 registered this one, so it cannot be registered again from it; a brand registered anew needs a new profile, in the manifests',
      ],
      [
        'Campaign/spring',
        'blocked',
        false,
        0,
        'it is registered under Brand/acme, which cannot come back: it cannot come back either',
      ],
    ]);
    expect(plan.summary).toMatchObject({
      create: 0,
      wait: 0,
      cost_usd: 0,
      irreversible: 0,
      blocked: 2,
      api_requests: 0,
    });
  });
});
