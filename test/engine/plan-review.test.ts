import { describe, expect, it } from 'vitest';
import { kindsByName, plannerKinds } from '../../src/engine/kinds.js';
import { buildPlan } from '../../src/engine/planner.js';
import { explainField, explainKind } from '../../src/resources/explain.js';
import { catalog } from '../../src/resources/index.js';
import { planForDisplay } from '../../src/render/index.js';
import { renderText } from '../../src/render/text.js';
import { campaignKind, desired, ledgerWith, live, noApprovals, planInputs, testKind } from './builders.js';

/** What review shows is what apply does: a plan never promises a change apply refuses, or a cost apply does not incur. */
const kinds = plannerKinds(catalog);
const phoneNumber = catalog.get('PhoneNumber');
const campaign = catalog.get('Campaign');

describe('a PhoneNumber document pointed at another number', () => {
  const applied = { number: '+14155550100', app_id: 'TR1' };
  const inputs = (number: string) =>
    planInputs({
      kinds,
      desired: [desired('PhoneNumber', 'main-line', { number, app_id: 'TR1' })],
      live: new Map([
        [
          'PhoneNumber',
          [live('14155550100', { number: '14155550100', app_id: 'TR1' }, { facts: { attachment: 'application' } })],
        ],
      ]),
      ledger: ledgerWith([{ kind: 'PhoneNumber', name: 'main-line', id: '14155550100', spec: applied }]),
    });

  it('is blocked with the reason, not planned as an update apply would refuse', () => {
    const plan = buildPlan(inputs('+14155550199'));
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['PhoneNumber/main-line', 'blocked'],
    ]);
    expect(plan.changes[0]?.reasons).toEqual([
      'number names the number this document manages (14155550100); one document manages one number, so give 14155550199 its own document (and remove this one to detach 14155550100)',
    ]);
    expect(plan.summary).toMatchObject({ update: 0, blocked: 1 });
  });

  it('is no change when only the + is written or left out', () => {
    const plan = buildPlan(inputs('14155550100'));
    expect(plan.changes[0]?.action).not.toBe('blocked');
  });

  it('is explained as blocked, as the plan does', () => {
    expect(phoneNumber && explainField(phoneNumber, 'number')?.change).toEqual([
      'blocked: number names the number this document manages; one document manages one number, so give another number its own document',
    ]);
  });
});

describe('campaign costs', () => {
  it('bill a campaign registered again after it vanished nothing: only the vetting review of an update is billed', () => {
    const spec = { brand_id: 'B1', campaign_alias: 'alerts', usecase: 'MIXED' };
    const plan = buildPlan(
      planInputs({
        desired: [desired('Campaign', 'alerts', spec)],
        live: new Map([['Campaign', []]]),
        fetchedById: new Map([['Campaign/alerts', null]]),
        ledger: ledgerWith([{ kind: 'Campaign', name: 'alerts', id: 'C1', spec }]),
      }),
    );
    expect(campaignKind.live.billableUpdateUsd).toBe(15);
    expect(plan.changes[0]).toMatchObject({ action: 'create', drifted: true, flags: { billable_usd: 0 } });
    expect(plan.summary.cost_usd).toBe(0);
  });

  it('are explained as the plan bills them: an update 15 USD, a replace nothing', () => {
    if (!campaign) throw new Error('no Campaign kind');
    expect(explainField(campaign, 'usecase')?.change.join('\n')).not.toMatch(/billable|USD|--max-cost/);
    expect(explainField(campaign, 'description')?.change).toContain(
      'billable: each update costs 15 USD (apply needs --max-cost)',
    );
    expect(explainKind(campaign).facts).toContain(
      'billable: 15 USD per update (a vetting review); registering a campaign, new or replacing another, is not billed, but registering a deleted one again by telform revert is (another vetting review)',
    );
  });
});

describe('--prune-unmanaged of an object the API never deletes', () => {
  it('shows the blocked delete with its reason and never says it will be deleted', () => {
    const profileKind = testKind('Profile', {
      naturalKeyField: 'profile_alias',
      live: {
        deleteRefusal: (object) =>
          object.facts?.primary ? "it is the account's primary profile, which the API never deletes" : undefined,
      },
    });
    const plan = buildPlan(
      planInputs({
        kinds: kindsByName([profileKind]),
        live: new Map([
          [
            'Profile',
            [
              live('P-primary', { profile_alias: 'main' }, { facts: { primary: true } }),
              live('P-spare', { profile_alias: 'spare' }),
            ],
          ],
        ]),
        approvals: { ...noApprovals, prune_unmanaged: ['Profile'] },
      }),
    );
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['Profile/#P-primary', 'blocked'],
      ['Profile/#P-spare', 'delete'],
    ]);
    expect(plan.unmanaged).toEqual([
      { kind: 'Profile', id: 'P-primary', name: 'main', prune: false },
      { kind: 'Profile', id: 'P-spare', name: 'spare', prune: true },
    ]);
    const text = renderText(planForDisplay(plan, false, []), { color: false });
    expect(text).toContain("  #   it is the account's primary profile, which the API never deletes\n");
    expect(text).not.toContain('P-primary (main) will be deleted');
    expect(text).toContain('Profile P-spare (spare) will be deleted (--prune-unmanaged)');
  });
});
