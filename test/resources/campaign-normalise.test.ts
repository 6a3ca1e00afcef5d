import { describe, expect, it } from 'vitest';
import { normaliseBrand } from '../../src/resources/brand.js';
import { normaliseCampaign, registerBody } from '../../src/resources/campaign-live.js';

/** The normalisation of records shaped the ways production returns them. */
describe('normaliseCampaign', () => {
  const record = {
    campaign_id: 'CABC123',
    campaign_alias: 'support',
    brand_id: 'BXYZ789',
    reseller_id: '',
    usecase: 'mixed',
    sub_usecase: '2FA, MARKETING ,',
    registration_status: 'Failed',
    vertical: 'technology',
    description: 'Support conversations with customers who contacted us first.',
    sample1: 'Your ticket 123 was answered; reply to continue.',
    sample2: 'Reply STOP to opt out, HELP for help. Msg rates apply.',
    sample3: '',
    sample4: null,
    message_flow: 'Customers text us first from the support page of the website.',
    help_message: 'Reply STOP to opt out. Call 555-0100 for help.',
    optout_message: 'You are unsubscribed and will get no more messages.',
    optin_keywords: 'START,YES',
    campaign_attributes: {
      affiliate_marketing: false,
      age_gated: 'false',
      direct_lending: false,
      embedded_link: true,
      embedded_phone: false,
      subscriber_help: true,
      subscriber_optin: 'true',
      subscriber_optout: true,
    },
    mno_metadata: { 'AT&T': { tpm: 4500 } },
    error_code: 'CAMPAIGN_VETTING_DECLINED',
    error_reason: 'The samples do not match the use case.',
    error_description: '',
    created_at: '2026-01-01T00:00:00Z',
    campaign_source: 'plivo',
  };

  it('gives the manifest shape: codes in capitals, sub_usecases as an array, attributes flat, "" and null absent', () => {
    expect(normaliseCampaign(record, { linked: 3, processing: 1 })).toEqual({
      id: 'CABC123',
      // When the registry made it: a lost register is settled by the campaigns made since.
      createdAt: '2026-01-01T00:00:00Z',
      spec: {
        campaign_alias: 'support',
        brand_id: 'BXYZ789',
        usecase: 'MIXED',
        sub_usecases: ['2FA', 'MARKETING'],
        vertical: 'TECHNOLOGY',
        description: record.description,
        sample1: record.sample1,
        sample2: record.sample2,
        message_flow: record.message_flow,
        help_message: record.help_message,
        optout_message: record.optout_message,
        optin_keywords: 'START,YES',
        affiliate_marketing: false,
        age_gated: false,
        direct_lending: false,
        embedded_link: true,
        embedded_phone: false,
        subscriber_help: true,
        subscriber_optin: true,
        subscriber_optout: true,
      },
      registry: {
        registration_status: 'FAILED',
        error_code: 'CAMPAIGN_VETTING_DECLINED',
        error_reason: record.error_reason,
      },
      facts: { numbers: 3, numbersProcessing: 1 },
      // Left out of the record (or null): unknown, not absent; "" (sample3) is a value.
      unread: [
        'help_keywords',
        'optin_message',
        'optout_keywords',
        'privacy_policy_link',
        'sample4',
        'sample5',
        'terms_and_conditions_link',
      ],
    });
  });

  it('drops sub_usecase for a use case that does not take it', () => {
    const spec = normaliseCampaign({ ...record, usecase: 'CUSTOMER_CARE' }, undefined).spec;
    expect(spec).not.toHaveProperty('sub_usecases');
    expect(spec.usecase).toBe('CUSTOMER_CARE');
  });

  it('gives an imported (shared) campaign the import shape, whatever else the record holds', () => {
    expect(normaliseCampaign({ ...record, campaign_source: 'shared' }, undefined).spec).toEqual({
      campaign_alias: 'support',
      import: { campaign_id: 'CABC123' },
    });
  });

  it('registers with only what the manifest gives, the callback method only with a url', () => {
    const body = registerBody({
      campaign_alias: 'a',
      brand_id: 'B1',
      usecase: 'MIXED',
      sub_usecases: ['2FA', 'MARKETING'],
      sample3: '',
      age_gated: false,
      method: 'POST',
    });
    expect(body).toEqual({
      campaign_alias: 'a',
      brand_id: 'B1',
      usecase: 'MIXED',
      sub_usecases: ['2FA', 'MARKETING'],
      age_gated: false,
    });
    expect(registerBody({ url: 'https://example.com/cb', method: 'GET' })).toEqual({
      url: 'https://example.com/cb',
      method: 'GET',
    });
  });
});

describe('normaliseBrand', () => {
  it('keeps the brand fields of the manifest and the registry outcome apart', () => {
    const live = normaliseBrand(
      {
        brand_id: 'BXYZ789',
        brand_alias: 'acme',
        brand_type: 'standard',
        profile_uuid: '5eed0000-0000-4000-8000-000000000001',
        registration_status: 'failed',
        declined_reasons: [{ code: 'TCR_IDENTITY_MISMATCH', message: 'EIN and name do not match.' }, null],
      },
      [],
    );
    expect(live).toEqual({
      id: 'BXYZ789',
      spec: { brand_alias: 'acme', brand_type: 'STANDARD', profile_uuid: '5eed0000-0000-4000-8000-000000000001' },
      registry: {
        registration_status: 'FAILED',
        declined_reasons: [{ code: 'TCR_IDENTITY_MISMATCH', message: 'EIN and name do not match.' }],
      },
      facts: { activeCampaigns: [] },
    });
  });
});
