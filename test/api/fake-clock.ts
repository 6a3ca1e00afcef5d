import type { Clock } from '../../src/util/clock.js';

/** A clock whose sleeps resolve when the test advances time, in order of wake-up. */
export class FakeClock implements Clock {
  private time = 0;
  private sleepers: Array<{ until: number; wake: () => void }> = [];
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  sleep(milliseconds: number): Promise<void> {
    this.sleeps.push(milliseconds);
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.time + Math.max(0, milliseconds), wake: resolve });
    });
  }

  /** Moves time forward, waking every sleeper due by then (and letting their continuations run). */
  async advance(milliseconds: number): Promise<void> {
    const target = this.time + milliseconds;
    for (;;) {
      await flushMicrotasks();
      this.sleepers.sort((a, b) => a.until - b.until);
      const next = this.sleepers[0];
      if (!next || next.until > target) break;
      this.sleepers.shift();
      this.time = next.until;
      next.wake();
    }
    this.time = target;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let index = 0; index < 20; index += 1) await Promise.resolve();
}

/** A clock that never waits: sleeps only record their length and advance time. */
export class InstantClock implements Clock {
  private time = 0;
  readonly sleeps: number[] = [];
  now(): number {
    return this.time;
  }
  async sleep(milliseconds: number): Promise<void> {
    this.sleeps.push(milliseconds);
    this.time += milliseconds;
  }
}
