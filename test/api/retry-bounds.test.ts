import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Clock } from '../../src/util/clock.js';
import { ApiRequestError, OutcomeUnknownError, RetriesExhaustedError } from '../../src/api/errors.js';
import { defaultRetryPolicy } from '../../src/api/retry.js';
import { createWithRecovery, deleteIdempotent } from '../../src/api/writes.js';
import { seededRandom } from '../../src/emulator/faults.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { clientFor } from '../support/emulator.js';
import { emulatorClock } from '../support/clock.js';

/**
 * Against the emulator: retries are bounded, 4xx other than 429 are not
 * retried, `Retry-After` is honoured, a billable request is never re-sent after it may have reached
 * the API, a create is looked up before it is re-sent, a DELETE answering 404 on retry has succeeded.
 */
let emulator: RunningEmulator;
let client: ApiClient;
const slept: number[] = [];
const base = `/v1/Account/${defaultAccount.authId}`;

beforeAll(async () => {
  emulator = await startEmulator();
  const tied = emulatorClock(emulator);
  const clock: Clock = { now: tied.now, sleep: (milliseconds) => (slept.push(milliseconds), tied.sleep(milliseconds)) };
  client = clientFor(emulator, { clock });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(() => {
  emulator.controls.clear();
  emulator.runtime.log.clear();
  slept.length = 0;
});

function logged(): string[] {
  return emulator.runtime.log
    .list({ type: 'request' })
    .map(
      (entry) =>
        `${entry.method} ${entry.path.slice(base.length)} ${entry.status ?? '-'}${entry.fault ? ` ${entry.fault}` : ''}`,
    );
}

async function newAcl(name: string): Promise<string> {
  const response = await client.request<{ ipacl_uuid: string }>('POST', '/Zentrunk/IPAccessControlList/', {
    body: { name, ip_addresses: ['192.0.2.1'] },
    mode: 'create',
  });
  emulator.runtime.log.clear();
  return response.body.ipacl_uuid;
}

describe('retries against a failing emulator', () => {
  it('gives up on an endpoint that always fails after the policy attempts, within its time', async () => {
    emulator.controls.update({ faults: '500=1' });
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect((failure as Error).message).toBe(
      'GET /Zentrunk/Trunk/ failed after 6 attempts: HTTP 500: internal server error (injected fault)',
    );
    expect(logged()).toEqual(Array(defaultRetryPolicy.maxAttempts).fill('GET /Zentrunk/Trunk/ 500 error500'));
    expect(slept).toHaveLength(defaultRetryPolicy.maxAttempts - 1);
    expect(slept.reduce((sum, delay) => sum + delay, 0)).toBeLessThanOrEqual(defaultRetryPolicy.maxTotalMs);
  });

  it('does not retry a 4xx other than 429', async () => {
    const failure = await client.get('/Zentrunk/Trunk/12345/').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect((failure as ApiRequestError).status).toBe(404);
    expect(logged()).toEqual(['GET /Zentrunk/Trunk/12345/ 404']);
    expect(slept).toEqual([]);
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    emulator.controls.update({ rate_limit: '1/10s' });
    await client.get('/Zentrunk/Trunk/');
    await client.get('/Zentrunk/Trunk/');
    expect(logged()).toEqual([
      'GET /Zentrunk/Trunk/ 200',
      'GET /Zentrunk/Trunk/ 429 rate_limited',
      'GET /Zentrunk/Trunk/ 200',
    ]);
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(9_000);
  });

  it('gives up at once when Retry-After asks for more than the time left', async () => {
    emulator.controls.update({ rate_limit: '1/2m' });
    await client.get('/Zentrunk/Trunk/');
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect((failure as Error).message).toBe(
      'GET /Zentrunk/Trunk/ failed after 1 attempt: HTTP 429: too many requests: the rate limit of this account is exceeded, retry later',
    );
    expect(slept).toEqual([]);
  });

  it('never re-sends a billable request that may have reached the API, whatever the fault', async () => {
    const id = await newAcl('billable');
    for (const fault of ['500=1', 'lost=1', 'reset=1']) {
      emulator.controls.update({ faults: `${fault},methods=POST` });
      const failure = await client
        .request('POST', `/Zentrunk/IPAccessControlList/${id}/`, { body: { name: 'renamed' }, mode: 'billable' })
        .catch((error: unknown) => error);
      expect(failure, fault).toBeInstanceOf(OutcomeUnknownError);
    }
    expect(logged()).toEqual([
      `POST /Zentrunk/IPAccessControlList/${id}/ 500 error500`,
      `POST /Zentrunk/IPAccessControlList/${id}/ 202 lost_response`,
      `POST /Zentrunk/IPAccessControlList/${id}/ - reset`,
    ]);
    expect(slept).toEqual([]);
  });

  it('retries a billable request refused with 429, since the API did not process it', async () => {
    const id = await newAcl('billable-429');
    emulator.controls.update({ rate_limit: '1/1s' });
    await client.get('/Zentrunk/Trunk/');
    await client.request('POST', `/Zentrunk/IPAccessControlList/${id}/`, {
      body: { name: 'renamed' },
      mode: 'billable',
    });
    expect(logged().slice(1)).toEqual([
      `POST /Zentrunk/IPAccessControlList/${id}/ 429 rate_limited`,
      `POST /Zentrunk/IPAccessControlList/${id}/ 202`,
    ]);
  });

  it('bounds the creates it re-sends when each answer is a 500, looking up between attempts', async () => {
    emulator.controls.update({ faults: '500=1,methods=POST' });
    const failure = await createWithRecovery(
      client,
      '/Zentrunk/Credential/',
      { username: 'bounded1', password: 'B0unded!' },
      async () => undefined,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect(logged()).toEqual(Array(4).fill('POST /Zentrunk/Credential/ 500 error500'));
  });

  it('counts a DELETE answered 404 on its retry as done', async () => {
    const id = await newAcl('lost-delete');
    // A seed whose first draw loses the answer and whose second does not.
    const seed = Array.from({ length: 1_000 }, (_, index) => index).find((candidate) => {
      const draw = seededRandom(candidate);
      return draw() < 0.5 && draw() >= 0.5;
    });
    emulator.controls.update({ faults: `lost=0.5,methods=DELETE,seed=${String(seed)}` });
    await expect(deleteIdempotent(client, `/Zentrunk/IPAccessControlList/${id}/`)).resolves.toEqual({
      alreadyGone: true,
    });
    expect(logged()).toEqual([
      `DELETE /Zentrunk/IPAccessControlList/${id}/ 204 lost_response`,
      `DELETE /Zentrunk/IPAccessControlList/${id}/ 404`,
    ]);
  });
});
