import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  errorWith,
  freshAccount,
  profileBody,
  seeded,
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

describe('brand create', () => {
  it('answers 200 with a 7-character B id and the processing message', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Brand/', { profile_uuid: seeded.withEin[0], brand_alias: 'northwind' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      brand_id: expect.stringMatching(/^B[A-Z0-9]{6}$/),
      message: 'Request to create brand was received and is being processed.',
    });
  });

  it('copies the profile into the brand, PROCESSING without vetting or reasons', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[1], 'bluebird');
    const reply = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['api_id', 'brand']);
    expect(reply.body.brand).toEqual({
      brand_id: brandId,
      brand_alias: 'bluebird',
      brand_type: 'STANDARD',
      company_name: 'Bluebird Logistics LLC',
      ein: '81-0000002',
      ein_issuing_country: 'US',
      entity_type: 'PRIVATE',
      vertical: 'TRANSPORTATION',
      website: 'https://bluebird-logistics.example.com',
      profile_uuid: seeded.withEin[1],
      registration_status: 'PROCESSING',
      address: { street: '2200 Freight Road', city: 'Columbus', state: 'OH', postal_code: '43215', country: 'US' },
      authorized_contact: {
        first_name: 'Marcus',
        last_name: 'Lee',
        email: 'marcus.lee@example.com',
        phone: '+12025550102',
        title: 'General Manager',
        seniority: 'GM',
      },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('works from a profile created through /Profile/', async () => {
    const client = await freshAccount(emulator);
    const created = await client.post('/Profile/', profileBody());
    const brandId = await client.createBrand(created.body.profile_uuid, 'own-profile');
    const reply = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(reply.body.brand).toMatchObject({ company_name: 'Test Company Inc.', ein: '81-9999999' });
  });

  it('accepts brand_type STANDARD, secondary_vetting and a callback url and method', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Brand/', {
      profile_uuid: seeded.withEin[0],
      brand_alias: 'explicit',
      brand_type: 'STANDARD',
      secondary_vetting: false,
      url: 'http://127.0.0.1:9/callback',
      method: 'get',
    });
    expect(reply.status).toBe(200);
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ['profile_uuid missing', { profile_uuid: '' }, 'profile_uuid is required'],
    ['brand_alias missing', { brand_alias: undefined }, 'brand_alias is required'],
    ['brand_type STARTER', { brand_type: 'STARTER' }, 'brand_type must be STANDARD'],
    ['secondary_vetting not a boolean', { secondary_vetting: 'yes' }, 'secondary_vetting must be true or false'],
    ['url not fully qualified', { url: '/callback' }, 'url must be a fully qualified http or https URL'],
    ['url of another scheme', { url: 'ftp://127.0.0.1/cb' }, 'url must be a fully qualified http or https URL'],
    ['method PUT', { url: 'http://127.0.0.1/cb', method: 'PUT' }, 'method must be GET or POST'],
    [
      'an unknown profile',
      { profile_uuid: '00000000-0000-4000-8000-000000000000' },
      'profile_uuid 00000000-0000-4000-8000-000000000000 does not name a profile of this account',
    ],
    [
      'a profile without an EIN',
      { profile_uuid: seeded.withoutEin },
      `profile_uuid ${seeded.withoutEin} holds no EIN; a STANDARD brand needs a profile with one`,
    ],
  ];
  it.each(refusals)('refuses %s with 400 naming the field', async (_name, overrides, message) => {
    const client = await freshAccount(emulator);
    const reply = await client.post('/10dlc/Brand/', {
      profile_uuid: seeded.withEin[0],
      brand_alias: 'acme',
      ...overrides,
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
    expect((await client.get('/10dlc/Brand/')).body.brands).toEqual([]);
  });

  it('refuses a profile already used for a brand, also after that brand was deleted', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0]);
    const again = await client.post('/10dlc/Brand/', { profile_uuid: seeded.withEin[0], brand_alias: 'again' });
    const message = `profile_uuid ${seeded.withEin[0]} was already used to create brand ${brandId}; a profile makes one brand only`;
    expect(again.status).toBe(400);
    expect(again.body).toEqual(errorWith(message));
    expect((await client.delete(`/10dlc/Brand/${brandId}/`)).status).toBe(200);
    const afterDelete = await client.post('/10dlc/Brand/', { profile_uuid: seeded.withEin[0], brand_alias: 'again' });
    expect(afterDelete.status).toBe(400);
    expect(afterDelete.body).toEqual(errorWith(message));
  });
});

describe('brand registration', () => {
  it('goes from PROCESSING to COMPLETED with a vetting score after the registry delay', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0]);
    // Half the delay: the wall clock moves too, so the margin is wide rather than one millisecond.
    await client.advance(testRegistryDelayMs / 2);
    expect((await client.get(`/10dlc/Brand/${brandId}/`)).body.brand.registration_status).toBe('PROCESSING');
    await client.advance(testRegistryDelayMs / 2);
    const reply = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(reply.body.brand).toMatchObject({
      registration_status: 'COMPLETED',
      vetting_score: 80,
      vetting_status: 'ACTIVE',
    });
    expect(reply.body.brand).not.toHaveProperty('declined_reasons');
  });

  it('leaves out vetting when secondary_vetting is false', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0], 'no-vetting', { secondary_vetting: false });
    await client.advance(testRegistryDelayMs);
    const reply = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(reply.body.brand.registration_status).toBe('COMPLETED');
    expect(reply.body.brand).not.toHaveProperty('vetting_score');
    expect(reply.body.brand).not.toHaveProperty('vetting_status');
  });

  it('accepts secondary_vetting as the string "true" or "false", as the Node SDK documents it', async () => {
    const client = await freshAccount(emulator);
    const without = await client.createBrand(seeded.withEin[0], 'text-false', { secondary_vetting: 'false' });
    const vetted = await client.createBrand(seeded.withEin[1], 'text-true', { secondary_vetting: 'true' });
    await client.advance(testRegistryDelayMs);
    expect((await client.get(`/10dlc/Brand/${without}/`)).body.brand).not.toHaveProperty('vetting_score');
    expect((await client.get(`/10dlc/Brand/${vetted}/`)).body.brand).toMatchObject({
      vetting_score: 80,
      vetting_status: 'ACTIVE',
    });
    const refused = await client.post('/10dlc/Brand/', {
      profile_uuid: seeded.withEin[2],
      brand_alias: 'text-upper',
      secondary_vetting: 'TRUE',
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'secondary_vetting must be true or false' } });
  });

  it('ends FAILED with declined_reasons when the brand_alias contains "decline"', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0], 'please-DECLINE-me');
    expect((await client.get(`/10dlc/Brand/${brandId}/`)).body.brand).not.toHaveProperty('declined_reasons');
    await client.advance(testRegistryDelayMs);
    const reply = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(reply.body.brand.registration_status).toBe('FAILED');
    expect(reply.body.brand.declined_reasons).toEqual([
      {
        code: 'TCR_IDENTITY_MISMATCH',
        message:
          'The registry could not verify the company identity (emulator rule: the brand_alias contains "decline").',
      },
    ]);
    expect(reply.body.brand).not.toHaveProperty('vetting_score');
  });
});

describe('brand list', () => {
  let client: TendlcClient;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    client = await freshAccount(emulator);
    ids.completed = await client.createBrand(seeded.withEin[0], 'one');
    ids.failed = await client.createBrand(seeded.withEin[1], 'declined-two');
    await client.advance(testRegistryDelayMs);
    ids.processing = await client.createBrand(seeded.withEin[2], 'three');
  });

  const idsOf = (body: { brands: { brand_id: string }[] }): string[] => body.brands.map((brand) => brand.brand_id);

  it('lists every brand under `brands` in creation order with meta', async () => {
    const reply = await client.get('/10dlc/Brand/');
    expect(reply.status).toBe(200);
    expect(idsOf(reply.body)).toEqual([ids.completed, ids.failed, ids.processing]);
    expect(reply.body.meta).toEqual({ limit: 20, offset: 0, total_count: 3, previous: null, next: null });
  });

  it('pages with links that start with a slash (as production documents it)', async () => {
    const reply = await client.get('/10dlc/Brand/?limit=1&offset=1');
    expect(idsOf(reply.body)).toEqual([ids.failed]);
    expect(reply.body.meta).toEqual({
      limit: 1,
      offset: 1,
      total_count: 3,
      previous: `${client.base}/10dlc/Brand/?limit=1&offset=0`,
      next: `${client.base}/10dlc/Brand/?limit=1&offset=2`,
    });
  });

  it.each([
    ['registration_status=COMPLETED', 'completed'],
    ['registration_status=FAILED', 'failed'],
    ['registration_status=processing', 'processing'],
    ['status=Completed', 'completed'],
  ])('filters by %s', async (filter, key) => {
    const reply = await client.get(`/10dlc/Brand/?${filter}`);
    expect(idsOf(reply.body)).toEqual([ids[key]]);
    expect(reply.body.meta.total_count).toBe(1);
  });

  it('filters by type STANDARD', async () => {
    const reply = await client.get('/10dlc/Brand/?type=STANDARD');
    expect(idsOf(reply.body)).toHaveLength(3);
  });

  it.each([
    ['registration_status=ACTIVE', 'registration_status must be one of PROCESSING, COMPLETED, FAILED'],
    ['type=STARTER', 'type must be one of STANDARD'],
    ['limit=21', 'limit must be an integer from 1 to 20'],
  ])('refuses %s with 400', async (filter, message) => {
    const reply = await client.get(`/10dlc/Brand/?${filter}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
  });
});

describe('brand use cases', () => {
  it('lists the 12 use cases with code, name and details', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0]);
    const reply = await client.get(`/10dlc/Brand/${brandId}/usecases/`);
    expect(reply.status).toBe(200);
    expect(reply.body.brand_id).toBe(brandId);
    expect(reply.body.use_cases.map((useCase: { code: string }) => useCase.code)).toEqual([
      '2FA',
      'ACCOUNT_NOTIFICATION',
      'CUSTOMER_CARE',
      'DELIVERY_NOTIFICATION',
      'FRAUD_ALERT',
      'HIGHER_EDUCATION',
      'LOW_VOLUME',
      'MARKETING',
      'MIXED',
      'POLLING_VOTING',
      'PUBLIC_SERVICE_ANNOUNCEMENT',
      'SECURITY_ALERT',
    ]);
    for (const useCase of reply.body.use_cases) {
      expect(Object.keys(useCase)).toEqual(['code', 'name', 'details']);
      expect(useCase.name).not.toBe('');
    }
  });

  it('answers 404 for an unknown brand', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.get('/10dlc/Brand/BNOSUCH/usecases/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(errorWith('brand BNOSUCH not found'));
  });
});

describe('brand delete', () => {
  it('deactivates a brand without campaigns: 200, then 404', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0]);
    const reply = await client.delete(`/10dlc/Brand/${brandId}/`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      brand_id: brandId,
      message: 'Brand Deactivated',
    });
    const read = await client.get(`/10dlc/Brand/${brandId}/`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual(errorWith(`brand ${brandId} not found`));
    expect((await client.delete(`/10dlc/Brand/${brandId}/`)).status).toBe(404);
  });

  it('is refused while the brand has ACTIVE or PROCESSING campaigns, with the reason in message', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const first = await client.createCampaign(brandId);
    const refusedProcessing = await client.delete(`/10dlc/Brand/${brandId}/`);
    const message = `Brand ${brandId} cannot be deleted: it has active campaigns (${first}); delete them first.`;
    expect(refusedProcessing.status).toBe(400);
    expect(refusedProcessing.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      brand_id: brandId,
      message,
      error: message,
    });
    await client.advance(testRegistryDelayMs);
    expect((await client.get(`/10dlc/Campaign/${first}/`)).body.campaign.registration_status).toBe('ACTIVE');
    const refusedActive = await client.delete(`/10dlc/Brand/${brandId}/`);
    expect(refusedActive.status).toBe(400);
    expect(refusedActive.body.message).toBe(message);
    expect((await client.get(`/10dlc/Brand/${brandId}/`)).status).toBe(200);
    expect((await client.delete(`/10dlc/Campaign/${first}/`)).status).toBe(200);
    expect((await client.delete(`/10dlc/Brand/${brandId}/`)).status).toBe(200);
  });

  it('deactivates the brand FAILED and EXPIRED campaigns with it', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const failed = await client.createCampaign(brandId, { campaign_alias: 'decline-this' });
    const expired = await client.createCampaign(brandId, { campaign_alias: 'expire-this' });
    await client.advance(2 * testRegistryDelayMs);
    expect((await client.get(`/10dlc/Campaign/${expired}/`)).body.campaign.registration_status).toBe('EXPIRED');
    const reply = await client.delete(`/10dlc/Brand/${brandId}/`);
    expect(reply.status).toBe(200);
    expect((await client.get(`/10dlc/Campaign/${failed}/`)).status).toBe(404);
    expect((await client.get(`/10dlc/Campaign/${expired}/`)).status).toBe(404);
  });

  it('is refused while numbers are still being linked to one of its campaigns', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const campaignId = await client.createCampaign(brandId, { campaign_alias: 'decline-me' });
    await client.advance(testRegistryDelayMs);
    await client.seedNumber({ number: '14155550100', campaign_id: campaignId, campaign_link_status: 'PROCESSING' });
    const reply = await client.delete(`/10dlc/Brand/${brandId}/`);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(
      `Brand ${brandId} cannot be deleted: numbers are still being linked to its campaigns (14155550100).`,
    );
  });
});
