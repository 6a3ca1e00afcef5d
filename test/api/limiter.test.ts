import { describe, expect, it } from 'vitest';
import { Limiter, parseRateLimit } from '../../src/api/limiter.js';
import { ManualClock } from '../support/clock.js';

describe('Limiter', () => {
  it('never runs more tasks at once than its concurrency', async () => {
    const clock = new ManualClock(0);
    const limiter = new Limiter({ concurrency: 3, requests: 1000, periodMs: 1000 }, clock);
    let active = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const tasks = Array.from({ length: 10 }, () =>
      limiter.run(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise<void>((resolve) => releases.push(resolve));
        active -= 1;
      }),
    );
    for (let round = 0; round < 10; round += 1) {
      await clock.advance(0);
      releases.shift()?.();
    }
    await clock.advance(0);
    while (releases.length > 0) {
      releases.shift()?.();
      await clock.advance(0);
    }
    await Promise.all(tasks);
    expect(peak).toBe(3);
  });

  it('starts at most N requests per window and spreads the rest over later windows', async () => {
    const clock = new ManualClock(0);
    const limiter = new Limiter({ concurrency: 50, requests: 5, periodMs: 1000 }, clock);
    const startedAt: number[] = [];
    const tasks = Array.from({ length: 12 }, () =>
      limiter.run(async () => {
        startedAt.push(clock.now());
      }),
    );
    await clock.advance(0);
    expect(startedAt).toHaveLength(5);
    await clock.advance(1000);
    expect(startedAt).toHaveLength(10);
    await clock.advance(1000);
    await Promise.all(tasks);
    expect(startedAt).toEqual([0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000, 2000, 2000]);
  });

  it('counts a request in its window until its answer, as the server counts it from when it arrives', async () => {
    // The server admits a request when it arrives, somewhere between its start and its answer; the
    // client knows only the answer, so its window holds the request until then: a request answered
    // at 30 ms frees its place at 1,030 ms, not at 1,000 ms (which the server would answer with 429).
    const clock = new ManualClock(0);
    const limiter = new Limiter({ concurrency: 50, requests: 2, periodMs: 1000 }, clock);
    const startedAt: number[] = [];
    const tasks = Array.from({ length: 4 }, () =>
      limiter.run(async () => {
        startedAt.push(clock.now());
        await clock.sleep(30);
      }),
    );
    await clock.advance(1000);
    expect(startedAt).toEqual([0, 0]);
    await clock.advance(29);
    expect(startedAt).toEqual([0, 0]);
    await clock.advance(1);
    expect(startedAt).toEqual([0, 0, 1030, 1030]);
    await clock.advance(30);
    await Promise.all(tasks);
  });

  it('gives an urgent task the next free slot, ahead of those already waiting', async () => {
    const clock = new ManualClock(0);
    const limiter = new Limiter({ concurrency: 1, requests: 1000, periodMs: 1000 }, clock);
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = limiter.run(async () => {
      order.push('first');
      await new Promise<void>((resolve) => (release = resolve));
    });
    const task = (name: string) => async () => void order.push(name);
    const queued = [
      limiter.run(task('page of a bulk list')),
      limiter.run(task('another bulk page')),
      limiter.run(task('next page of a paged list'), true),
    ];
    await clock.advance(0);
    release();
    await Promise.all([held, ...queued]);
    expect(order).toEqual(['first', 'next page of a paged list', 'page of a bulk list', 'another bulk page']);
  });

  it('releases the slot when a task fails', async () => {
    const clock = new ManualClock(0);
    const limiter = new Limiter({ concurrency: 1, requests: 100, periodMs: 1000 }, clock);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});

describe('parseRateLimit', () => {
  it.each([
    ['300/5s', { requests: 300, periodMs: 5000 }],
    ['10/s', { requests: 10, periodMs: 1000 }],
    ['100/500ms', { requests: 100, periodMs: 500 }],
    ['60/1m', { requests: 60, periodMs: 60000 }],
  ])('reads %s', (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });

  it.each(['', 'fast', '0/5s', '300', '300/0s', '-1/5s'])('refuses %j', (text) => {
    expect(parseRateLimit(text)).toBeUndefined();
  });
});
