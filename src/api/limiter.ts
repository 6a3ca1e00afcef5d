import type { Clock } from '../util/clock.js';

export interface LimiterOptions {
  /** Requests in flight at once. */
  concurrency: number;
  /** At most `requests` started in any window of `periodMs` (production: 300 per 5 s). */
  requests: number;
  periodMs: number;
}

export const defaultLimiterOptions: LimiterOptions = { concurrency: 8, requests: 300, periodMs: 5_000 };

/**
 * One limiter shared by every request of a run: bounds concurrency and keeps the request rate under
 * the account's limit (a sliding window), so parallel branches of an apply never trip the API's 429
 * on their own.
 *
 * The server counts a request from when it arrives, which the client cannot see: somewhere between
 * sending it and its answer. Counted from the send, a request that took a while to arrive leaves the
 * client's window before the server's, and the next one is refused. So a request holds its place
 * in the window while it is in flight and, once answered, for a whole period from its answer.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** When each answered request of the window was answered, oldest first. */
  private readonly answers: number[] = [];
  /** Requests of the window not answered yet. */
  private inFlight = 0;
  /** Waiting for an answer, when every place of the window is in flight. */
  private answerWaiters: Array<() => void> = [];

  constructor(
    private readonly options: LimiterOptions,
    private readonly clock: Clock,
  ) {
    if (options.concurrency < 1 || options.requests < 1 || options.periodMs <= 0) {
      throw new RangeError('limiter needs concurrency ≥ 1, requests ≥ 1 and a positive period');
    }
  }

  /**
   * Runs `task` once a slot is free and the rate allows; the slot is released when it settles.
   * An `urgent` task takes the first free slot, ahead of those already waiting.
   */
  async run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    await this.acquireSlot(urgent);
    let counted = false;
    try {
      await this.waitForRate();
      counted = true;
      return await task();
    } finally {
      if (counted) this.answered();
      this.releaseSlot();
    }
  }

  private answered(): void {
    this.inFlight -= 1;
    this.answers.push(this.clock.now());
    const waiters = this.answerWaiters;
    this.answerWaiters = [];
    for (const wake of waiters) wake();
  }

  private acquireSlot(urgent: boolean): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => (urgent ? this.waiting.unshift(resolve) : this.waiting.push(resolve)));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }

  private async waitForRate(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (this.answers.length > 0 && (this.answers[0] as number) <= now - this.options.periodMs)
        this.answers.shift();
      if (this.answers.length + this.inFlight < this.options.requests) {
        this.inFlight += 1;
        return;
      }
      if (this.answers.length > 0) await this.clock.sleep((this.answers[0] as number) + this.options.periodMs - now);
      else await new Promise<void>((resolve) => this.answerWaiters.push(resolve));
    }
  }
}

/** Parses `N/PERIOD` (`300/5s`, `10/1s`, `100/500ms`, `60/1m`) into requests and milliseconds. */
export function parseRateLimit(text: string): { requests: number; periodMs: number } | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m)?\s*$/.exec(text);
  if (!match) return undefined;
  const requests = Number(match[1]);
  const amount = match[2] === undefined ? 1 : Number(match[2]);
  const unit = match[3] ?? 's';
  const periodMs = amount * (unit === 'ms' ? 1 : unit === 's' ? 1_000 : 60_000);
  if (requests < 1 || periodMs <= 0) return undefined;
  return { requests, periodMs };
}
