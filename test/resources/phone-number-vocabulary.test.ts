import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { liveContext } from '../../src/resources/live-side.js';
import { normalisePhoneNumber, phoneNumberLive } from '../../src/resources/phone-number-live.js';
import { InstantClock } from '../support/clock.js';

// Link statuses of real accounts: REGISTERED and null beside a campaign are links, not failures;
// a failed link whose reason cannot be read (the "not linked" answer as 400) is that number's only; UNREGISTERED
// beside a campaign id is a link unless the campaign's number route reports a failure.

describe('link statuses', () => {
  it('take REGISTERED as linked', () => {
    expect(
      normalisePhoneNumber({
        number: '14155550100',
        tendlc_campaign_id: 'CAMP001',
        tendlc_registration_status: 'REGISTERED',
      }),
    ).toEqual({
      id: '14155550100',
      spec: { number: '14155550100', campaign_id: 'CAMP001' },
      registry: { registration_status: 'REGISTERED' },
      facts: { linkedCampaign: 'CAMP001' },
    });
  });

  it('take a campaign without a status as linked, and COMPLETED without a campaign as no link', () => {
    expect(
      normalisePhoneNumber({ number: '14155550100', tendlc_campaign_id: 'CAMP001', tendlc_registration_status: null })
        .spec,
    ).toEqual({
      number: '14155550100',
      campaign_id: 'CAMP001',
    });
    expect(
      phoneNumberLive.readiness?.(
        normalisePhoneNumber({
          number: '14155550100',
          tendlc_campaign_id: 'CAMP001',
          tendlc_registration_status: null,
        }),
      ),
    ).toBe('ready');
    expect(
      normalisePhoneNumber({
        number: '14155550101',
        tendlc_campaign_id: null,
        tendlc_registration_status: 'COMPLETED',
      }),
    ).toEqual({
      id: '14155550101',
      spec: { number: '14155550101' },
      facts: {},
    });
  });
});

describe('a failed link whose reason cannot be read', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://fake');
      response.setHeader('content-type', 'application/json');
      if (url.pathname.endsWith('/Number/')) {
        response.end(
          JSON.stringify({
            meta: { total_count: 3, limit: 20, offset: 0 },
            objects: [
              { number: '14155550100', tendlc_campaign_id: 'CAMP001', tendlc_registration_status: 'FAILED' },
              { number: '14155550101', tendlc_campaign_id: 'CAMP001', tendlc_registration_status: 'COMPLETED' },
              { number: '+14155550102', tendlc_campaign_id: 'CAMP001', tendlc_registration_status: 'unregistered' },
            ],
          }),
        );
        return;
      }
      response.statusCode = 400;
      response.end(JSON.stringify({ api_id: 'x', error: 'The number 14155550100 is not linked to this campaign' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('marks that number failed with what the API said, and lists the others', async () => {
    const client = new ApiClient({
      baseUrl,
      credentials: { authId: 'MA1', authToken: 't' },
      clock: new InstantClock(),
    });
    try {
      const numbers = await phoneNumberLive.list(liveContext(client));
      expect(numbers.map((number) => [number.id, number.registry])).toEqual([
        [
          '14155550100',
          {
            registration_status: 'FAILED',
            error_reason:
              'the link to campaign CAMP001 failed (its reason could not be read: the API answered 400: The number 14155550100 is not linked to this campaign)',
          },
        ],
        ['14155550101', { registration_status: 'COMPLETED' }],
        // UNREGISTERED beside a campaign id is no failure; the route that could say more is unreadable: a link.
        ['14155550102', { registration_status: 'UNREGISTERED' }],
      ]);
      expect(numbers[2]?.spec).toEqual({ number: '14155550102', campaign_id: 'CAMP001' });
    } finally {
      await client.close();
    }
  });
});
