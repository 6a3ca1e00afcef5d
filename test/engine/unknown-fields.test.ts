import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { plannerKinds } from '../../src/engine/kinds.js';
import { catalog } from '../../src/resources/index.js';
import { normaliseCampaign } from '../../src/resources/campaign-live.js';
import { normaliseApplicationSipAuth } from '../../src/resources/application-sip-auth.js';
import { desired, ledgerWith, planInputs } from './builders.js';

// Unknown is not absent: a campaign read back without the fields production leaves out of its reads
// (message flow, replies, one attribute, the vertical) is neither drift nor a replace.

const kinds = plannerKinds(catalog);

const registered = {
  campaign_alias: 'alerts',
  brand_id: 'BRAND01',
  vertical: 'TECHNOLOGY',
  description: 'Account alerts sent to customers who signed up on the website.',
  usecase: 'ACCOUNT_NOTIFICATION',
  sample1: 'Your password was changed. Reply HELP for help.',
  sample2: 'Your invoice is ready. Reply STOP to opt out.',
  subscriber_optin: true,
  subscriber_optout: true,
  subscriber_help: true,
  direct_lending: false,
  embedded_link: false,
  embedded_phone: false,
  age_gated: false,
  affiliate_marketing: false,
  message_flow: 'Customers opt in on the sign-up page of the website, with a checkbox.',
  help_message: 'Reply STOP to opt out. Write to help@example.com for help.',
  optout_message: 'You are unsubscribed and will get no more messages.',
  method: 'POST',
};

/** How production reads it back: seven attributes, no flow, no replies, no vertical. */
const readBack = {
  campaign_id: 'CAMP001',
  campaign_alias: 'alerts',
  brand_id: 'BRAND01',
  usecase: 'ACCOUNT_NOTIFICATION',
  description: registered.description,
  sample1: registered.sample1,
  sample2: registered.sample2,
  registration_status: 'ACTIVE',
  campaign_attributes: {
    subscriber_optin: true,
    subscriber_optout: true,
    subscriber_help: true,
    direct_lending: false,
    embedded_link: false,
    embedded_phone: false,
    age_gated: false,
  },
  error_code: '',
  error_reason: '',
};

const brand = {
  profile_uuid: '11111111-1111-4111-8111-111111111111',
  brand_alias: 'acme',
  brand_type: 'STANDARD',
  method: 'POST',
};
const brandLive = {
  id: 'BRAND01',
  spec: { profile_uuid: brand.profile_uuid, brand_alias: 'acme', brand_type: 'STANDARD' },
  registry: { registration_status: 'COMPLETED' },
};

function planOf(options: { ledger: boolean; spec?: Record<string, unknown> }) {
  const campaign = desired('Campaign', 'alerts', { ...(options.spec ?? registered), brand_id: { ref: 'acme' } });
  return buildPlan(
    planInputs({
      kinds,
      desired: [desired('Brand', 'acme', brand), campaign],
      live: new Map([
        ['Brand', [brandLive]],
        ['Campaign', [normaliseCampaign(readBack, undefined)]],
      ]),
      ledger: options.ledger
        ? ledgerWith([
            { kind: 'Brand', name: 'acme', id: 'BRAND01', spec: brand },
            { kind: 'Campaign', name: 'alerts', id: 'CAMP001', spec: { ...registered, brand_id: { ref: 'acme' } } },
          ])
        : ledgerWith([]),
    }),
  );
}

describe('fields a read does not return', () => {
  it('are listed as unread by the campaign read', () => {
    expect(normaliseCampaign(readBack, undefined).unread).toEqual([
      'affiliate_marketing',
      'help_keywords',
      'help_message',
      'message_flow',
      'optin_keywords',
      'optin_message',
      'optout_keywords',
      'optout_message',
      'privacy_policy_link',
      'sample3',
      'sample4',
      'sample5',
      'terms_and_conditions_link',
      'vertical',
    ]);
  });

  it('plan no change and no drift for a campaign telform registered, and the plan says which fields were not read', () => {
    const plan = planOf({ ledger: true });
    const change = plan.changes.find((item) => item.address === 'Campaign/alerts');
    expect(change?.action).toBe('noop');
    expect(change?.drifted).toBeUndefined();
    expect(change?.reasons).toEqual([
      'the API did not read back affiliate_marketing, help_message, message_flow, optout_message, vertical: unknown, so compared with the values telform last applied',
    ]);
    // A converged plan prints no warning: the note is beside the change, in its reasons.
    expect(plan.warnings).toEqual([]);
  });

  it('adopt a campaign without a ledger entry, taking the unknown fields as the manifest says', () => {
    expect(planOf({ ledger: false }).changes.find((item) => item.address === 'Campaign/alerts')?.action).toBe('adopt');
  });

  it('still show a change the manifest makes to an unknown field since the last apply', () => {
    const plan = planOf({
      ledger: true,
      spec: { ...registered, help_message: 'Reply STOP to opt out. Call 555-0100 for help now.' },
    });
    const change = plan.changes.find((item) => item.address === 'Campaign/alerts');
    expect(change?.action).toBe('blocked'); // an ACTIVE campaign cannot be updated, but the change is seen
    expect(change?.patch).toEqual([
      { op: 'replace', path: '/help_message', value: 'Reply STOP to opt out. Call 555-0100 for help now.' },
    ]);
    expect(change?.drifted).toBeUndefined();
  });

  it('are, in the delete of a campaign telform registered, as it last applied them: the spec revert registers it again from', () => {
    const plan = buildPlan(
      planInputs({
        kinds,
        desired: [desired('Brand', 'acme', brand)],
        live: new Map([
          ['Brand', [brandLive]],
          ['Campaign', [normaliseCampaign(readBack, undefined)]],
        ]),
        ledger: ledgerWith([
          { kind: 'Brand', name: 'acme', id: 'BRAND01', spec: brand },
          { kind: 'Campaign', name: 'alerts', id: 'CAMP001', spec: { ...registered, brand_id: { ref: 'acme' } } },
        ]),
      }),
    );
    const change = plan.changes.find((item) => item.address === 'Campaign/alerts');
    expect(change?.action).toBe('delete');
    expect(change?.action === 'delete' && change.before).toEqual({ ...registered, brand_id: { ref: 'acme' } });
  });

  it('make an application read without its SIP fields unknown, not unassigned', () => {
    expect(normaliseApplicationSipAuth({ app_id: '777', app_name: 'ivr' })).toEqual({
      id: '777',
      spec: { app_id: '777' },
      unread: ['sip_auth_type', 'ip_acl_uuid', 'credential_uuid'],
    });
    expect(normaliseApplicationSipAuth({ app_id: '777', sip_auth_type: '', ip_acl_uuid: null })).toBeUndefined();
  });
});
