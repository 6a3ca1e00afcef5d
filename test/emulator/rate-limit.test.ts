import { afterEach, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { RateLimiter, formatRateLimit, resolveRateLimit } from '../../src/emulator/rate-limit.js';
import { call, callMany, isFailure, type HttpAnswer } from './fixtures/http.js';

const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const other = ['MAOTHER0000000000002', 'other-token'] as const;
const aclPath = (authId: string): string => `/v1/Account/${authId}/Zentrunk/IPAccessControlList/`;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('--rate-limit', () => {
  it('reads N/PERIOD', () => {
    expect(resolveRateLimit('300/5s')).toEqual({ limit: 300, periodMs: 5000 });
    expect(resolveRateLimit('10/s')).toEqual({ limit: 10, periodMs: 1000 });
    expect(resolveRateLimit('1000/1m')).toEqual({ limit: 1000, periodMs: 60_000 });
    expect(resolveRateLimit('50/500ms')).toEqual({ limit: 50, periodMs: 500 });
    expect(resolveRateLimit('none')).toBeNull();
    expect(formatRateLimit({ limit: 300, periodMs: 5000 })).toBe('300/5s');
    expect(formatRateLimit({ limit: 5, periodMs: 250 })).toBe('5/250ms');
  });

  it.each([
    ['300', 'rate limit must be REQUESTS/PERIOD such as 300/5s, 10/s or 1000/1m, not "300"'],
    ['300/5x', 'rate limit must be REQUESTS/PERIOD such as 300/5s, 10/s or 1000/1m, not "300/5x"'],
    ['0/5s', 'the rate limit must allow at least 1 request per period, not 0'],
  ])('refuses %s', (value, message) => {
    expect(() => resolveRateLimit(value)).toThrow(message);
  });

  it('slides its window: a slot frees when the oldest admission is one period old', () => {
    const limiter = new RateLimiter({ limit: 2, periodMs: 1000 });
    expect(limiter.admit('A', 0)).toEqual({ admitted: true });
    expect(limiter.admit('A', 400)).toEqual({ admitted: true });
    expect(limiter.admit('A', 500)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(limiter.admit('B', 500)).toEqual({ admitted: true });
    expect(limiter.admit('A', 1000)).toEqual({ admitted: true });
    expect(limiter.admit('A', 1001)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(limiter.admit('A', 1400)).toEqual({ admitted: true });
  });

  it('rounds Retry-After up to whole seconds', () => {
    const limiter = new RateLimiter({ limit: 1, periodMs: 5000 });
    limiter.admit('A', 0);
    expect(limiter.admit('A', 100)).toEqual({ admitted: false, retryAfterSeconds: 5 });
    expect(limiter.admit('A', 4100)).toEqual({ admitted: false, retryAfterSeconds: 1 });
  });
});

describe('rate limiting over HTTP', () => {
  it('answers 429 with Retry-After beyond the limit, per account, until the window moves on', async () => {
    // Production's 300 requests, over a minute rather than 5 s so that a slow machine cannot let the
    // window slide during the burst.
    emulator = await startEmulator({
      rateLimit: '300/60s',
      accounts: [{ ...defaultAccount }, { authId: other[0], authToken: other[1] }],
    });
    const answers = (await callMany(320, 8, () =>
      call(emulator!.url, aclPath(defaultAccount.authId), { auth }),
    )) as HttpAnswer[];
    expect(answers.some(isFailure)).toBe(false);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(300);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({
        error: 'too many requests: the rate limit of this account is exceeded, retry later',
      });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    const log = emulator.runtime.log.list({ account: defaultAccount.authId });
    expect(log.filter((entry) => entry.fault === 'rate_limited' && entry.status === 429)).toHaveLength(20);

    // Another account has its own window.
    expect(await call(emulator.url, aclPath(other[0]), { auth: other })).toMatchObject({ status: 200 });
    // Once the emulator's clock has moved one period on, the account is admitted again.
    emulator.runtime.advanceClock(60_000);
    expect(await call(emulator.url, aclPath(defaultAccount.authId), { auth })).toMatchObject({ status: 200 });
  });

  it('can be set and lifted at run time', async () => {
    emulator = await startEmulator();
    const set = await call(emulator.url, '/__emulator/faults/', { method: 'POST', body: { rate_limit: '2/1m' } });
    expect(set).toMatchObject({ status: 200, body: { rate_limit: { spec: '2/60s', limit: 2, period_ms: 60_000 } } });
    await call(emulator.url, aclPath(defaultAccount.authId), { auth });
    await call(emulator.url, aclPath(defaultAccount.authId), { auth });
    const refused = await call(emulator.url, aclPath(defaultAccount.authId), { auth });
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': '60' } });
    await call(emulator.url, '/__emulator/faults/', { method: 'POST', body: { rate_limit: null } });
    expect(await call(emulator.url, aclPath(defaultAccount.authId), { auth })).toMatchObject({ status: 200 });
  });

  it('does not count requests that fail authentication', async () => {
    emulator = await startEmulator({ rateLimit: { limit: 1, periodMs: 60_000 } });
    const wrong = await call(emulator.url, aclPath(defaultAccount.authId), { auth: [defaultAccount.authId, 'nope'] });
    expect(wrong).toMatchObject({ status: 401 });
    expect(await call(emulator.url, aclPath(defaultAccount.authId), { auth })).toMatchObject({ status: 200 });
  });
});
