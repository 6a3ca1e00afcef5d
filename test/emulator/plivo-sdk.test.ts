import * as plivo from 'plivo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { freshAccount, seeded, startTendlcEmulator, testRegistryDelayMs, type TendlcClient } from './tendlc-client.js';

/**
 * The official Node SDK (`plivo` on npm) against the emulator: what it sends (snake_case bodies,
 * `sample_3` for `sample3`, GET filters in the query string) must be understood, and what the
 * emulator answers must be what the SDK expects. The SDK camel-cases every response key.
 */

let emulator: RunningEmulator;
let account: TendlcClient;
// `any` because the SDK's typings declare most results as `Promise<any>`.
let sdk: any;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
  account = await freshAccount(emulator);
  sdk = new plivo.Client(account.authId, account.authToken, { url: `${emulator.url}/v1/Account/${account.authId}` });
});
afterAll(async () => {
  await emulator.close();
});

const address = { street: '500 Market St', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' };
const contact = {
  first_name: 'Ada',
  last_name: 'Byron',
  email: 'ada@example.com',
  title: 'Ms.',
  seniority: 'admin',
  phone: '+14155550123',
};

function createCampaign(brandId: string, alias: string): Promise<any> {
  return sdk.campaign.create(
    brandId,
    alias,
    'TECHNOLOGY',
    'MIXED',
    ['2FA', 'ACCOUNT_NOTIFICATION'],
    'One-time passcodes and account notices for customers of the service.',
    false,
    false,
    false,
    false,
    true,
    true,
    true,
    false,
    'Your login code is 123456. It expires in 10 minutes.',
    'Your password was changed. Reply HELP for help, STOP to opt out.',
    'Your account statement is ready to view in the app.',
    undefined,
    undefined,
    'Customers opt in when they create an account and tick the SMS consent box.',
    'Example Co: reply STOP to opt out. Call 555-0100 for help.',
    'You are unsubscribed from Example Co messages.',
    'https://example.com/terms',
    'https://example.com/privacy',
  );
}

describe('the official Node SDK', () => {
  it('creates a profile, a brand and a campaign, lists and deletes them', async () => {
    const profile = await sdk.profile.create(
      'sdk-profile',
      '',
      'DIRECT',
      'PRIVATE',
      'Example Co',
      '12-3456789',
      'TECHNOLOGY',
      'US',
      '',
      '',
      '',
      'https://example.com',
      address,
      contact,
      'ops@example.com',
      'Example',
    );
    expect(profile.profileUuid).toMatch(/^[0-9a-f-]{36}$/);
    const readProfile = await sdk.profile.get(profile.profileUuid);
    expect(readProfile.profile).toMatchObject({
      companyName: 'Example Co',
      ein: '12-3456789',
      doingBusinessAs: 'Example',
    });

    const brand = await sdk.brand.create('sdk-brand', profile.profileUuid, 'STANDARD', true);
    expect(brand.brand_id).toMatch(/^B[A-Z0-9]{6}$/);
    expect(brand.message).toBe('Request to create brand was received and is being processed.');
    expect((await sdk.brand.get(brand.brand_id)).brand.registrationStatus).toBe('PROCESSING');
    await account.advance(testRegistryDelayMs);
    const completed = await sdk.brand.get(brand.brand_id);
    expect(completed.brand).toMatchObject({
      registrationStatus: 'COMPLETED',
      profileUuid: profile.profileUuid,
      companyName: 'Example Co',
    });
    const usecases = await sdk.brand.get_usecases(brand.brand_id);
    expect(usecases.useCases).toHaveLength(12);

    const campaign = await createCampaign(brand.brand_id, 'sdk-campaign');
    expect(campaign.campaignId).toMatch(/^C[A-Z0-9]{6}$/);
    const readCampaign = (await sdk.campaign.get(campaign.campaignId)).campaign;
    expect(readCampaign).toMatchObject({
      campaignAlias: 'sdk-campaign',
      subUsecase: '2FA,ACCOUNT_NOTIFICATION',
      sample3: 'Your account statement is ready to view in the app.',
      registrationStatus: 'PROCESSING',
      campaignSource: 'plivo',
      termsAndConditionsLink: 'https://example.com/terms',
    });
    expect(readCampaign).not.toHaveProperty('sample4');

    const brands = await sdk.brand.list({ registration_status: 'COMPLETED', limit: 5 });
    expect(brands.brands.map((item: { brandId: string }) => item.brandId)).toEqual([brand.brand_id]);
    expect(brands.meta).toMatchObject({ limit: 5, offset: 0, totalCount: 1 });
    const campaigns = await sdk.campaign.list({
      brand_id: brand.brand_id,
      registration_status: 'Processing',
      usecase: 'MIXED',
    });
    expect(campaigns.campaigns.map((item: { campaignId: string }) => item.campaignId)).toEqual([campaign.campaignId]);
    const profiles = await sdk.profile.list({ entity_type: 'PRIVATE' });
    expect(profiles.profiles.length).toBeGreaterThanOrEqual(5);

    const refused = sdk.brand.deleteBrand(brand.brand_id);
    await expect(refused).rejects.toThrow(/cannot be deleted: it has active campaigns/);

    const deletedCampaign = await sdk.campaign.deleteCampaign(campaign.campaignId);
    expect(deletedCampaign).toMatchObject({ campaignId: campaign.campaignId, message: 'Campaign Deactivated' });
    const deletedBrand = await sdk.brand.deleteBrand(brand.brand_id);
    expect(deletedBrand).toMatchObject({ brandId: brand.brand_id, message: 'Brand Deactivated' });
    expect((await sdk.brand.list()).brands).toEqual([]);
    await expect(sdk.campaign.get(campaign.campaignId)).rejects.toThrow(/not found/);
  });

  it('updates a declined campaign (sample_3 and reseller_id as the SDK sends them)', async () => {
    const brand = await sdk.brand.create('sdk-brand-2', seeded.withEin[1], 'STANDARD', false);
    await account.advance(testRegistryDelayMs);
    const campaign = await createCampaign(brand.brand_id, 'sdk-decline');
    await account.advance(testRegistryDelayMs);
    expect((await sdk.campaign.get(campaign.campaignId)).campaign.registrationStatus).toBe('FAILED');
    const updated = await sdk.campaign.update(
      campaign.campaignId,
      '',
      undefined,
      undefined,
      undefined,
      'A replacement third sample, long enough to pass.',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'HELP,INFO',
      undefined,
      undefined,
      { campaign_alias: 'sdk-fixed' },
    );
    expect(updated.campaign).toMatchObject({
      campaignAlias: 'sdk-fixed',
      sample3: 'A replacement third sample, long enough to pass.',
      helpKeywords: 'HELP,INFO',
      registrationStatus: 'PROCESSING',
    });
    expect((await account.billing()).body.total_usd).toBe(15);
  });

  it('reports a refused register with the error text', async () => {
    const brand = await sdk.brand.create('sdk-brand-3', seeded.withEin[2], 'STANDARD', true);
    await expect(createCampaign(brand.brand_id, 'too-early')).rejects.toThrow(
      `brand_id ${brand.brand_id} is PROCESSING; campaigns can be registered only under a COMPLETED brand`,
    );
  });

  it('links numbers to a campaign, reads and unlinks them (campaign.linkNumber, listNumber, getNumber, unlinkNumber)', async () => {
    const brand = await sdk.brand.create('sdk-brand-4', seeded.withEin[3], 'STANDARD', 'true');
    await account.advance(testRegistryDelayMs);
    const campaign = await createCampaign(brand.brand_id, 'sdk-links');
    await account.advance(testRegistryDelayMs);
    const linked = await sdk.campaign.linkNumber(campaign.campaignId, ['15125550101', '15125550000'], {
      url: 'http://127.0.0.1:9/links',
      method: 'POST',
    });
    expect(linked.message).toBe(
      `Request to link 15125550101, 15125550000 to campaign ${campaign.campaignId} was received and is being processed`,
    );
    const processing = await sdk.campaign.listNumber(campaign.campaignId, { limit: 5 });
    expect(processing).toMatchObject({
      campaignId: campaign.campaignId,
      campaignAlias: 'sdk-links',
      usecase: 'MIXED',
      phoneNumbers: [
        { number: '15125550101', status: 'PROCESSING' },
        { number: '15125550000', status: 'PROCESSING' },
      ],
    });
    await account.advance(testRegistryDelayMs);
    expect((await sdk.campaign.getNumber(campaign.campaignId, '15125550101')).phoneNumbers).toEqual([
      { number: '15125550101', status: 'COMPLETED' },
    ]);
    expect((await sdk.campaign.getNumber(campaign.campaignId, '15125550000')).phoneNumbers).toEqual([
      expect.objectContaining({ number: '15125550000', status: 'FAILED', errorCode: 'NUMBER_LINK_REJECTED' }),
    ]);
    const number = await sdk.numbers.get('15125550101');
    expect(number).toMatchObject({ tendlcCampaignId: campaign.campaignId, tendlcRegistrationStatus: 'COMPLETED' });
    const unlinked = await sdk.campaign.unlinkNumber(campaign.campaignId, '15125550101', {
      url: 'http://127.0.0.1:9/unlinks',
      method: 'GET',
    });
    expect(unlinked.message).toBe(
      `Request to unlink 15125550101 from campaign ${campaign.campaignId} was received and is being processed`,
    );
    expect((await sdk.numbers.get('15125550101')).tendlcCampaignId).toBeNull();
    await expect(sdk.campaign.getNumber(campaign.campaignId, '15125550101')).rejects.toThrow(
      /is not linked to campaign/,
    );
  });

  it('attaches a number to an inbound trunk and lists the numbers by app_id (numbers.update, numbers.list)', async () => {
    const uri = await account.post('/Zentrunk/URI/', { uri: 'pbx.example.com' });
    const trunk = await account.post('/Zentrunk/Trunk/', {
      trunk_direction: 'inbound',
      primary_uri_uuid: uri.body.uri_uuid,
    });
    const trunkId = trunk.body.trunk_id as string;
    const updated = await sdk.numbers.update('15125550102', { appId: trunkId });
    expect(updated.message).toBe('changed');
    const onTrunk = await sdk.numbers.list({ appId: trunkId });
    expect(onTrunk.map((item: { number: string; application: string }) => [item.number, item.application])).toEqual([
      ['15125550102', `/v1/Account/${account.authId}/Zentrunk/Trunk/${trunkId}/`],
    ]);
    await sdk.numbers.update('15125550102', { appId: '' });
    expect(await sdk.numbers.list({ appId: trunkId })).toHaveLength(0);
  });
});
