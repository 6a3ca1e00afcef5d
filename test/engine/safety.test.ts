import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { checkSafety } from '../../src/engine/safety.js';
import { desired, ledgerWith, live, noApprovals, planInputs } from './builders.js';

describe('checkSafety', () => {
  const campaignSpec = { brand_id: 'B1', campaign_alias: 'alerts', usecase: 'MIXED' };
  const ledger = ledgerWith([{ kind: 'Campaign', name: 'alerts', id: 'C1', spec: campaignSpec }]);
  const liveModel = new Map([
    ['Campaign', [live('C1', campaignSpec, { registry: { registration_status: 'ACTIVE' } })]],
  ]);
  const keep = desired('TrunkIpAcl', 'office', { name: 'office' });

  it('needs an approval naming each irreversible change', () => {
    const plan = buildPlan(planInputs({ desired: [keep], live: liveModel, ledger }));
    const violations = checkSafety(plan, noApprovals, [keep], ledger);
    expect(violations.map((violation) => violation.message)).toContain(
      'Campaign/alerts would be deleted, which cannot be undone; approve it with --allow-irreversible Campaign/alerts',
    );
    const approved = { ...noApprovals, allow_irreversible: ['Campaign/alerts'], force_deletes: true };
    expect(checkSafety(plan, approved, [keep], ledger)).toEqual([]);
    expect(
      checkSafety(plan, { ...noApprovals, allow_irreversible: ['all'], force_deletes: true }, [keep], ledger),
    ).toEqual([]);
  });

  it('refuses deleting all of a kind, or more than 30% of ten or more, without --force-deletes', () => {
    const plan = buildPlan(planInputs({ desired: [keep], live: liveModel, ledger }));
    const approvals = { ...noApprovals, allow_irreversible: ['all'] };
    expect(checkSafety(plan, approvals, [keep], ledger).map((violation) => violation.code)).toEqual(['mass_delete']);

    const specs = Array.from({ length: 10 }, (_, index) => ({
      kind: 'TrunkIpAcl',
      name: `acl-${index}`,
      id: `a${index}`,
      spec: { name: `acl-${index}` },
    }));
    const tenLedger = ledgerWith(specs);
    const tenLive = new Map([['TrunkIpAcl', specs.map((spec) => live(spec.id, spec.spec))]]);
    const keepSeven = specs.slice(0, 7).map((spec) => desired('TrunkIpAcl', spec.name, spec.spec));
    const keepEight = specs.slice(0, 8).map((spec) => desired('TrunkIpAcl', spec.name, spec.spec));
    const threeGone = buildPlan(planInputs({ desired: keepSeven, live: tenLive, ledger: tenLedger }));
    const twoGone = buildPlan(planInputs({ desired: keepEight, live: tenLive, ledger: tenLedger }));
    expect(checkSafety(twoGone, noApprovals, keepEight, tenLedger)).toEqual([]);
    expect(checkSafety(threeGone, noApprovals, keepSeven, tenLedger)).toEqual([]);
    const keepSix = specs.slice(0, 6).map((spec) => desired('TrunkIpAcl', spec.name, spec.spec));
    const fourGone = buildPlan(planInputs({ desired: keepSix, live: tenLive, ledger: tenLedger }));
    expect(checkSafety(fourGone, noApprovals, keepSix, tenLedger)[0]?.message).toBe(
      'the plan deletes or replaces 4 of the 10 managed TrunkIpAcl resources (more than 30%); check the -f paths, then pass --force-deletes',
    );
  });

  it('refuses empty manifests, protected deletes and cost over the approved maximum', () => {
    const empty = buildPlan(planInputs({ desired: [] }));
    expect(checkSafety(empty, noApprovals, [], ledgerWith([])).map((violation) => violation.code)).toEqual(['empty']);

    const protectedCampaign = desired('Campaign', 'alerts', { ...campaignSpec, usecase: '2FA' }, { protect: true });
    const replace = buildPlan(planInputs({ desired: [protectedCampaign], live: liveModel, ledger }));
    expect(
      checkSafety(
        replace,
        { ...noApprovals, allow_irreversible: ['all'], force_deletes: true },
        [protectedCampaign],
        ledger,
      ),
    ).toEqual([
      {
        code: 'protected',
        address: 'Campaign/alerts',
        message:
          'Campaign/alerts has metadata.protect: true and would be replaced; set metadata.protect: false and apply that first',
      },
    ]);

    const failedLive = new Map([
      ['Campaign', [live('C1', campaignSpec, { registry: { registration_status: 'FAILED' } })]],
    ]);
    const update = buildPlan(
      planInputs({
        desired: [desired('Campaign', 'alerts', { ...campaignSpec, description: 'fixed' })],
        live: failedLive,
        ledger,
      }),
    );
    const costly = checkSafety(update, noApprovals, [keep], ledger);
    expect(costly.map((violation) => violation.message)).toEqual([
      'the plan costs 15 USD (campaign vetting reviews) and the approved maximum is 0 USD; approve it with --max-cost 15',
    ]);
    expect(checkSafety(update, { ...noApprovals, max_cost_usd: 15 }, [keep], ledger)).toEqual([]);
  });
});

describe('held values at the gate', () => {
  // A TrunkIpAcl the account holds with a name the create rules would refuse, and a bad description.
  const heldSpec = { name: 'office', description: 'x' };
  const ledger = ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'A1', spec: heldSpec }]);
  const liveModel = new Map([['TrunkIpAcl', [live('A1', heldSpec)]]]);
  const held = [{ field: 'description', message: 'is too short', source: { file: 'a.yaml', line: 7, column: 16 } }];

  it('lets a held value kept unchanged through, and refuses an update that changes it', () => {
    const kept = { ...desired('TrunkIpAcl', 'office', heldSpec), held };
    expect(
      checkSafety(buildPlan(planInputs({ desired: [kept], live: liveModel, ledger })), noApprovals, [kept], ledger),
    ).toEqual([]);

    const changed = { ...desired('TrunkIpAcl', 'office', { ...heldSpec, description: 'y' }), held };
    expect(
      checkSafety(
        buildPlan(planInputs({ desired: [changed], live: liveModel, ledger })),
        noApprovals,
        [changed],
        ledger,
      ),
    ).toEqual([
      {
        code: 'held_value',
        address: 'TrunkIpAcl/office',
        message:
          'a.yaml:7:16: TrunkIpAcl/office changes spec.description, which must meet the create rules: spec.description is too short',
      },
    ]);
  });

  it('refuses the create of a resource holding one', () => {
    const fresh = { ...desired('TrunkIpAcl', 'office', heldSpec), held };
    const violations = checkSafety(buildPlan(planInputs({ desired: [fresh] })), noApprovals, [fresh], ledgerWith([]));
    expect(violations.map((violation) => violation.code)).toEqual(['held_value']);
  });
});
