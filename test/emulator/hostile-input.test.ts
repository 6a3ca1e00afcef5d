import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CoreClient, startCoreEmulator } from './core-client.js';

/**
 * Requests meant to break the emulator: clock moves out of range, malformed percent-encodings, random
 * admin requests. Each is refused (or served) and the emulator keeps serving; nothing reaches stderr.
 */

let client: CoreClient;
const stderrWrites: string[] = [];

beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  stderrWrites.length = 0;
});

function watchStderr(): void {
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderrWrites.push(String(chunk));
    return true;
  });
}

/** The emulator still serves: health, an authenticated read and a write. */
async function expectServing(): Promise<void> {
  const health = await client.raw('GET', '/__emulator/health/');
  expect(health.status).toBe(200);
  expect(Number.isNaN(Date.parse(health.body.now as string))).toBe(false);
  expect((await client.get('/Zentrunk/IPAccessControlList/')).status).toBe(200);
  expect((await client.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['10.0.0.1'] })).status).toBe(201);
}

const clockMessage =
  'advance_ms must be a non-negative number of milliseconds that keeps the clock before the year 10000';

describe('the admin clock route', () => {
  it.each([1e308, 9e15, 8.64e15, Number.MAX_SAFE_INTEGER, Date.UTC(10000, 0, 1)])(
    'refuses advance_ms %d with 400 and keeps serving',
    async (advance) => {
      watchStderr();
      const reply = await client.raw('POST', '/__emulator/clock/', { advance_ms: advance });
      expect(reply).toMatchObject({ status: 400, body: { error: clockMessage } });
      expect(Object.keys(reply.body)).toEqual(['api_id', 'error']);
      await expectServing();
      expect(stderrWrites).toEqual([]);
    },
  );

  it.each([-1, '5000', null, Number.NaN])('refuses advance_ms %j with 400', async (advance) => {
    const reply = await client.raw('POST', '/__emulator/clock/', { advance_ms: advance });
    expect(reply).toMatchObject({ status: 400, body: { error: clockMessage } });
  });

  it('still moves the clock by an ordinary amount', async () => {
    const before = Date.parse((await client.raw('GET', '/__emulator/health/')).body.now as string);
    const reply = await client.raw('POST', '/__emulator/clock/', { advance_ms: 86_400_000 });
    expect(reply.status).toBe(200);
    expect(Date.parse(reply.body.now as string) - before).toBeGreaterThanOrEqual(86_400_000);
  });
});

describe('a malformed percent-encoding in a path', () => {
  it.each([
    ['an account route', () => `${client.base}/Zentrunk/Trunk/%zz/`, true],
    ['a number', () => `${client.base}/Number/%E0%A4%A/`, true],
    ['the auth id', () => '/v1/Account/%zz/Zentrunk/Trunk/', true],
    ['an admin route', () => '/__emulator/accounts/%zz/numbers/', false],
  ])('in %s is a 400 naming the segment, with nothing on stderr', async (_what, path, authenticated) => {
    watchStderr();
    const target = path();
    const headers: Record<string, string> = authenticated ? { authorization: client.authorization() } : {};
    const reply = await client.raw('GET', target, undefined, headers);
    const segment = target.split('/').find((part) => part.includes('%')) as string;
    expect(reply).toMatchObject({
      status: 400,
      body: { error: `the path segment "${segment}" is not valid percent-encoding` },
    });
    expect(Object.keys(reply.body)).toEqual(['api_id', 'error']);
    expect(stderrWrites).toEqual([]);
    await expectServing();
  });
});

describe('random admin requests', () => {
  it('never answer 500 and never stop the emulator from serving', async () => {
    const authId = client.account.authId;
    const paths = [
      '/__emulator/health/',
      '/__emulator/requests/',
      '/__emulator/clock/',
      '/__emulator/accounts/',
      `/__emulator/accounts/${authId}/billing/`,
      `/__emulator/accounts/${authId}/numbers/`,
      `/__emulator/accounts/${authId}/numbers/14155550123/`,
      `/__emulator/accounts/${authId}/applications/`,
      '/__emulator/faults/',
    ];
    const keys = [
      'advance_ms',
      'auth_id',
      'auth_token',
      'number',
      'app_id',
      'campaign_id',
      'campaign_link_status',
      'faults',
      'latency',
      'rate_limit',
      'app_name',
      'answer_url',
    ];
    const huge = fc.constantFrom(
      1e308,
      -1e308,
      9e15,
      Number.MAX_SAFE_INTEGER,
      2 ** 31,
      'none',
      '0-60000',
      '1/1h',
      'lost=1',
      '',
    );
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), huge);
    const query = fc.dictionary(
      fc.constantFrom('since_seq', 'type', 'account'),
      fc.oneof(fc.string({ maxLength: 5 }), fc.constant('1e308')),
      { maxKeys: 2 },
    );
    watchStderr();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE'),
        fc.constantFrom(...paths),
        fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }),
        query,
        async (method, path, body, search) => {
          const target = `${path}?${new URLSearchParams(search).toString()}`;
          const reply = await client.raw(method, target, method === 'GET' ? undefined : body);
          expect(reply.status, `${method} ${target} ${JSON.stringify(body)}`).toBeLessThan(500);
          // Whatever the request changed, faults are switched off again so the check below means "not wedged".
          await client.raw('DELETE', '/__emulator/faults/');
          await expectServing();
        },
      ),
      { numRuns: 120 },
    );
    expect(stderrWrites).toEqual([]);
  });
});
