import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
let inbound: string;
let outbound: string;
const app = '77700000000000001';

beforeAll(async () => {
  client = await startCoreEmulator();
  const uri = (await client.post('/Zentrunk/URI/', { uri: 'pbx.example.com' })).body.uri_uuid;
  inbound = (await client.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', primary_uri_uuid: uri })).body
    .trunk_id;
  const acl = (await client.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['10.0.0.1'] })).body.ipacl_uuid;
  outbound = (await client.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound', ipacl_uuid: acl })).body.trunk_id;
});
afterAll(async () => {
  await client.emulator.close();
});

describe('admin number seeding', () => {
  it('seeds a number (201), strips "+", and replaces it when seeded again (200)', async () => {
    const first = await client.seedNumber({
      number: '+14155550100',
      app_id: app,
      campaign_id: 'CMPGN01',
      campaign_link_status: 'PROCESSING',
    });
    expect(first.status).toBe(201);
    expect(first.body.number).toEqual({
      number: '14155550100',
      app_id: app,
      campaign_id: 'CMPGN01',
      campaign_link_status: 'PROCESSING',
      link: null,
      created_at: expect.any(String),
    });
    const again = await client.seedNumber({ number: '14155550100' });
    expect(again.status).toBe(200);
    expect(again.body.number).toMatchObject({
      app_id: null,
      campaign_id: null,
      campaign_link_status: null,
      created_at: first.body.number.created_at,
    });
  });

  it('defaults the link status to COMPLETED and lists the seeded numbers', async () => {
    await client.seedNumber({ number: '14155550101', campaign_id: 'CMPGN02' });
    const list = await client.raw('GET', `/__emulator/accounts/${client.account.authId}/numbers/`);
    expect(list.body.numbers).toContainEqual(
      expect.objectContaining({ number: '14155550101', campaign_link_status: 'COMPLETED' }),
    );
  });

  it('refuses bad seeds with 400', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{}, 'number must be 8 to 15 digits (E.164, with or without +)'],
      [{ number: '555' }, 'number must be 8 to 15 digits (E.164, with or without +)'],
      [
        { number: '14155550102', app_id: outbound },
        `trunk ${outbound} is outbound; only inbound trunks can be attached to phone numbers`,
      ],
      [{ number: '14155550102', app_id: '42' }, 'app_id 42 is not an application or an inbound trunk of this account'],
      [
        { number: '14155550102', campaign_id: 'C1', campaign_link_status: 'DONE' },
        'campaign_link_status must be one of PROCESSING, COMPLETED, FAILED, REGISTERED',
      ],
      [{ number: '14155550102', campaign_link_status: 'FAILED' }, 'campaign_link_status needs campaign_id'],
      [{ number: 14155550102 }, 'number must be a string'],
    ];
    for (const [body, message] of refusals) {
      const reply = await client.seedNumber(body);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorWith(message));
    }
  });

  it('removes a seeded number; 404 for an unknown one or account', async () => {
    await client.seedNumber({ number: '14155550199' });
    const path = `/__emulator/accounts/${client.account.authId}/numbers/14155550199/`;
    expect((await client.raw('DELETE', path)).status).toBe(200);
    expect((await client.raw('DELETE', path)).status).toBe(404);
    expect((await client.raw('POST', '/__emulator/accounts/NOBODY/numbers/', { number: '14155550100' })).status).toBe(
      404,
    );
  });
});

describe('Number API', () => {
  it('shows a number attached to an application, and one attached to an inbound trunk', async () => {
    await client.seedNumber({ number: '14155550110', app_id: app });
    await client.seedNumber({
      number: '14155550111',
      app_id: inbound,
      campaign_id: 'CMPGN03',
      campaign_link_status: 'COMPLETED',
    });
    const onApp = await client.get('/Number/14155550110/');
    expect(onApp.status).toBe(200);
    expect(onApp.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      number: '14155550110',
      added_on: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      application: `${client.base}/Application/${app}/`,
      number_type: 'local',
      voice_enabled: true,
      sms_enabled: true,
      tendlc_campaign_id: null,
      tendlc_registration_status: 'UNREGISTERED',
      resource_uri: `${client.base}/Number/14155550110/`,
    });
    expect((await client.get('/Number/+14155550111/')).body).toMatchObject({
      application: `${client.base}/Zentrunk/Trunk/${inbound}/`,
      tendlc_campaign_id: 'CMPGN03',
      tendlc_registration_status: 'COMPLETED',
    });
    expect((await client.get('/Number/19999999999/')).body).toEqual(errorWith('number 19999999999 not found'));
  });

  it('lists numbers, filtered by app_id', async () => {
    const other = await client.otherAccount('MANUMBERS00000000001', 'numbers-token');
    await other.seedNumber({ number: '14155550120', app_id: '77700000000000002' });
    await other.seedNumber({ number: '14155550121' });
    await other.seedNumber({ number: '14155550122', app_id: '77700000000000002' });
    const all = await other.get('/Number/');
    // The five numbers every account starts with, then the three seeded here.
    expect(all.body.meta).toEqual({ limit: 20, offset: 0, total_count: 8, previous: null, next: null });
    const filtered = await other.get('/Number/?app_id=77700000000000002&limit=1');
    expect(filtered.body.meta).toMatchObject({
      total_count: 2,
      next: `${other.base}/Number/?app_id=77700000000000002&limit=1&offset=1`,
    });
    expect(filtered.body.objects.map((n: { number: string }) => n.number)).toEqual(['14155550120']);
  });

  it('attaches a number to an inbound trunk or an application with 202, detaches with ""', async () => {
    await client.seedNumber({ number: '14155550130' });
    const reply = await client.post('/Number/14155550130/', { app_id: inbound });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ api_id: expect.stringMatching(uuidPattern), message: 'changed' });
    expect((await client.get('/Number/14155550130/')).body.application).toBe(
      `${client.base}/Zentrunk/Trunk/${inbound}/`,
    );
    expect((await client.post('/Number/14155550130/', { app_id: app })).status).toBe(202);
    expect((await client.get('/Number/14155550130/')).body.application).toBe(`${client.base}/Application/${app}/`);
    expect((await client.post('/Number/14155550130/', { alias: 'ignored', app_id: null })).status).toBe(202);
    expect((await client.get('/Number/14155550130/')).body.application).toBe(`${client.base}/Application/${app}/`);
    expect((await client.post('/Number/14155550130/', { app_id: '' })).status).toBe(202);
    expect((await client.get('/Number/14155550130/')).body.application).toBeNull();
  });

  it('refuses an outbound trunk or an unknown id with 400', async () => {
    await client.seedNumber({ number: '14155550131' });
    expect((await client.post('/Number/14155550131/', { app_id: outbound })).body).toEqual(
      errorWith(`trunk ${outbound} is outbound; only inbound trunks can be attached to phone numbers`),
    );
    expect((await client.post('/Number/14155550131/', { app_id: 12 })).body).toEqual(
      errorWith('app_id must be a string'),
    );
    expect((await client.post('/Number/14155550000/', { app_id: app })).status).toBe(404);
  });
});
