import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../../src/api/retry.js';

const policy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, maxTotalMs: 10_000 };

describe('backoffDelay', () => {
  it('draws a full-jitter delay under the doubling, capped bound', () => {
    expect(backoffDelay(policy, 1, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(200);
    expect(backoffDelay(policy, 10, () => 0.5)).toBe(500);
    expect(backoffDelay(policy, 2, () => 0)).toBe(0);
  });

  it('never waits less than Retry-After', () => {
    expect(backoffDelay(policy, 1, () => 0.5, 3000)).toBe(3000);
    expect(backoffDelay(policy, 5, () => 0.9, 10)).toBe(900);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter(['1.5'], 0)).toBe(1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});
