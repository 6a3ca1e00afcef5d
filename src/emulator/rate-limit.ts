import { invalidOption } from './start-error.js';

/**
 * Per-account rate limiting. Production allows 300 requests per 5 seconds per account and
 * answers 429 beyond that (production's documentation); the emulator has no limit unless asked, because
 * tests and the bench need speed. The window slides: a request is admitted when fewer than `limit`
 * requests were admitted in the last `periodMs`. Time is the emulator's clock, so a test advances it
 * through the admin clock route instead of sleeping.
 */
export interface RateLimitSettings {
  limit: number;
  periodMs: number;
}

export type RateLimitOption = string | RateLimitSettings | null;

const unitsMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };

/** Parses `--rate-limit N/PERIOD`: `300/5s`, `10/s`, `1000/1m`, `50/500ms`; `none` means no limit. */
export function resolveRateLimit(input: RateLimitOption | undefined): RateLimitSettings | null {
  if (input === undefined || input === null) return null;
  let settings: RateLimitSettings;
  if (typeof input === 'string') {
    const text = input.trim();
    if (text === 'none' || text === 'off') return null;
    const match = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|min|h)$/.exec(text);
    if (!match) {
      throw invalidOption(`rate limit must be REQUESTS/PERIOD such as 300/5s, 10/s or 1000/1m, not "${input}"`);
    }
    const count = match[2] === undefined ? 1 : Number(match[2]);
    settings = { limit: Number(match[1]), periodMs: Math.round(count * (unitsMs[match[3] as string] as number)) };
  } else {
    settings = { limit: input.limit, periodMs: input.periodMs };
  }
  if (!Number.isInteger(settings.limit) || settings.limit < 1) {
    throw invalidOption(`the rate limit must allow at least 1 request per period, not ${String(settings.limit)}`);
  }
  if (!Number.isInteger(settings.periodMs) || settings.periodMs < 1) {
    throw invalidOption(`the rate limit period must be at least 1 ms, not ${String(settings.periodMs)}`);
  }
  return settings;
}

export function formatRateLimit(settings: RateLimitSettings | null): string {
  if (!settings) return 'none';
  const { limit, periodMs } = settings;
  return periodMs % 1000 === 0 ? `${limit}/${periodMs / 1000}s` : `${limit}/${periodMs}ms`;
}

export type RateDecision = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export class RateLimiter {
  private current: RateLimitSettings | null;
  /** Per account, the admission times (ms) within the current window, oldest first. */
  private readonly windows = new Map<string, number[]>();

  constructor(settings: RateLimitSettings | null) {
    this.current = settings;
  }

  get settings(): RateLimitSettings | null {
    return this.current;
  }

  /** Replaces the limit and forgets every window. */
  configure(settings: RateLimitSettings | null): void {
    this.current = settings;
    this.windows.clear();
  }

  /**
   * Admits one request of `account` at `nowMs`, or says how many whole seconds to wait (at least 1)
   * until the oldest admission leaves the window. Refused requests do not count.
   */
  admit(account: string, nowMs: number): RateDecision {
    const settings = this.current;
    if (!settings) return { admitted: true };
    let window = this.windows.get(account);
    if (!window) {
      window = [];
      this.windows.set(account, window);
    }
    const windowStart = nowMs - settings.periodMs;
    let expired = 0;
    while (expired < window.length && (window[expired] as number) <= windowStart) expired += 1;
    if (expired > 0) window.splice(0, expired);
    if (window.length < settings.limit) {
      window.push(nowMs);
      return { admitted: true };
    }
    const oldest = window[0] as number;
    const waitMs = oldest + settings.periodMs - nowMs;
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
