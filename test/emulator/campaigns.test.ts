import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  campaignBody,
  errorWith,
  freshAccount,
  seeded,
  startTendlcEmulator,
  testRegistryDelayMs,
  uuidPattern,
  type TendlcClient,
} from './tendlc-client.js';

let emulator: RunningEmulator;
/** One account with a COMPLETED brand, shared by the register-rule tests. */
let client: TendlcClient;
let brandId: string;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
  client = await freshAccount(emulator);
  brandId = await client.completedBrand();
});
afterAll(async () => {
  await emulator.close();
});

const sample = (label: string): string => `${label}: this sample message is long enough.`;

describe('campaign register: accepted', () => {
  it('answers 200 with a 7-character C id and the processing message', async () => {
    const reply = await client.post('/10dlc/Campaign/', campaignBody(brandId));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      campaign_id: expect.stringMatching(/^C[A-Z0-9]{6}$/),
      message: 'Request to create campaign was received and is being processed.',
    });
  });

  it('returns the minimal campaign with attributes, mno_metadata and source, optional fields left out', async () => {
    const campaignId = await client.createCampaign(brandId);
    const reply = await client.get(`/10dlc/Campaign/${campaignId}/`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['api_id', 'campaign']);
    const body = campaignBody(brandId);
    expect(reply.body.campaign).toEqual({
      campaign_id: campaignId,
      campaign_alias: body.campaign_alias,
      brand_id: brandId,
      reseller_id: '',
      usecase: 'ACCOUNT_NOTIFICATION',
      registration_status: 'PROCESSING',
      vertical: 'HEALTHCARE',
      description: body.description,
      sample1: body.sample1,
      sample2: body.sample2,
      message_flow: body.message_flow,
      help_message: body.help_message,
      optout_message: body.optout_message,
      campaign_attributes: {
        subscriber_optin: true,
        subscriber_optout: true,
        subscriber_help: true,
        direct_lending: false,
        embedded_link: false,
        embedded_phone: false,
        age_gated: false,
        affiliate_marketing: false,
      },
      mno_metadata: {
        'AT&T': { tpm: 4500 },
        'T-Mobile': { brand_tier: 'TOP' },
        'US Cellular': { tpm: 4500 },
        'Verizon Wireless': { tpm: 4500 },
      },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      campaign_source: 'plivo',
    });
  });

  it('returns every optional field that was supplied, and true attributes as given', async () => {
    const optional = {
      sample3: sample('three'),
      sample4: sample('four'),
      sample5: sample('five'),
      optin_message: 'You are now subscribed to reminders.',
      optin_keywords: 'START,yes',
      optout_keywords: 'STOP,quit',
      help_keywords: 'HELP,INFO',
      terms_and_conditions_link: 'https://northwind-dental.example.com/terms',
      privacy_policy_link: 'https://northwind-dental.example.com/privacy',
    };
    const campaignId = await client.createCampaign(brandId, { ...optional, embedded_link: true, age_gated: true });
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign).toMatchObject(optional);
    expect(campaign.campaign_attributes).toMatchObject({ embedded_link: true, age_gated: true, direct_lending: false });
  });

  it('reads the Node SDK spelling sample_3..sample_5 as sample3..sample5', async () => {
    const campaignId = await client.createCampaign(brandId, {
      sample_3: sample('three'),
      sample_4: sample('four'),
      sample_5: sample('five'),
    });
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign).toMatchObject({ sample3: sample('three'), sample4: sample('four'), sample5: sample('five') });
    expect(campaign).not.toHaveProperty('sample_3');
  });

  it.each(['MIXED', 'LOW_VOLUME'])('returns sub_usecase as a comma list for %s', async (usecase) => {
    const campaignId = await client.createCampaign(brandId, {
      usecase,
      sub_usecases: ['2FA', 'MARKETING', 'CUSTOMER_CARE'],
    });
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign.sub_usecase).toBe('2FA,MARKETING,CUSTOMER_CARE');
    expect(campaign).not.toHaveProperty('sub_usecases');
  });

  it('accepts 2 and 5 sub use cases', async () => {
    await client.createCampaign(brandId, { usecase: 'MIXED', sub_usecases: ['2FA', 'FRAUD_ALERT'] });
    await client.createCampaign(brandId, {
      usecase: 'LOW_VOLUME',
      sub_usecases: ['2FA', 'FRAUD_ALERT', 'MARKETING', 'POLLING_VOTING', 'SECURITY_ALERT'],
    });
  });

  it('treats "" and [] as not provided (the Python SDK sends them for fields not given)', async () => {
    const campaignId = await client.createCampaign(brandId, {
      sample3: '',
      optin_message: '',
      sub_usecases: [],
      url: '',
    });
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign).not.toHaveProperty('sample3');
    expect(campaign).not.toHaveProperty('optin_message');
    expect(campaign).not.toHaveProperty('sub_usecase');
  });

  it('accepts every use case and every vertical', async () => {
    const usecases = (await client.get(`/10dlc/Brand/${brandId}/usecases/`)).body.use_cases.map(
      (item: { code: string }) => item.code,
    );
    for (const usecase of usecases) {
      const extra = usecase === 'MIXED' || usecase === 'LOW_VOLUME' ? { sub_usecases: ['2FA', 'MARKETING'] } : {};
      const reply = await client.post('/10dlc/Campaign/', campaignBody(brandId, { usecase, ...extra }));
      expect(reply.status, usecase).toBe(200);
    }
    const reply = await client.post('/10dlc/Campaign/', campaignBody(brandId, { vertical: 'COMMUNICATION' }));
    expect(reply.status).toBe(200);
  });
});

describe('campaign register: refused', () => {
  const short = (length: number): string => 'x'.repeat(length);
  const refusals: [string, Record<string, unknown>, string][] = [
    ['campaign_alias missing', { campaign_alias: '' }, 'campaign_alias is required'],
    ['brand_id missing', { brand_id: undefined }, 'brand_id is required'],
    ['vertical missing', { vertical: undefined }, 'vertical is required'],
    [
      'vertical unknown',
      { vertical: 'SPACE' },
      expect.stringMatching(/^vertical must be one of PROFESSIONAL, REAL_ESTATE, /) as never,
    ],
    ['description missing', { description: undefined }, 'description is required'],
    ['description of 39 characters', { description: short(39) }, 'description must be at least 40 characters'],
    ['usecase missing', { usecase: '' }, 'usecase is required'],
    [
      'usecase STARTER',
      { usecase: 'STARTER' },
      expect.stringMatching(/^usecase must be one of 2FA, ACCOUNT_NOTIFICATION, /) as never,
    ],
    ['sample1 missing', { sample1: undefined }, 'sample1 is required'],
    ['sample1 of 19 characters', { sample1: short(19) }, 'sample1 must be at least 20 characters'],
    ['sample2 missing', { sample2: '' }, 'sample2 is required'],
    ['sample2 of 19 characters', { sample2: short(19) }, 'sample2 must be at least 20 characters'],
    ['sample3 of 19 characters', { sample3: short(19) }, 'sample3 must be at least 20 characters'],
    ['sample_4 of 19 characters', { sample_4: short(19) }, 'sample4 must be at least 20 characters'],
    ['sample5 of 19 characters', { sample5: short(19) }, 'sample5 must be at least 20 characters'],
    ['subscriber_optin missing', { subscriber_optin: undefined }, 'subscriber_optin is required'],
    ['subscriber_optin false', { subscriber_optin: false }, 'subscriber_optin must be true'],
    ['subscriber_optout false', { subscriber_optout: false }, 'subscriber_optout must be true'],
    ['subscriber_help false', { subscriber_help: false }, 'subscriber_help must be true'],
    ['subscriber_help not a boolean', { subscriber_help: 'true' }, 'subscriber_help must be true or false'],
    ['direct_lending missing', { direct_lending: undefined }, 'direct_lending is required'],
    ['embedded_link missing', { embedded_link: null }, 'embedded_link is required'],
    ['embedded_phone missing', { embedded_phone: undefined }, 'embedded_phone is required'],
    ['age_gated missing', { age_gated: undefined }, 'age_gated is required'],
    ['affiliate_marketing missing', { affiliate_marketing: undefined }, 'affiliate_marketing is required'],
    ['affiliate_marketing not a boolean', { affiliate_marketing: 0 }, 'affiliate_marketing must be true or false'],
    ['sub_usecases missing for MIXED', { usecase: 'MIXED' }, 'sub_usecases is required when usecase is MIXED'],
    [
      'sub_usecases missing for LOW_VOLUME',
      { usecase: 'LOW_VOLUME', sub_usecases: [] },
      'sub_usecases is required when usecase is LOW_VOLUME',
    ],
    ['one sub use case', { usecase: 'MIXED', sub_usecases: ['2FA'] }, 'sub_usecases must hold 2 to 5 use cases'],
    [
      'six sub use cases',
      {
        usecase: 'MIXED',
        sub_usecases: ['2FA', 'MARKETING', 'FRAUD_ALERT', 'SECURITY_ALERT', 'POLLING_VOTING', 'CUSTOMER_CARE'],
      },
      'sub_usecases must hold 2 to 5 use cases',
    ],
    [
      'MIXED as a sub use case',
      { usecase: 'MIXED', sub_usecases: ['2FA', 'MIXED'] },
      expect.stringMatching(/^sub_usecases must be chosen from 2FA, ACCOUNT_NOTIFICATION, /) as never,
    ],
    [
      'a repeated sub use case',
      { usecase: 'MIXED', sub_usecases: ['2FA', '2FA'] },
      'sub_usecases must not repeat a use case',
    ],
    [
      'sub_usecases not an array',
      { usecase: 'MIXED', sub_usecases: '2FA,MARKETING' },
      'sub_usecases must be an array of use-case codes',
    ],
    [
      'sub_usecases for another use case',
      { sub_usecases: ['2FA', 'MARKETING'] },
      'sub_usecases is allowed only when usecase is MIXED or LOW_VOLUME',
    ],
    ['message_flow missing', { message_flow: undefined }, 'message_flow is required'],
    ['message_flow of 39 characters', { message_flow: short(39) }, 'message_flow must be at least 40 characters'],
    ['help_message missing', { help_message: '' }, 'help_message is required'],
    ['help_message of 19 characters', { help_message: short(19) }, 'help_message must be at least 20 characters'],
    ['optout_message missing', { optout_message: undefined }, 'optout_message is required'],
    ['optout_message of 19 characters', { optout_message: short(19) }, 'optout_message must be at least 20 characters'],
    ['optin_message of 19 characters', { optin_message: short(19) }, 'optin_message must be at least 20 characters'],
    [
      'optin_keywords with a space',
      { optin_keywords: 'START, YES' },
      'optin_keywords must be comma-separated words without spaces or special characters',
    ],
    [
      'optout_keywords with a special character',
      { optout_keywords: 'STOP!' },
      'optout_keywords must be comma-separated words without spaces or special characters',
    ],
    [
      'help_keywords in lower case',
      { help_keywords: 'help' },
      'help_keywords must be comma-separated words in capitals, without spaces or special characters',
    ],
    [
      'terms_and_conditions_link not a URL',
      { terms_and_conditions_link: 'example.com/terms' },
      'terms_and_conditions_link must be a fully qualified http or https URL',
    ],
    [
      'privacy_policy_link not http',
      { privacy_policy_link: 'mailto:a@example.com' },
      'privacy_policy_link must be a fully qualified http or https URL',
    ],
    ['url not fully qualified', { url: 'callback' }, 'url must be a fully qualified http or https URL'],
    ['method DELETE', { url: 'http://127.0.0.1/cb', method: 'DELETE' }, 'method must be GET or POST'],
    ['description not a string', { description: 42 }, 'description must be a string'],
    ['an unknown brand', { brand_id: 'BNOSUCH' }, 'brand_id BNOSUCH does not name a brand of this account'],
  ];

  it.each(refusals)('refuses %s with 400 naming the field', async (_name, overrides, message) => {
    const before = (await client.get('/10dlc/Campaign/')).body.meta.total_count;
    const reply = await client.post('/10dlc/Campaign/', campaignBody(brandId, overrides));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
    expect((await client.get('/10dlc/Campaign/')).body.meta.total_count).toBe(before);
  });

  it('refuses a brand that is still PROCESSING or has FAILED', async () => {
    const account = await freshAccount(emulator);
    const processing = await account.createBrand(seeded.withEin[0], 'still-processing');
    const refusedProcessing = await account.post('/10dlc/Campaign/', campaignBody(processing));
    expect(refusedProcessing.status).toBe(400);
    expect(refusedProcessing.body).toEqual(
      errorWith(`brand_id ${processing} is PROCESSING; campaigns can be registered only under a COMPLETED brand`),
    );
    const failed = await account.createBrand(seeded.withEin[1], 'declined');
    await account.advance(testRegistryDelayMs);
    const refusedFailed = await account.post('/10dlc/Campaign/', campaignBody(failed));
    expect(refusedFailed.body).toEqual(
      errorWith(`brand_id ${failed} is FAILED; campaigns can be registered only under a COMPLETED brand`),
    );
    expect((await account.post('/10dlc/Campaign/', campaignBody(processing))).status).toBe(200);
  });

  it('refuses a brand of another account', async () => {
    const other = await freshAccount(emulator);
    const reply = await other.post('/10dlc/Campaign/', campaignBody(brandId));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(`brand_id ${brandId} does not name a brand of this account`));
  });
});

describe('campaign registration', () => {
  it('goes from PROCESSING to ACTIVE after the registry delay', async () => {
    const campaignId = await client.createCampaign(brandId, { campaign_alias: 'plain' });
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('PROCESSING');
    await client.advance(testRegistryDelayMs);
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign.registration_status).toBe('ACTIVE');
    expect(campaign).not.toHaveProperty('error_code');
  });

  it.each([
    ['campaign_alias', { campaign_alias: 'Declined-on-purpose' }],
    ['description', { description: 'Reminders that the registry will DECLINE for this test, on purpose.' }],
  ])('ends FAILED with error_code and error_reason when the %s contains "decline"', async (_field, overrides) => {
    const campaignId = await client.createCampaign(brandId, overrides);
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign).not.toHaveProperty('error_code');
    await client.advance(testRegistryDelayMs);
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign).toMatchObject({
      registration_status: 'FAILED',
      error_code: 'CAMPAIGN_VETTING_DECLINED',
      error_reason:
        'The carriers declined the campaign in vetting (emulator rule: the campaign_alias or description contains "decline").',
    });
  });

  it('goes ACTIVE, then EXPIRED one more delay later, when the alias contains "expire"', async () => {
    const campaignId = await client.createCampaign(brandId, { campaign_alias: 'will-expire' });
    await client.advance(testRegistryDelayMs);
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('ACTIVE');
    await client.advance(testRegistryDelayMs);
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('EXPIRED');
  });
});

describe('campaign list', () => {
  let account: TendlcClient;
  let brandA: string;
  let brandB: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    account = await freshAccount(emulator);
    brandA = await account.createBrand(seeded.withEin[0], 'a');
    brandB = await account.createBrand(seeded.withEin[1], 'b');
    await account.advance(testRegistryDelayMs);
    ids.active = await account.createCampaign(brandA, { usecase: '2FA' });
    ids.failed = await account.createCampaign(brandA, { campaign_alias: 'decline' });
    ids.expired = await account.createCampaign(brandB, { campaign_alias: 'expire', usecase: 'MARKETING' });
    await account.advance(2 * testRegistryDelayMs);
    ids.processing = await account.createCampaign(brandB, { usecase: 'MIXED', sub_usecases: ['2FA', 'MARKETING'] });
    const imported = await account.post('/10dlc/Campaign/Import/', {
      campaign_id: 'CSHARE1',
      campaign_alias: 'shared-one',
    });
    expect(imported.status).toBe(200);
    ids.shared = 'CSHARE1';
  });

  const idsOf = (body: { campaigns: { campaign_id: string }[] }): string[] =>
    body.campaigns.map((item) => item.campaign_id);

  it('lists every campaign under `campaigns` in creation order, with meta', async () => {
    const reply = await account.get('/10dlc/Campaign/');
    expect(reply.status).toBe(200);
    expect(idsOf(reply.body)).toEqual([ids.active, ids.failed, ids.expired, ids.processing, ids.shared]);
    expect(reply.body.meta).toEqual({ limit: 20, offset: 0, total_count: 5, previous: null, next: null });
  });

  it('pages with links that keep the filters and start with a slash', async () => {
    const reply = await account.get(`/10dlc/Campaign/?brand_id=${brandA}&limit=1`);
    expect(idsOf(reply.body)).toEqual([ids.active]);
    expect(reply.body.meta.next).toBe(`${account.base}/10dlc/Campaign/?brand_id=${brandA}&limit=1&offset=1`);
  });

  it.each([
    ['registration_status=Active', ['active']],
    ['registration_status=Failed', ['failed']],
    ['registration_status=Processing', ['processing', 'shared']],
    ['registration_status=Expired', ['expired']],
    ['registration_status=EXPIRED', ['expired']],
    ['usecase=2FA', ['active']],
    ['usecase=MIXED', ['processing']],
    ['usecase=CUSTOMER_CARE', ['shared']],
    ['campaign_source=plivo', ['active', 'failed', 'expired', 'processing']],
    ['campaign_source=shared', ['shared']],
  ])('filters by %s', async (filter, keys) => {
    const reply = await account.get(`/10dlc/Campaign/?${filter}`);
    expect(reply.status).toBe(200);
    expect(idsOf(reply.body)).toEqual(keys.map((key) => ids[key]));
    expect(reply.body.meta.total_count).toBe(keys.length);
  });

  it('filters by brand_id, and combines filters', async () => {
    expect(idsOf((await account.get(`/10dlc/Campaign/?brand_id=${brandA}`)).body)).toEqual([ids.active, ids.failed]);
    expect(
      idsOf((await account.get(`/10dlc/Campaign/?brand_id=${brandB}&registration_status=Processing`)).body),
    ).toEqual([ids.processing]);
    expect(idsOf((await account.get('/10dlc/Campaign/?brand_id=BNOSUCH')).body)).toEqual([]);
  });

  it.each([
    ['registration_status=Completed', 'registration_status must be one of ACTIVE, FAILED, PROCESSING, EXPIRED'],
    ['campaign_source=console', 'campaign_source must be one of plivo, shared'],
    ['usecase=STARTER', expect.stringMatching(/^usecase must be one of 2FA, /) as never],
    ['offset=-1', 'offset must be a non-negative integer'],
  ])('refuses %s with 400', async (filter, message) => {
    const reply = await account.get(`/10dlc/Campaign/?${filter}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
  });
});
