// The clocks of the tests, one of each kind: a manual clock (time moves only when the test says),
// an instant clock (sleeps return at once) and two tied to an emulator's (sleeps move the emulator's
// time, so rate-limit windows and registry delays pass without real waiting).
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Clock } from '../../src/util/clock.js';

/**
 * Time moves only when the test calls `advance`; a sleep ends when time reaches it or its signal
 * aborts (the scheduler's wake-ups), like the system clock's.
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
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers.delete(sleeper);
          resolve();
        },
        { once: true },
      );
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

/** A clock that never waits: a sleep moves its time and returns. */
export class InstantClock implements Clock {
  private time = 0;
  now(): number {
    return this.time;
  }
  async sleep(milliseconds: number): Promise<void> {
    this.time += milliseconds;
  }
}

/**
 * The clock of an in-process emulator: a backoff, `Retry-After` or `--wait` sleep moves the
 * emulator's clock forward instead of waiting.
 */
export function emulatorClock(emulator: RunningEmulator): Clock {
  return {
    now: () => emulator.runtime.now().getTime(),
    sleep: async (milliseconds) => {
      emulator.runtime.advanceClock(Math.max(0, milliseconds));
    },
  };
}

/**
 * A clock whose time starts at 0 and moves only by its sleeps, each of which also moves the
 * emulator's clock through its admin route (which fires the registry callbacks that came due): a
 * `Retry-After` really passes on the emulator, while the client's retry budget sees no other time go by.
 */
export function emulatorStepClock(emulator: RunningEmulator): Clock {
  let time = 0;
  return {
    now: () => time,
    async sleep(milliseconds) {
      time += milliseconds;
      const body = JSON.stringify({ advance_ms: Math.max(1, Math.ceil(milliseconds)) });
      const response = await fetch(`${emulator.url}/__emulator/clock/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answer = await response.text();
      if (response.status !== 200) throw new Error(`the emulator's clock route answered ${response.status}: ${answer}`);
    },
  };
}
