import { describe, expect, it } from 'vitest';
import { plannerKinds } from '../../src/engine/kinds.js';
import { buildPlan } from '../../src/engine/planner.js';
import { catalog } from '../../src/resources/index.js';
import { desired, ledgerWith, live, planInputs } from './builders.js';

/** What a change's references point at decides it too: waits for the registry, misfit targets, detaches. */
const kinds = plannerKinds(catalog);
const campaignSpec = { campaign_alias: 'orders', brand_id: 'BAAAAA1' };
const campaign = (status: string) => live('CAAAAA1', campaignSpec, { registry: { registration_status: status } });
const managedCampaign = desired('Campaign', 'orders', campaignSpec);
const number = (spec: Record<string, unknown>) => desired('PhoneNumber', 'line', { number: '+15125550101', ...spec });
const liveNumber = (spec: Record<string, unknown> = {}, facts: Record<string, unknown> = {}) =>
  live('15125550101', { number: '15125550101', ...spec }, { facts });

function planFor(options: { desired: ReturnType<typeof desired>[]; live: Record<string, ReturnType<typeof live>[]> }) {
  return buildPlan(
    planInputs({
      kinds,
      desired: options.desired,
      live: new Map(Object.entries(options.live)),
      ledger: ledgerWith([]),
    }),
  );
}

function change(plan: ReturnType<typeof buildPlan>, address: string) {
  const found = plan.changes.find((item) => item.address === address);
  if (!found) throw new Error(`no change for ${address}`);
  return found;
}

describe('a number and its campaign', () => {
  it('waits while the campaign is not ACTIVE, links once it is, and is blocked when it failed', () => {
    const linking = [number({ campaign_id: { ref: 'orders' } })];
    const waiting = planFor({
      desired: [...linking, managedCampaign],
      live: { Campaign: [campaign('PROCESSING')], PhoneNumber: [liveNumber()] },
    });
    expect(change(waiting, 'PhoneNumber/line')).toMatchObject({ action: 'wait', depends_on: [] });
    expect(change(waiting, 'PhoneNumber/line').reasons).toContain(
      'waits for Campaign/orders to be approved by the registry (now PROCESSING)',
    );

    const active = planFor({
      desired: [...linking, managedCampaign],
      live: { Campaign: [campaign('ACTIVE')], PhoneNumber: [liveNumber()] },
    });
    expect(change(active, 'PhoneNumber/line')).toMatchObject({
      action: 'update',
      patch: [{ op: 'add', path: '/campaign_id', value: { ref: 'orders' } }],
    });

    const failed = planFor({
      desired: [...linking, managedCampaign],
      live: { Campaign: [campaign('FAILED')], PhoneNumber: [liveNumber()] },
    });
    expect(change(failed, 'PhoneNumber/line').action).toBe('blocked');
  });

  it('waits for a campaign created in the same apply, depending on it', () => {
    const plan = planFor({
      desired: [number({ campaign_id: { ref: 'orders' } }), managedCampaign],
      live: { PhoneNumber: [liveNumber()] },
    });
    expect(change(plan, 'PhoneNumber/line')).toMatchObject({ action: 'wait', depends_on: ['Campaign/orders'] });
  });

  it('does not wait when only the attachment changes', () => {
    const plan = planFor({
      desired: [number({ campaign_id: { ref: 'orders' }, app_id: '77700000000000001' }), managedCampaign],
      live: { Campaign: [campaign('PROCESSING')], PhoneNumber: [liveNumber({ campaign_id: 'CAAAAA1' })] },
    });
    expect(change(plan, 'PhoneNumber/line').action).toBe('update');
  });
});

describe('a number and its trunk', () => {
  const outbound = live('T-OUT', {
    name: 'out',
    trunk_direction: 'outbound',
    trunk_status: 'enabled',
    secure: false,
    ipacl_uuid: 'acl',
  });

  it('is blocked when its literal app_id is a trunk that is outbound in the account', () => {
    const plan = planFor({
      desired: [number({ app_id: 'T-OUT' })],
      live: { Trunk: [outbound], PhoneNumber: [liveNumber()] },
    });
    expect(change(plan, 'PhoneNumber/line').action).toBe('blocked');
    expect(change(plan, 'PhoneNumber/line').reasons).toContain(
      'app_id: Trunk T-OUT, as the account has it, is an outbound trunk; only inbound trunks can be attached to phone numbers',
    );
  });

  it('flags a detach and a removed document as breaking calls', () => {
    const attached = liveNumber({ app_id: 'T-IN' }, { attachment: 'trunk' });
    const detach = planFor({ desired: [number({})], live: { PhoneNumber: [attached] } });
    expect(change(detach, 'PhoneNumber/line')).toMatchObject({ action: 'update', flags: { breaks_calls: true } });
    const keep = planFor({ desired: [number({ app_id: 'T-IN' })], live: { PhoneNumber: [attached] } });
    expect(change(keep, 'PhoneNumber/line')).toMatchObject({ action: 'adopt', flags: { breaks_calls: false } });
  });

  it('is an error naming a number the account does not own', () => {
    expect(() => planFor({ desired: [number({})], live: { PhoneNumber: [] } })).toThrow(
      'PhoneNumber/line: the account does not own the number +15125550101; telform never buys or releases numbers',
    );
  });

  it('blocks turning an inbound trunk with numbers outbound', () => {
    const trunk = desired('Trunk', 'pbx', {
      name: 'pbx',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: false,
      ipacl_uuid: 'acl',
    });
    const inbound = live(
      'T-IN',
      { name: 'pbx', trunk_direction: 'inbound', trunk_status: 'enabled', secure: false, primary_uri_uuid: 'uri' },
      { facts: { numbers: 2 } },
    );
    const plan = planFor({ desired: [trunk], live: { Trunk: [inbound] } });
    expect(change(plan, 'Trunk/pbx').action).toBe('blocked');
    expect(change(plan, 'Trunk/pbx').reasons.at(-1)).toBe(
      '2 phone number(s) are attached to it and only inbound trunks can carry numbers; detach or re-point them before turning it outbound',
    );
  });
});
