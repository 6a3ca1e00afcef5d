import { describe, expect, it } from 'vitest';
import type { ServeEvent } from '../../src/serve/model.js';
import { WebhookNotifier } from '../../src/serve/notifier.js';
import { ManualClock, settle } from '../support/clock.js';

const event = (id: string): ServeEvent => ({
  id,
  at: '2026-01-01T00:00:00.000Z',
  account: 'acme',
  cause: 'interval',
  type: 'apply_held',
  changes: [],
  reasons: [],
});

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    report: {
      delivered: (e: ServeEvent, attempts: number) => lines.push(`delivered ${e.id} after ${attempts}`),
      failed: (e: ServeEvent, attempts: number, reason: string) =>
        lines.push(`failed ${e.id} after ${attempts}: ${reason}`),
      dropped: (e: ServeEvent) => lines.push(`dropped ${e.id}`),
    },
  };
}

describe('WebhookNotifier', () => {
  it('publishes without waiting, sends in order, and retries with growing delays until the receiver takes it', async () => {
    const clock = new ManualClock(0);
    const answers = [503, 429, 200, 200];
    const posts: Array<{ at: number; body: string }> = [];
    const { lines, report } = recorder();
    const notifier = new WebhookNotifier(
      {
        url: 'http://127.0.0.1:9/hook',
        clock,
        baseDelayMs: 100,
        random: () => 1,
        post: async (_url, body) => (posts.push({ at: clock.now(), body }), answers.shift() ?? 200),
      },
      report,
    );
    notifier.publish(event('e-1'));
    notifier.publish(event('e-2'));
    expect(notifier.waiting).toBe(2);
    await settle();
    await clock.advance(100);
    await clock.advance(200);
    expect(posts.map(({ at, body }) => `${at} ${(JSON.parse(body) as ServeEvent).id}`)).toEqual([
      '0 e-1',
      '100 e-1',
      '300 e-1',
      '300 e-2',
    ]);
    expect(lines).toEqual(['delivered e-1 after 3', 'delivered e-2 after 1']);
    expect(notifier.waiting).toBe(0);
  });

  it('gives up an event the receiver refuses (4xx) or that fails every attempt, and goes on with the next', async () => {
    const clock = new ManualClock(0);
    const answers: Array<number | Error> = [400, new Error('ECONNREFUSED'), new Error('ECONNREFUSED'), 204];
    const { lines, report } = recorder();
    const notifier = new WebhookNotifier(
      {
        url: 'http://127.0.0.1:9/hook',
        clock,
        attempts: 2,
        baseDelayMs: 10,
        random: () => 0,
        post: async () => {
          const answer = answers.shift() ?? 200;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
      report,
    );
    for (const id of ['e-1', 'e-2', 'e-3']) notifier.publish(event(id));
    await settle();
    await clock.advance(1_000);
    expect(lines).toEqual([
      'failed e-1 after 1: the receiver answered 400',
      'failed e-2 after 2: ECONNREFUSED',
      'delivered e-3 after 1',
    ]);
  });

  it('drops the oldest waiting event past its queue limit, and close gives up what is left within its grace', async () => {
    const clock = new ManualClock(0);
    const { lines, report } = recorder();
    const notifier = new WebhookNotifier(
      {
        url: 'http://127.0.0.1:9/hook',
        clock,
        queueLimit: 2,
        baseDelayMs: 1_000,
        random: () => 0,
        post: async () => 503,
      },
      report,
    );
    // e-1 is being sent at once; of e-2 to e-4 waiting behind it, the oldest goes.
    for (const id of ['e-1', 'e-2', 'e-3', 'e-4']) notifier.publish(event(id));
    expect(lines).toEqual(['dropped e-2']);
    expect(notifier.waiting).toBe(3);
    await settle();
    const closing = notifier.close(5_000);
    await clock.advance(5_000);
    await closing;
    expect(lines.slice(1).sort()).toEqual([
      // Attempts at 0, 500, 1500 and 3500 ms; the next would come after the grace.
      'failed e-1 after 4: the receiver answered 503',
      'failed e-3 after 0: serve stopped before it was sent',
      'failed e-4 after 0: serve stopped before it was sent',
    ]);
    notifier.publish(event('e-5'));
    expect(notifier.waiting).toBe(0);
  });

  it('never logs the user info or query string of its URL when a delivery fails', async () => {
    const clock = new ManualClock(0);
    const { lines, report } = recorder();
    // Real fetch, which refuses a URL with credentials before sending anything, naming the URL.
    const notifier = new WebhookNotifier(
      { url: 'http://hook-user:s3cret-pass@127.0.0.1:9/hook?token=t0ken-value', clock, attempts: 1 },
      report,
    );
    notifier.publish(event('e-1'));
    for (let round = 0; round < 20 && lines.length === 0; round += 1) await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^failed e-1 after 1: /);
    expect(lines[0]).not.toContain('s3cret-pass');
    expect(lines[0]).not.toContain('hook-user');
    expect(lines[0]).not.toContain('t0ken-value');
  });
});
