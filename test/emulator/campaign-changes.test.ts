import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  errorWith,
  freshAccount,
  startTendlcEmulator,
  testRegistryDelayMs,
  uuidPattern,
  type TendlcClient,
} from './tendlc-client.js';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/** A fresh account with a COMPLETED brand and one campaign that the registry has declined. */
async function failedCampaign(): Promise<{ client: TendlcClient; brandId: string; campaignId: string }> {
  const client = await freshAccount(emulator);
  const brandId = await client.completedBrand();
  const campaignId = await client.createCampaign(brandId, { campaign_alias: 'declined-reminders' });
  await client.advance(testRegistryDelayMs);
  expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('FAILED');
  return { client, brandId, campaignId };
}

const updatable =
  'campaign_alias, description, sample1, sample2, sample3, sample4, sample5, message_flow, help_message, optout_message, ' +
  'optout_keywords, optin_message, optin_keywords, help_keywords, terms_and_conditions_link, privacy_policy_link';

describe('campaign update', () => {
  it('of a FAILED campaign is billed 15 USD, goes back to PROCESSING and is decided again from the new input', async () => {
    const { client, brandId, campaignId } = await failedCampaign();
    const reply = await client.post(`/10dlc/Campaign/${campaignId}/`, {
      campaign_alias: 'fixed-reminders',
      sample_3: 'A third sample message, long enough.',
      privacy_policy_link: 'https://northwind-dental.example.com/privacy',
      description: '',
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['api_id', 'campaign']);
    expect(reply.body.campaign).toMatchObject({
      campaign_id: campaignId,
      campaign_alias: 'fixed-reminders',
      sample3: 'A third sample message, long enough.',
      privacy_policy_link: 'https://northwind-dental.example.com/privacy',
      registration_status: 'PROCESSING',
    });
    expect(reply.body.campaign).not.toHaveProperty('error_code');
    expect(reply.body.campaign).not.toHaveProperty('error_reason');
    // "" left the description as it was (production's documentation).
    expect(reply.body.campaign.description).toBe(
      'Appointment reminders and confirmations sent to patients of the practice.',
    );

    const billing = await client.billing();
    expect(billing.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      total_usd: 15,
      items: [
        {
          at: expect.any(String),
          item: 'campaign_vetting_review',
          amount_usd: 15,
          campaign_id: campaignId,
          brand_id: brandId,
        },
      ],
    });

    await client.advance(testRegistryDelayMs);
    const after = await client.get(`/10dlc/Campaign/${campaignId}/`);
    expect(after.body.campaign.registration_status).toBe('ACTIVE');
  });

  it('that keeps the declining input fails again, and each review is billed', async () => {
    const { client, campaignId } = await failedCampaign();
    expect(
      (await client.post(`/10dlc/Campaign/${campaignId}/`, { sample1: 'A new first sample message here.' })).status,
    ).toBe(200);
    await client.advance(testRegistryDelayMs);
    const { campaign } = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body;
    expect(campaign).toMatchObject({ registration_status: 'FAILED', error_code: 'CAMPAIGN_VETTING_DECLINED' });
    expect((await client.post(`/10dlc/Campaign/${campaignId}/`, { campaign_alias: 'ok-now' })).status).toBe(200);
    const billing = (await client.billing()).body;
    expect(billing.total_usd).toBe(30);
    expect(billing.items).toHaveLength(2);
  });

  it('is refused while PROCESSING, ACTIVE or EXPIRED, without a charge', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const active = await client.createCampaign(brandId);
    const expiring = await client.createCampaign(brandId, { campaign_alias: 'expire-soon' });
    const refusedProcessing = await client.post(`/10dlc/Campaign/${active}/`, { campaign_alias: 'renamed' });
    expect(refusedProcessing.status).toBe(400);
    expect(refusedProcessing.body).toEqual(
      errorWith(
        `campaign ${active} cannot be updated while its registration_status is PROCESSING; only a FAILED campaign can be updated`,
      ),
    );
    await client.advance(testRegistryDelayMs);
    const refusedActive = await client.post(`/10dlc/Campaign/${active}/`, { campaign_alias: 'renamed' });
    expect(refusedActive.body).toEqual(
      errorWith(
        `campaign ${active} cannot be updated while its registration_status is ACTIVE; only a FAILED campaign can be updated`,
      ),
    );
    await client.advance(testRegistryDelayMs);
    const refusedExpired = await client.post(`/10dlc/Campaign/${expiring}/`, { campaign_alias: 'renamed' });
    expect(refusedExpired.body).toEqual(
      errorWith(
        `campaign ${expiring} cannot be updated while its registration_status is EXPIRED; only a FAILED campaign can be updated`,
      ),
    );
    expect((await client.get(`/10dlc/Campaign/${active}/`)).body.campaign.campaign_alias).toBe('appointment-reminders');
    expect((await client.billing()).body).toMatchObject({ total_usd: 0, items: [] });
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ['no field at all', {}, `no updatable field given; a campaign update changes one or more of ${updatable}`],
    [
      'only empty fields',
      { description: '', sample1: '' },
      `no updatable field given; a campaign update changes one or more of ${updatable}`,
    ],
    ['usecase', { usecase: 'MARKETING' }, `usecase cannot be updated; a campaign update may change only ${updatable}`],
    [
      'vertical',
      { vertical: 'RETAIL', campaign_alias: 'x' },
      `vertical cannot be updated; a campaign update may change only ${updatable}`,
    ],
    ['brand_id', { brand_id: 'BOTHER1' }, `brand_id cannot be updated; a campaign update may change only ${updatable}`],
    [
      'an attribute',
      { embedded_link: true },
      `embedded_link cannot be updated; a campaign update may change only ${updatable}`,
    ],
    [
      'sub_usecases',
      { sub_usecases: ['2FA', 'MARKETING'] },
      `sub_usecases cannot be updated; a campaign update may change only ${updatable}`,
    ],
    ['a short description', { description: 'too short' }, 'description must be at least 40 characters'],
    ['a short sample_5', { sample_5: 'short' }, 'sample5 must be at least 20 characters'],
    [
      'lower-case help keywords',
      { help_keywords: 'help' },
      'help_keywords must be comma-separated words in capitals, without spaces or special characters',
    ],
    [
      'a bad link',
      { terms_and_conditions_link: 'terms' },
      'terms_and_conditions_link must be a fully qualified http or https URL',
    ],
  ];
  it.each(refusals)('of a FAILED campaign refuses %s with 400, without a charge', async (_name, body, message) => {
    const { client, campaignId } = await failedCampaign();
    const reply = await client.post(`/10dlc/Campaign/${campaignId}/`, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('FAILED');
    expect((await client.billing()).body.items).toEqual([]);
  });

  it('answers 404 for an unknown campaign', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Campaign/CNOSUCH/', { campaign_alias: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(errorWith('campaign CNOSUCH not found'));
  });
});

describe('campaign delete', () => {
  it('deactivates the campaign: 200 with the message, then 404', async () => {
    const client = await freshAccount(emulator);
    const campaignId = await client.createCampaign(await client.completedBrand());
    const reply = await client.delete(`/10dlc/Campaign/${campaignId}/`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      campaign_id: campaignId,
      message: 'Campaign Deactivated',
    });
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).status).toBe(404);
    expect((await client.delete(`/10dlc/Campaign/${campaignId}/`)).status).toBe(404);
  });

  it('is refused while numbers of the campaign are PROCESSING, allowed once they are not', async () => {
    const client = await freshAccount(emulator);
    const campaignId = await client.createCampaign(await client.completedBrand());
    await client.seedNumber({ number: '14155550101', campaign_id: campaignId, campaign_link_status: 'COMPLETED' });
    await client.seedNumber({ number: '14155550102', campaign_id: campaignId, campaign_link_status: 'PROCESSING' });
    await client.seedNumber({ number: '14155550103', campaign_id: campaignId, campaign_link_status: 'PROCESSING' });
    const refused = await client.delete(`/10dlc/Campaign/${campaignId}/`);
    const message = `Campaign ${campaignId} cannot be deleted: numbers are still being linked to it (14155550102, 14155550103).`;
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      campaign_id: campaignId,
      message,
      error: message,
    });
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).status).toBe(200);

    await client.seedNumber({ number: '14155550102', campaign_id: campaignId, campaign_link_status: 'FAILED' });
    await client.seedNumber({ number: '14155550103', campaign_id: campaignId, campaign_link_status: 'COMPLETED' });
    expect((await client.delete(`/10dlc/Campaign/${campaignId}/`)).status).toBe(200);
    const number = await client.get('/Number/14155550101/');
    expect(number.body).toMatchObject({ tendlc_campaign_id: null, tendlc_registration_status: 'UNREGISTERED' });
  });

  it('ignores numbers being linked to another campaign', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const first = await client.createCampaign(brandId);
    const second = await client.createCampaign(brandId);
    await client.seedNumber({ number: '14155550104', campaign_id: second, campaign_link_status: 'PROCESSING' });
    expect((await client.delete(`/10dlc/Campaign/${first}/`)).status).toBe(200);
  });
});

describe('campaign import', () => {
  it('answers 200 echoing the id; the campaign is shared, PROCESSING, then ACTIVE', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Campaign/Import/', {
      campaign_id: 'CIMP0RT',
      campaign_alias: 'from-registry',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      campaign_id: 'CIMP0RT',
      message: 'Request to import campaign was received and is being processed.',
    });
    const { campaign } = (await client.get('/10dlc/Campaign/CIMP0RT/')).body;
    expect(campaign).toMatchObject({
      campaign_id: 'CIMP0RT',
      campaign_alias: 'from-registry',
      brand_id: 'BIMP0RT',
      campaign_source: 'shared',
      usecase: 'CUSTOMER_CARE',
      registration_status: 'PROCESSING',
      reseller_id: '',
    });
    await client.advance(testRegistryDelayMs);
    expect((await client.get('/10dlc/Campaign/CIMP0RT/')).body.campaign.registration_status).toBe('ACTIVE');
  });

  it('follows the registry rules on the alias', async () => {
    const client = await freshAccount(emulator);
    await client.post('/10dlc/Campaign/Import/', { campaign_id: 'CDECLIN', campaign_alias: 'decline-import' });
    await client.advance(testRegistryDelayMs);
    expect((await client.get('/10dlc/Campaign/CDECLIN/')).body.campaign.registration_status).toBe('FAILED');
  });

  it.each([
    [{ campaign_alias: 'x' }, 'campaign_id is required'],
    [{ campaign_id: 'CABC123' }, 'campaign_alias is required'],
    [
      { campaign_id: 'cabc123', campaign_alias: 'x' },
      'campaign_id must be a registry campaign id: C followed by 6 capital letters or digits',
    ],
    [
      { campaign_id: 'BABC123', campaign_alias: 'x' },
      'campaign_id must be a registry campaign id: C followed by 6 capital letters or digits',
    ],
    [{ campaign_id: 'CABC123', campaign_alias: 'x', method: 'PATCH' }, 'method must be GET or POST'],
  ])('refuses %j with 400', async (body, message) => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Campaign/Import/', body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
  });

  it('refuses a campaign already in the account', async () => {
    const client = await freshAccount(emulator);
    expect((await client.post('/10dlc/Campaign/Import/', { campaign_id: 'CTWICE1', campaign_alias: 'x' })).status).toBe(
      200,
    );
    const again = await client.post('/10dlc/Campaign/Import/', { campaign_id: 'CTWICE1', campaign_alias: 'x' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(errorWith('campaign_id CTWICE1 is already a campaign of this account'));
  });
});
