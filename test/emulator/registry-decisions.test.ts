import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { freshAccount, rawRequest, seeded, startTendlcEmulator } from './tendlc-client.js';

// `POST /__emulator/accounts/{auth_id}/registry/`: a test decides a registration still under review.

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startTendlcEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe('registry decisions through the admin route', () => {
  it('declines a campaign under review now, with a reason, and refuses a second decision', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const campaignId = await client.createCampaign(brandId);
    const decide = (body: Record<string, unknown>) =>
      rawRequest(emulator, 'POST', `/__emulator/accounts/${client.authId}/registry/`, body);
    expect((await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.registration_status).toBe('PROCESSING');

    expect(await decide({ decision: 'decline', campaign_id: campaignId })).toMatchObject({
      status: 200,
      body: { decision: 'decline', status: 'FAILED' },
    });
    const campaign = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign;
    expect(campaign).toMatchObject({ registration_status: 'FAILED', error_code: 'CAMPAIGN_VETTING_DECLINED' });
    expect(campaign.error_reason).toContain("decided through the emulator's admin route");

    expect(await decide({ decision: 'approve', campaign_id: campaignId })).toMatchObject({
      status: 409,
      body: { error: `campaign ${campaignId} is already FAILED: the registry decides once` },
    });
  });

  it('approves a brand under review at once, and refuses a body that names no registration or an unknown one', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0] as string, 'acme');
    const decide = (body: Record<string, unknown>) =>
      rawRequest(emulator, 'POST', `/__emulator/accounts/${client.authId}/registry/`, body);
    expect(await decide({ decision: 'approve', brand_id: brandId })).toMatchObject({
      status: 200,
      body: { status: 'COMPLETED' },
    });
    expect((await client.get(`/10dlc/Brand/${brandId}/`)).body.brand.registration_status).toBe('COMPLETED');
    expect(await decide({ decision: 'maybe', brand_id: brandId })).toMatchObject({
      status: 400,
      body: { error: 'decision must be approve or decline' },
    });
    expect(await decide({ decision: 'approve' })).toMatchObject({
      status: 400,
      body: { error: 'give either brand_id or campaign_id' },
    });
    expect(await decide({ decision: 'approve', brand_id: 'B000000' })).toMatchObject({
      status: 404,
      body: { error: 'brand B000000 not found' },
    });
  });
});
