import { afterEach, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { drawLatency, formatLatency, resolveLatency } from '../../src/emulator/latency.js';
import { call } from './fixtures/http.js';

const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const aclPath = `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('--latency', () => {
  it('reads a fixed delay or a MIN-MAX range in milliseconds', () => {
    expect(resolveLatency('50')).toEqual({ minMs: 50, maxMs: 50 });
    expect(resolveLatency('20-80')).toEqual({ minMs: 20, maxMs: 80 });
    expect(resolveLatency('20 - 80ms')).toEqual({ minMs: 20, maxMs: 80 });
    expect(resolveLatency(15)).toEqual({ minMs: 15, maxMs: 15 });
    expect(resolveLatency('0')).toBeNull();
    expect(resolveLatency('none')).toBeNull();
    expect(formatLatency(resolveLatency('20-80'))).toBe('20-80');
  });

  it.each([
    ['abc', 'latency must be milliseconds (e.g. 50) or a range MIN-MAX (e.g. 20-80), not "abc"'],
    ['-5', 'latency must be milliseconds (e.g. 50) or a range MIN-MAX (e.g. 20-80), not "-5"'],
    ['80-20', 'the latency range 80-20 must not start above its end'],
    ['70000', 'latency must be whole milliseconds from 0 to 60000, not 70000'],
  ])('refuses %s', (value, message) => {
    expect(() => resolveLatency(value)).toThrow(message);
  });

  it('draws every delay of a range, and nothing outside it', () => {
    const settings = { minMs: 3, maxMs: 6 };
    let state = 0;
    const random = (): number => {
      state = (state + 0.137) % 1;
      return state;
    };
    const seen = new Set(Array.from({ length: 200 }, () => drawLatency(settings, random)));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('delays account requests by at least the minimum, and never the admin routes', async () => {
    emulator = await startEmulator({ latency: '120-150' });
    expect(await call(emulator.url, aclPath, { auth })).toMatchObject({ status: 200 });
    const [entry] = emulator.runtime.log.list({ type: 'request' });
    // Timers may fire up to a millisecond early; no upper bound is asserted (the machine is noisy).
    expect(entry?.duration_ms).toBeGreaterThanOrEqual(119);
    expect(await call(emulator.url, '/__emulator/faults/')).toMatchObject({
      status: 200,
      body: { latency: { spec: '120-150', min_ms: 120, max_ms: 150 } },
    });
  });

  it('can be changed at run time', async () => {
    emulator = await startEmulator();
    const changed = await call(emulator.url, '/__emulator/faults/', { method: 'POST', body: { latency: 130 } });
    expect(changed).toMatchObject({ status: 200, body: { latency: { min_ms: 130, max_ms: 130 } } });
    await call(emulator.url, aclPath, { auth });
    expect(emulator.runtime.log.list()[0]?.duration_ms).toBeGreaterThanOrEqual(129);
  });
});
