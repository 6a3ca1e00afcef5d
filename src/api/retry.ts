/**
 * Retry policy: exponential backoff with full jitter (a random delay between 0 and the capped
 * exponential bound), never shorter than the server's `Retry-After`, bounded in attempts and in
 * total time.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts after this much time since the first attempt. */
  maxTotalMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxTotalMs: 60_000,
};

/** Delay before retry number `retry` (1 for the first retry). `random` returns [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number, retryAfterMs?: number): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const jittered = Math.floor(random() * bound);
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}

/** Reads `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text) * 1_000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
