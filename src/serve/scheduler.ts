// When serve looks at each account: every account once at start, then again an interval after its
// previous look ended, the interval jittered so accounts started together drift apart instead of
// hitting the API in step; at most `concurrency` accounts at once; an account is never looked at
// twice at the same time (a trigger while it runs makes one more look right after). A trigger (a
// callback's hint, an apply) puts the account ahead of those merely due. Time comes from an
// injected clock, so tests run a hundred intervals without waiting for one.
import type { Clock } from '../util/clock.js';
import type { EventCause } from './model.js';

export interface SchedulerOptions {
  intervalMs: number;
  /** Each interval is drawn from `intervalMs × (1 ± jitter)`; 0 to 1. */
  jitter: number;
  concurrency: number;
  clock: Clock;
  random?: () => number;
}

/** Looks at one account; must not throw (a failure is that look's result). */
export type ScheduledWork = (name: string, cause: EventCause) => Promise<void>;

interface Slot {
  name: string;
  dueAt: number;
  cause: EventCause;
  running: boolean;
  /** A trigger arrived while it ran: look again as soon as it ends. */
  again: EventCause | undefined;
  triggered: boolean;
}

export class Scheduler {
  private readonly slots = new Map<string, Slot>();
  private readonly random: () => number;
  private running = 0;
  private stopped = true;
  private wake = new AbortController();
  private loopDone: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    names: readonly string[],
    private readonly options: SchedulerOptions,
    private readonly work: ScheduledWork,
    private readonly onScheduled: (name: string, dueAt: number) => void = () => undefined,
  ) {
    if (!(options.intervalMs > 0)) throw new Error('serve: the interval must be positive');
    this.random = options.random ?? Math.random;
    const now = options.clock.now();
    for (const name of names)
      this.slots.set(name, { name, dueAt: now, cause: 'start', running: false, again: undefined, triggered: false });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const slot of this.slots.values()) this.onScheduled(slot.name, slot.dueAt);
    this.loopDone = this.loop();
  }

  /** Looks at `name` as soon as a slot is free (again right after, if it is being looked at now). */
  trigger(name: string, cause: EventCause): boolean {
    const slot = this.slots.get(name);
    if (!slot || this.stopped) return false;
    if (slot.running) slot.again = cause;
    else {
      slot.triggered = true;
      slot.cause = cause;
      slot.dueAt = Math.min(slot.dueAt, this.options.clock.now());
    }
    this.wake.abort();
    return true;
  }

  /** Accounts being looked at now. */
  active(): string[] {
    return [...this.slots.values()].filter((slot) => slot.running).map((slot) => slot.name);
  }

  /** Starts nothing more; resolves when the looks under way have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.loopDone;
    await Promise.all([...this.inFlight]);
  }

  private async loop(): Promise<void> {
    const { clock } = this.options;
    while (!this.stopped) {
      this.startDue();
      if (this.stopped) break;
      const wake = new AbortController();
      this.wake = wake;
      const waitMs =
        this.running >= this.options.concurrency ? Number.POSITIVE_INFINITY : this.nextDueAt() - clock.now();
      if (waitMs > 0) await clock.sleep(Number.isFinite(waitMs) ? waitMs : 2 ** 31 - 1, wake.signal);
    }
  }

  private nextDueAt(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const slot of this.slots.values()) if (!slot.running && slot.dueAt < next) next = slot.dueAt;
    return next;
  }

  private startDue(): void {
    const now = this.options.clock.now();
    while (this.running < this.options.concurrency) {
      const slot = this.pickDue(now);
      if (!slot) return;
      this.run(slot);
    }
  }

  /** Triggered accounts first, then the longest overdue. */
  private pickDue(now: number): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots.values()) {
      if (slot.running || slot.dueAt > now) continue;
      if (
        !best ||
        (slot.triggered && !best.triggered) ||
        (slot.triggered === best.triggered && slot.dueAt < best.dueAt)
      )
        best = slot;
    }
    return best;
  }

  private run(slot: Slot): void {
    slot.running = true;
    slot.triggered = false;
    this.running += 1;
    const cause = slot.cause;
    const done = this.work(slot.name, cause)
      .catch(() => undefined)
      .finally(() => {
        slot.running = false;
        this.running -= 1;
        this.inFlight.delete(done);
        const now = this.options.clock.now();
        if (slot.again !== undefined) {
          slot.cause = slot.again;
          slot.again = undefined;
          slot.triggered = true;
          slot.dueAt = now;
        } else {
          slot.cause = 'interval';
          slot.dueAt = now + this.nextInterval();
        }
        this.onScheduled(slot.name, slot.dueAt);
        this.wake.abort();
      });
    this.inFlight.add(done);
  }

  private nextInterval(): number {
    const { intervalMs, jitter } = this.options;
    return Math.max(1, Math.round(intervalMs * (1 + jitter * (2 * this.random() - 1))));
  }
}
