import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { systemClock } from '../../src/util/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RequestLogEntry } from '../../src/emulator/request-log.js';
import { trunkIpAcl } from '../../src/resources/trunk-ip-acl.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Pages: listing 1,000 objects of one kind takes ceil(1000/20) = 50 requests, the
 * pages after the first fetched concurrently. The evidence is the emulator's request log.
 */
let emulator: RunningEmulator;
let client: ApiClient;
const count = 1_000;

beforeAll(async () => {
  emulator = await startEmulator();
  const credentials = { authId: defaultAccount.authId, authToken: defaultAccount.authToken };
  const seeder = new ApiClient({
    baseUrl: emulator.url,
    credentials,
    limiter: new Limiter({ concurrency: 16, requests: 100_000, periodMs: 1_000 }, systemClock),
  });
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      seeder.request('POST', '/Zentrunk/IPAccessControlList/', {
        body: { name: `acl-${index}`, ip_addresses: [`10.${index >> 8}.${index & 255}.1`] },
        mode: 'create',
      }),
    ),
  );
  await seeder.close();
  // Default client limits: 8 requests in flight, 300 per 5 s (docs/commands.md, connecting to the API).
  client = new ApiClient({ baseUrl: emulator.url, credentials });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

/** When the emulator started and finished handling a logged request, in ms of its clock. */
function interval(entry: RequestLogEntry): { start: number; end: number } {
  const end = Date.parse(entry.at);
  return { start: end - entry.duration_ms, end };
}

describe('listing 1,000 trunk ACLs', () => {
  it('takes exactly 50 page requests, the first alone and the other 49 concurrently', async () => {
    emulator.runtime.log.clear();
    // Every request takes 25 ms in the emulator, so requests sent together overlap there.
    emulator.controls.update({ latency: '25' });
    const objects = await trunkIpAcl.live.list(liveContext(client));
    emulator.controls.clear();

    expect(objects).toHaveLength(count);
    expect(new Set(objects.map((object) => object.id)).size).toBe(count);
    const pages = emulator.runtime.log.list({ type: 'request' });
    expect(pages).toHaveLength(Math.ceil(count / 20));
    expect(
      pages.every(
        (entry) =>
          entry.method === 'GET' && entry.path === `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`,
      ),
    ).toBe(true);
    const offsets = pages.map((entry) => new URLSearchParams(entry.query).get('offset'));
    expect(offsets.sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 50 }, (_, index) => String(index * 20)),
    );
    expect(pages.every((entry) => new URLSearchParams(entry.query).get('limit') === '20')).toBe(true);

    const first = pages.find((entry) => entry.query.includes('offset=0'));
    if (!first) throw new Error('no first page');
    const rest = pages.filter((entry) => entry !== first).map(interval);
    // The rest is asked for only once the first page has told total_count (1 ms: the log's resolution).
    expect(rest.every((page) => page.start >= interval(first).end - 1)).toBe(true);
    // Concurrency: the most later pages being handled at one moment (a sweep over starts and ends).
    const events = rest.flatMap((page) => [
      { at: page.start, step: 1 },
      { at: page.end, step: -1 },
    ]);
    events.sort((a, b) => a.at - b.at || a.step - b.step);
    let inFlight = 0;
    let mostAtOnce = 0;
    for (const event of events) mostAtOnce = Math.max(mostAtOnce, (inFlight += event.step));
    expect(mostAtOnce).toBeGreaterThan(1);
  });
});
