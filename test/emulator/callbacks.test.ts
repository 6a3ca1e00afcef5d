import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as plivo from 'plivo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbacksSettled } from '../../src/emulator/callbacks.js';
import { isLoopbackHost } from '../../src/emulator/loopback.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { Receiver } from './fixtures/callback-receiver.js';
import {
  freshAccount,
  rawRequest,
  seeded,
  startTendlcEmulator,
  testRegistryDelayMs,
  type TendlcClient,
} from './tendlc-client.js';

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

async function callbackLog(client: TendlcClient): Promise<Record<string, unknown>[]> {
  await callbacksSettled(emulator.runtime);
  const reply = await rawRequest(emulator, 'GET', `/__emulator/requests/?type=callback&account=${client.authId}`);
  return reply.body.requests;
}

const isoTimestamp = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('brand status callbacks', () => {
  it('POSTs created at once, then registered when the registry completes the brand, each once', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0], 'acme', { url: `${receiver.url}/brand-status?tag=1` });
    const created = await receiver.take('/brand-status');
    expect(created.method).toBe('POST');
    expect(created.url.pathname).toBe('/brand-status');
    expect(created.url.searchParams.get('tag')).toBe('1');
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({
      type: 'brand',
      brand_id: brandId,
      status: 'created',
      registration_status: 'PROCESSING',
      timestamp: isoTimestamp,
    });

    await client.advance(testRegistryDelayMs);
    const registered = await receiver.take('/brand-status');
    expect(registered.body).toEqual({
      type: 'brand',
      brand_id: brandId,
      status: 'registered',
      registration_status: 'COMPLETED',
      timestamp: isoTimestamp,
    });
    expect(Date.parse(registered.body.timestamp) - Date.parse(created.body.timestamp)).toBe(testRegistryDelayMs);

    await client.get(`/10dlc/Brand/${brandId}/`);
    await client.get('/10dlc/Brand/');
    await client.advance(testRegistryDelayMs);
    const log = await callbackLog(client);
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({
      type: 'callback',
      account: client.authId,
      method: 'POST',
      path: `${receiver.url}/brand-status`,
      status: 200,
      delivered: true,
    });
  });

  it('sends rejected with the declined_reasons of a declined brand', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0], 'decline-me', { url: `${receiver.url}/declined` });
    expect((await receiver.take('/declined')).body.status).toBe('created');
    await client.advance(testRegistryDelayMs);
    const rejected = await receiver.take('/declined');
    expect(rejected.body).toEqual({
      type: 'brand',
      brand_id: brandId,
      status: 'rejected',
      registration_status: 'FAILED',
      timestamp: isoTimestamp,
      declined_reasons: [{ code: 'TCR_IDENTITY_MISMATCH', message: expect.stringContaining('decline') }],
    });
  });

  it('fires from a plain read once the status has changed (no clock route needed)', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.createBrand(seeded.withEin[0], 'lazy', { url: `${receiver.url}/lazy` });
    expect((await receiver.take('/lazy')).body.status).toBe('created');
    emulator.runtime.advanceClock(testRegistryDelayMs);
    await client.get(`/10dlc/Brand/${brandId}/`);
    expect((await receiver.take('/lazy')).body).toMatchObject({ brand_id: brandId, status: 'registered' });
  });

  it('signs each callback with the account auth token like production (X-Plivo-Signature-V2)', async () => {
    const client = await freshAccount(emulator);
    await client.createBrand(seeded.withEin[0], 'signed', { url: `${receiver.url}/signed?x=1` });
    const created = await receiver.take('/signed');
    const signature = created.headers['x-plivo-signature-v2'] as string;
    const nonce = created.headers['x-plivo-signature-v2-nonce'] as string;
    expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(created.headers['x-plivo-signature-ma-v2']).toBe(signature);
    expect(plivo.validateSignature(`${receiver.url}/signed?x=1`, nonce, signature, client.authToken)).toBe(true);
    expect(plivo.validateSignature(`${receiver.url}/signed`, nonce, signature, 'another-token')).toBe(false);
  });
});

describe('campaign status callbacks', () => {
  it('GETs created, registered and expired with the payload in the query string', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const campaignId = await client.createCampaign(brandId, {
      campaign_alias: 'will-expire',
      url: `${receiver.url}/campaign-status?key=rcv-token`,
      method: 'GET',
    });
    const statuses: string[] = [];
    for (const advance of [0, testRegistryDelayMs, testRegistryDelayMs]) {
      if (advance > 0) await client.advance(advance);
      const received = await receiver.take('/campaign-status');
      expect(received.method).toBe('GET');
      expect(received.body).toBeUndefined();
      expect(received.url.pathname).toBe('/campaign-status');
      expect(received.url.searchParams.get('type')).toBe('campaign');
      expect(received.url.searchParams.get('campaign_id')).toBe(campaignId);
      expect(received.url.searchParams.get('brand_id')).toBe(brandId);
      expect(received.url.searchParams.get('key')).toBe('rcv-token');
      statuses.push(
        `${received.url.searchParams.get('status')}:${received.url.searchParams.get('registration_status')}`,
      );
    }
    expect(statuses).toEqual(['created:PROCESSING', 'registered:ACTIVE', 'expired:EXPIRED']);
    const log = await callbackLog(client);
    expect(log.filter((entry) => entry.path === `${receiver.url}/campaign-status`)).toHaveLength(3);
    expect(JSON.stringify(log)).not.toContain('rcv-token');
  });

  it('sends rejected with error_code and error_reason, and a new round after an update', async () => {
    const client = await freshAccount(emulator);
    const brandId = await client.completedBrand();
    const campaignId = await client.createCampaign(brandId, { campaign_alias: 'decline-me', url: `${receiver.url}/c` });
    expect((await receiver.take('/c')).body.status).toBe('created');
    await client.advance(testRegistryDelayMs);
    const rejected = await receiver.take('/c');
    expect(rejected.body).toEqual({
      type: 'campaign',
      campaign_id: campaignId,
      brand_id: brandId,
      status: 'rejected',
      registration_status: 'FAILED',
      timestamp: isoTimestamp,
      error_code: 'CAMPAIGN_VETTING_DECLINED',
      error_reason: expect.stringContaining('decline'),
    });
    expect((await client.post(`/10dlc/Campaign/${campaignId}/`, { campaign_alias: 'fixed' })).status).toBe(200);
    expect((await receiver.take('/c')).body).toMatchObject({ status: 'created', registration_status: 'PROCESSING' });
    await client.advance(testRegistryDelayMs);
    expect((await receiver.take('/c')).body).toMatchObject({ status: 'registered', registration_status: 'ACTIVE' });
  });

  it('sends callbacks of an imported campaign', async () => {
    const client = await freshAccount(emulator);
    await client.post('/10dlc/Campaign/Import/', {
      campaign_id: 'CCALLBK',
      campaign_alias: 'imported',
      url: `${receiver.url}/i`,
    });
    expect((await receiver.take('/i')).body).toMatchObject({
      campaign_id: 'CCALLBK',
      brand_id: 'BCALLBK',
      status: 'created',
    });
  });
});

describe('callback delivery', () => {
  it('records a callback to a non-loopback host as not delivered, without the URL credentials', async () => {
    const client = await freshAccount(emulator);
    await client.createBrand(seeded.withEin[0], 'remote', {
      url: 'http://user:s3cret@203.0.113.7:8080/hook?token=abc',
    });
    await client.createBrand(seeded.withEin[1], 'named', { url: 'https://example.com/hook' });
    const log = await callbackLog(client);
    expect(log).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: 'http://203.0.113.7:8080/hook',
        query: '',
        status: null,
        delivered: false,
        note: 'not delivered: 203.0.113.7 is not a loopback host (callbacks go to 127.0.0.0/8, localhost and ::1 only)',
      }),
      expect.objectContaining({
        path: 'https://example.com/hook',
        delivered: false,
        note: 'not delivered: example.com is not a loopback host (callbacks go to 127.0.0.0/8, localhost and ::1 only)',
      }),
    ]);
    expect(JSON.stringify(log)).not.toContain('s3cret');
  });

  it('sends URL credentials to a loopback receiver as Basic auth and keeps them out of the log', async () => {
    const client = await freshAccount(emulator);
    const url = receiver.url.replace('http://', 'http://hook:pa55word@');
    await client.createBrand(seeded.withEin[0], 'basic', { url: `${url}/auth` });
    const created = await receiver.take('/auth');
    expect(created.headers.authorization).toBe(`Basic ${Buffer.from('hook:pa55word').toString('base64')}`);
    expect(JSON.stringify(await callbackLog(client))).not.toContain('pa55word');
  });

  it('sends URL credentials that are not valid percent-encoding as written', async () => {
    const client = await freshAccount(emulator);
    const url = receiver.url.replace('http://', 'http://%zz:50%@');
    await client.createBrand(seeded.withEin[0], 'raw-userinfo', { url: `${url}/raw-userinfo` });
    const created = await receiver.take('/raw-userinfo');
    expect(created.headers.authorization).toBe(`Basic ${Buffer.from('%zz:50%').toString('base64')}`);
  });

  it('records the answer of a receiver that fails, and a receiver that cannot be reached', async () => {
    const client = await freshAccount(emulator);
    receiver.status = 500;
    try {
      await client.createBrand(seeded.withEin[0], 'five-hundred', { url: `${receiver.url}/fails` });
      await receiver.take('/fails');
    } finally {
      receiver.status = 200;
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await client.createBrand(seeded.withEin[1], 'unreachable', { url: `http://127.0.0.1:${port}/gone` });
    const log = await callbackLog(client);
    expect(log[0]).toMatchObject({
      status: 500,
      delivered: true,
      note: 'the receiver answered 500; callbacks are not retried',
    });
    expect(log[1]).toMatchObject({ status: null, delivered: false, note: expect.stringMatching(/^not delivered: /) });
  });

  it('goes out from the sweep timer when nobody reads', async () => {
    const quick = await startTendlcEmulator({ registryDelayMs: 50 });
    try {
      const client = await freshAccount(quick);
      await client.createBrand(seeded.withEin[0], 'timer', { url: `${receiver.url}/timer` });
      expect((await receiver.take('/timer')).body.status).toBe('created');
      expect((await receiver.take('/timer')).body.status).toBe('registered');
    } finally {
      await quick.close();
    }
  });
});

describe('loopback hosts', () => {
  it.each(['127.0.0.1', '127.1.2.3', '127.255.255.254', 'localhost', 'LOCALHOST', '[::1]', '::1'])(
    'accepts %s',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    '128.0.0.1',
    '10.0.0.1',
    '0.0.0.0',
    '203.0.113.7',
    'example.com',
    'localhost.example.com',
    '[::]',
    '[::ffff:7f00:1]',
    '127.example.com',
  ])('refuses %s', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });

  it('sees through the URL parser normalising numeric hosts', () => {
    expect(isLoopbackHost(new URL('http://2130706433/').hostname)).toBe(true);
    expect(isLoopbackHost(new URL('http://0x7f.1/').hostname)).toBe(true);
    expect(isLoopbackHost(new URL('http://[0:0:0:0:0:0:0:1]/').hostname)).toBe(true);
  });
});
