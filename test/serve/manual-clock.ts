import type { Clock } from '../../src/util/clock.js';

/**
 * A clock for serve's tests: time moves only when the test says; a sleep ends when time reaches it
 * or its signal aborts (the scheduler's wake-ups), like the system clock's.
 */
export class ManualClock implements Clock {
  private time: number;
  private sleepers = new Set<{ until: number; wake: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sleeper = { until: this.time + Math.max(0, milliseconds), wake: () => resolve() };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', () => {
        this.sleepers.delete(sleeper);
        resolve();
      }, { once: true });
    });
  }

  /** Moves time forward in steps of the due sleepers, letting continuations run at each. */
  async advance(milliseconds: number): Promise<void> {
    const target = this.time + milliseconds;
    for (;;) {
      await settle();
      const next = [...this.sleepers].sort((a, b) => a.until - b.until)[0];
      if (!next || next.until > target) break;
      this.sleepers.delete(next);
      this.time = Math.max(this.time, next.until);
      next.wake();
    }
    this.time = target;
    await settle();
  }
}

/** Lets every promise continuation queued so far (and those they queue) run. */
export async function settle(): Promise<void> {
  for (let index = 0; index < 5; index += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
