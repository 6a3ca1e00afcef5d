import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbacksSettled } from '../../src/emulator/callbacks.js';
import { defaultAccount, type RunningEmulator } from '../../src/emulator/index.js';
import { Receiver } from './fixtures/callback-receiver.js';
import { TendlcClient, freshAccount, startTendlcEmulator, testRegistryDelayMs } from './tendlc-client.js';

/**
 * Linking phone numbers to a 10DLC campaign (`/10dlc/Campaign/{id}/Number/`): asynchronous through
 * the registry simulator, one campaign per number, only the account's numbers, only ACTIVE campaigns.
 */

let emulator: RunningEmulator;
let receiver: Receiver;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
  receiver = new Receiver();
  await receiver.listen();
});
afterAll(async () => {
  await emulator.close();
  await receiver.close();
});

const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);

/** A fresh account with an ACTIVE campaign (the clock moved past the brand's and the campaign's delays). */
async function activeCampaign(alias = 'appointment-reminders'): Promise<{ client: TendlcClient; campaignId: string }> {
  const client = await freshAccount(emulator);
  const brandId = await client.completedBrand();
  const campaignId = await client.createCampaign(brandId, { campaign_alias: alias });
  await client.advance(testRegistryDelayMs);
  return { client, campaignId };
}

async function numberOf(client: TendlcClient, number: string): Promise<Record<string, unknown>> {
  const reply = await client.get(`/Number/${number}/`);
  expect(reply.status).toBe(200);
  return reply.body;
}

describe('the numbers every account starts with', () => {
  it('are five fixed numbers, unattached and linked to no campaign', async () => {
    const client = await freshAccount(emulator);
    const reply = await client.get('/Number/');
    expect(reply.body.meta.total_count).toBe(5);
    expect(reply.body.objects.map((number: { number: string }) => number.number)).toEqual([
      '15125550101',
      '15125550102',
      '15125550103',
      '15125550104',
      '15125550000',
    ]);
    for (const number of reply.body.objects) {
      expect(number).toMatchObject({
        application: null,
        tendlc_campaign_id: null,
        tendlc_registration_status: 'UNREGISTERED',
      });
    }
  });
});

describe('linking numbers to a campaign', () => {
  it('answers 200, is PROCESSING for the registry delay, then COMPLETED', async () => {
    const { client, campaignId } = await activeCampaign();
    const reply = await client.post(`/10dlc/Campaign/${campaignId}/Number/`, {
      numbers: ['+15125550101', '15125550102'],
    });
    expect(reply).toEqual({
      status: 200,
      body: {
        api_id: uuid,
        message: `Request to link 15125550101, 15125550102 to campaign ${campaignId} was received and is being processed`,
      },
    });
    const processing = await client.get(`/10dlc/Campaign/${campaignId}/Number/`);
    expect(processing.body).toEqual({
      api_id: uuid,
      campaign_id: campaignId,
      campaign_alias: 'appointment-reminders',
      usecase: 'ACCOUNT_NOTIFICATION',
      meta: { limit: 20, offset: 0, total_count: 2, previous: null, next: null },
      phone_numbers: [
        { number: '15125550101', status: 'PROCESSING' },
        { number: '15125550102', status: 'PROCESSING' },
      ],
    });
    expect(await numberOf(client, '15125550101')).toMatchObject({
      tendlc_campaign_id: campaignId,
      tendlc_registration_status: 'PROCESSING',
    });
    await client.advance(testRegistryDelayMs);
    const one = await client.get(`/10dlc/Campaign/${campaignId}/Number/+15125550102/`);
    expect(one.body).toEqual({
      api_id: uuid,
      campaign_id: campaignId,
      campaign_alias: 'appointment-reminders',
      usecase: 'ACCOUNT_NOTIFICATION',
      phone_numbers: [{ number: '15125550102', status: 'COMPLETED' }],
    });
    expect(await numberOf(client, '15125550102')).toMatchObject({
      tendlc_campaign_id: campaignId,
      tendlc_registration_status: 'COMPLETED',
    });
    // Linking a number again to its own campaign changes nothing.
    expect((await client.post(`/10dlc/Campaign/${campaignId}/Number/`, { numbers: ['15125550102'] })).status).toBe(200);
    expect(await numberOf(client, '15125550102')).toMatchObject({ tendlc_registration_status: 'COMPLETED' });
  });

  it('fails a number ending in 0000 with a reason; the number can then be linked again', async () => {
    const { client, campaignId } = await activeCampaign();
    expect((await client.post(`/10dlc/Campaign/${campaignId}/Number/`, { numbers: ['15125550000'] })).status).toBe(200);
    await client.advance(testRegistryDelayMs);
    const list = await client.get(`/10dlc/Campaign/${campaignId}/Number/`);
    expect(list.body.phone_numbers).toEqual([
      {
        number: '15125550000',
        status: 'FAILED',
        error_code: 'NUMBER_LINK_REJECTED',
        error_reason:
          'The carriers refused to register the number with the campaign (emulator rule: the number ends in 0000).',
      },
    ]);
    expect(await numberOf(client, '15125550000')).toMatchObject({
      tendlc_campaign_id: campaignId,
      tendlc_registration_status: 'UNREGISTERED',
    });
    // A failed link holds nothing: another campaign may take the number (and fails it the same way).
    const brandId = await client.completedBrand('5eed0000-0000-4000-8000-000000000002');
    const other = await client.createCampaign(brandId, { campaign_alias: 'second' });
    await client.advance(testRegistryDelayMs);
    expect((await client.post(`/10dlc/Campaign/${other}/Number/`, { numbers: ['15125550000'] })).status).toBe(200);
    expect(await numberOf(client, '15125550000')).toMatchObject({
      tendlc_campaign_id: other,
      tendlc_registration_status: 'PROCESSING',
    });
    expect((await client.get(`/10dlc/Campaign/${campaignId}/Number/`)).body.phone_numbers).toEqual([]);
  });

  it('refuses what cannot be linked with 400, naming it, and changes nothing', async () => {
    const { client, campaignId } = await activeCampaign();
    await client.seedNumber({ number: '14155550140', campaign_id: 'CELSEWH', campaign_link_status: 'COMPLETED' });
    const refusals: Array<[unknown, string]> = [
      [{}, 'numbers must be a non-empty array of phone numbers'],
      [{ numbers: [] }, 'numbers must be a non-empty array of phone numbers'],
      [{ numbers: '15125550101' }, 'numbers must be a non-empty array of phone numbers'],
      [
        { numbers: ['15125550101', 'abc'] },
        'numbers[1] must be a phone number in E.164 (8 to 15 digits, with or without +)',
      ],
      [
        { numbers: ['15125550101', 15125550102] },
        'numbers[1] must be a phone number in E.164 (8 to 15 digits, with or without +)',
      ],
      [{ numbers: ['15125550101', '19995550100'] }, 'number 19995550100 is not a number of this account'],
      [
        { numbers: ['15125550101', '14155550140'] },
        'number 14155550140 is already linked to campaign CELSEWH; unlink it from that campaign first',
      ],
      [{ numbers: ['15125550101'], url: 'not-a-url' }, 'url must be a fully qualified http or https URL'],
    ];
    for (const [body, error] of refusals) {
      expect(await client.post(`/10dlc/Campaign/${campaignId}/Number/`, body), JSON.stringify(body)).toEqual({
        status: 400,
        body: { api_id: uuid, error },
      });
    }
    expect(await numberOf(client, '15125550101')).toMatchObject({ tendlc_campaign_id: null });
    expect((await client.post('/10dlc/Campaign/CNOSUCH/Number/', { numbers: ['15125550101'] })).body).toEqual({
      api_id: uuid,
      error: 'campaign CNOSUCH not found',
    });
  });

  it('refuses a campaign that is not ACTIVE', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const processing = await client.createCampaign(brandId, { campaign_alias: 'still-processing' });
    expect(await client.post(`/10dlc/Campaign/${processing}/Number/`, { numbers: ['15125550101'] })).toEqual({
      status: 400,
      body: {
        api_id: uuid,
        error: `campaign ${processing} is PROCESSING; numbers can be linked only to an ACTIVE campaign`,
      },
    });
    const declined = await client.createCampaign(brandId, { campaign_alias: 'please-decline' });
    await client.advance(testRegistryDelayMs);
    expect((await client.post(`/10dlc/Campaign/${declined}/Number/`, { numbers: ['15125550101'] })).body.error).toBe(
      `campaign ${declined} is FAILED; numbers can be linked only to an ACTIVE campaign`,
    );
  });
});

describe('unlinking and deleting', () => {
  it('unlinks at once with 200; a number still PROCESSING or not linked is refused', async () => {
    const { client, campaignId } = await activeCampaign();
    await client.post(`/10dlc/Campaign/${campaignId}/Number/`, { numbers: ['15125550103'] });
    expect(await client.delete(`/10dlc/Campaign/${campaignId}/Number/15125550103/`)).toEqual({
      status: 400,
      body: {
        api_id: uuid,
        error: `number 15125550103 is still being linked to campaign ${campaignId}; it can be unlinked once the link is COMPLETED or FAILED`,
      },
    });
    await client.advance(testRegistryDelayMs);
    expect(await client.delete(`/10dlc/Campaign/${campaignId}/Number/15125550103/`)).toEqual({
      status: 200,
      body: {
        api_id: uuid,
        message: `Request to unlink 15125550103 from campaign ${campaignId} was received and is being processed`,
      },
    });
    expect(await numberOf(client, '15125550103')).toMatchObject({
      tendlc_campaign_id: null,
      tendlc_registration_status: 'UNREGISTERED',
    });
    expect((await client.get(`/10dlc/Campaign/${campaignId}/Number/`)).body.phone_numbers).toEqual([]);
    for (const method of ['GET', 'DELETE']) {
      expect((await client.call(method, `/10dlc/Campaign/${campaignId}/Number/15125550103/`)).body).toEqual({
        api_id: uuid,
        error: `number 15125550103 is not linked to campaign ${campaignId}`,
      });
    }
  });

  it('refuses a campaign or brand delete while a number is being linked, and releases the numbers after', async () => {
    const { client, campaignId } = await activeCampaign();
    const brandId = (await client.get(`/10dlc/Campaign/${campaignId}/`)).body.campaign.brand_id as string;
    await client.post(`/10dlc/Campaign/${campaignId}/Number/`, { numbers: ['15125550104'] });
    const refusal = `Campaign ${campaignId} cannot be deleted: numbers are still being linked to it (15125550104).`;
    expect(await client.delete(`/10dlc/Campaign/${campaignId}/`)).toEqual({
      status: 400,
      body: { api_id: uuid, campaign_id: campaignId, message: refusal, error: refusal },
    });
    expect((await client.delete(`/10dlc/Brand/${brandId}/`)).status).toBe(400);
    await client.advance(testRegistryDelayMs);
    expect((await client.delete(`/10dlc/Campaign/${campaignId}/`)).status).toBe(200);
    expect(await numberOf(client, '15125550104')).toMatchObject({
      tendlc_campaign_id: null,
      tendlc_registration_status: 'UNREGISTERED',
    });
  });
});

describe('number linking callbacks', () => {
  it('sends number_linking created then success or failed, and number_unlinking created then success', async () => {
    const { client, campaignId } = await activeCampaign();
    await client.post(`/10dlc/Campaign/${campaignId}/Number/`, {
      numbers: ['15125550101', '15125550000'],
      url: `${receiver.url}/links`,
      method: 'POST',
    });
    const created = [await receiver.take('/links'), await receiver.take('/links')];
    expect(created.map((received) => received.body)).toEqual([
      {
        type: 'number_linking',
        campaign_id: campaignId,
        number: '15125550101',
        status: 'created',
        registration_status: 'PROCESSING',
        timestamp: expect.any(String),
      },
      {
        type: 'number_linking',
        campaign_id: campaignId,
        number: '15125550000',
        status: 'created',
        registration_status: 'PROCESSING',
        timestamp: expect.any(String),
      },
    ]);
    await client.advance(testRegistryDelayMs);
    const decided = [(await receiver.take('/links')).body, (await receiver.take('/links')).body];
    expect(decided).toEqual([
      {
        type: 'number_linking',
        campaign_id: campaignId,
        number: '15125550101',
        status: 'success',
        registration_status: 'COMPLETED',
        timestamp: expect.any(String),
      },
      {
        type: 'number_linking',
        campaign_id: campaignId,
        number: '15125550000',
        status: 'failed',
        registration_status: 'FAILED',
        timestamp: expect.any(String),
        error_code: 'NUMBER_LINK_REJECTED',
        error_reason:
          'The carriers refused to register the number with the campaign (emulator rule: the number ends in 0000).',
      },
    ]);
    // The Java SDK sends an unlink's url and method in the query string.
    const query = new URLSearchParams({ url: `${receiver.url}/unlinks`, method: 'GET' }).toString();
    expect((await client.delete(`/10dlc/Campaign/${campaignId}/Number/15125550101/?${query}`)).status).toBe(200);
    const unlinked = [await receiver.take('/unlinks'), await receiver.take('/unlinks')];
    expect(unlinked.map((received) => [received.method, Object.fromEntries(received.url.searchParams)])).toEqual([
      [
        'GET',
        {
          type: 'number_unlinking',
          campaign_id: campaignId,
          number: '15125550101',
          status: 'created',
          timestamp: expect.any(String),
        },
      ],
      [
        'GET',
        {
          type: 'number_unlinking',
          campaign_id: campaignId,
          number: '15125550101',
          status: 'success',
          timestamp: expect.any(String),
        },
      ],
    ]);
    await callbacksSettled(emulator.runtime);
  });
});

describe('a link across a restart', () => {
  it('is decided from its stored times, so a restarted emulator shows the right status', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'telform-links-'));
    const dataFile = join(directory, 'emulator.json');
    try {
      const first = await startTendlcEmulator({ dataFile });
      const client = new TendlcClient(first, defaultAccount.authId, defaultAccount.authToken);
      const brandId = await client.completedBrand();
      const campaignId = await client.createCampaign(brandId);
      await client.advance(testRegistryDelayMs);
      await client.post(`/10dlc/Campaign/${campaignId}/Number/`, { numbers: ['15125550102'] });
      await first.close();
      const second = await startTendlcEmulator({ dataFile });
      const again = new TendlcClient(second, defaultAccount.authId, defaultAccount.authToken);
      expect(await numberOf(again, '15125550102')).toMatchObject({ tendlc_registration_status: 'PROCESSING' });
      await again.advance(testRegistryDelayMs);
      expect(await numberOf(again, '15125550102')).toMatchObject({
        tendlc_campaign_id: campaignId,
        tendlc_registration_status: 'COMPLETED',
      });
      await second.close();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
