import { describe, expect, it } from 'vitest';
import type { EventCause } from '../../src/serve/model.js';
import { Scheduler } from '../../src/serve/scheduler.js';
import { ManualClock, settle } from '../support/clock.js';

/** Work whose looks end when the test says, recording what started and when. */
function gatedWork(clock: ManualClock) {
  const started: Array<{ name: string; cause: EventCause; at: number }> = [];
  const open = new Map<string, () => void>();
  const work = (name: string, cause: EventCause) => {
    started.push({ name, cause, at: clock.now() });
    return new Promise<void>((resolve) => open.set(name, resolve));
  };
  const finish = async (name: string) => {
    const done = open.get(name);
    if (!done) throw new Error(`${name} is not running`);
    open.delete(name);
    done();
    await settle();
  };
  return { started, work, finish, running: () => [...open.keys()].sort() };
}

describe('Scheduler', () => {
  it('looks at every account at start, at most `concurrency` at once, then an interval after each look', async () => {
    const clock = new ManualClock(0);
    const gate = gatedWork(clock);
    const scheduler = new Scheduler(
      ['a', 'b', 'c'],
      { intervalMs: 1_000, jitter: 0, concurrency: 2, clock },
      gate.work,
    );
    scheduler.start();
    await settle();
    expect(gate.running()).toEqual(['a', 'b']);
    await gate.finish('a');
    expect(gate.running()).toEqual(['b', 'c']);
    await clock.advance(100);
    await gate.finish('b');
    await gate.finish('c');
    expect(gate.started.map(({ name, cause, at }) => `${name} ${cause} ${at}`)).toEqual([
      'a start 0',
      'b start 0',
      'c start 0',
    ]);
    await clock.advance(899);
    expect(gate.running()).toEqual([]);
    await clock.advance(1);
    expect(gate.running()).toEqual(['a']);
    await clock.advance(100);
    expect(gate.running()).toEqual(['a', 'b']);
    expect(gate.started.slice(3).map(({ name, cause, at }) => `${name} ${cause} ${at}`)).toEqual([
      'a interval 1000',
      'b interval 1100',
    ]);
    await gate.finish('a');
    // c came due with b (both ended at 100) and waited for a free slot.
    expect(gate.running()).toEqual(['b', 'c']);
    await gate.finish('b');
    await gate.finish('c');
    await scheduler.stop();
  });

  it('draws each interval within intervalMs × (1 ± jitter)', async () => {
    const clock = new ManualClock(0);
    const dues: number[] = [];
    const draws = [0, 1, 0.5];
    const scheduler = new Scheduler(
      ['a'],
      { intervalMs: 1_000, jitter: 0.2, concurrency: 1, clock, random: () => draws.shift() ?? 0.5 },
      async () => undefined,
      (_, at) => dues.push(at),
    );
    scheduler.start();
    await clock.advance(0);
    await clock.advance(800);
    await clock.advance(1_200);
    await scheduler.stop();
    // At start 0; then 0 + 800 (draw 0), 800 + 1200 (draw 1), 2000 + 1000 (draw 0.5).
    expect(dues).toEqual([0, 800, 2_000, 3_000]);
  });

  it('puts a triggered account first, and looks again right after a look a trigger arrived during', async () => {
    const clock = new ManualClock(0);
    const gate = gatedWork(clock);
    const scheduler = new Scheduler(['a', 'b'], { intervalMs: 60_000, jitter: 0, concurrency: 1, clock }, gate.work);
    scheduler.start();
    await settle();
    await gate.finish('a');
    await gate.finish('b');
    // b is running again only when triggered; a trigger while it runs makes exactly one more look.
    expect(scheduler.trigger('b', 'callback')).toBe(true);
    await settle();
    expect(gate.running()).toEqual(['b']);
    scheduler.trigger('b', 'callback');
    scheduler.trigger('b', 'callback');
    scheduler.trigger('a', 'callback');
    await gate.finish('b');
    // The trigger of a came before b's re-look was due: both are due now, triggered; a waited longer.
    expect(gate.running()).toEqual(['a']);
    await gate.finish('a');
    expect(gate.running()).toEqual(['b']);
    await gate.finish('b');
    expect(gate.running()).toEqual([]);
    expect(gate.started.map(({ name, cause }) => `${name} ${cause}`)).toEqual([
      'a start',
      'b start',
      'b callback',
      'a callback',
      'b callback',
    ]);
    expect(scheduler.trigger('nobody', 'callback')).toBe(false);
    await scheduler.stop();
  });

  it('stop starts nothing new and waits for the looks under way', async () => {
    const clock = new ManualClock(0);
    const gate = gatedWork(clock);
    const scheduler = new Scheduler(['a', 'b'], { intervalMs: 1_000, jitter: 0, concurrency: 1, clock }, gate.work);
    scheduler.start();
    await settle();
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    await gate.finish('a');
    await stopping;
    expect(gate.started.map(({ name }) => name)).toEqual(['a']);
    expect(scheduler.trigger('b', 'callback')).toBe(false);
  });
});
