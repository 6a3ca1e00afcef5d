import { invalidOption } from './start-error.js';

/**
 * Artificial latency on every account request: a fixed delay or one drawn uniformly from a
 * range. Admin routes are never delayed, so tests can always reach them promptly.
 */
export interface LatencySettings {
  minMs: number;
  maxMs: number;
}

export type LatencyOption = number | string | { minMs: number; maxMs?: number } | null;

/** The longest delay accepted: a minute is already far beyond anything a test or demo needs. */
const maxLatencyMs = 60_000;

/** Parses `--latency`: `MS` (fixed) or `MIN-MAX` (uniform), in milliseconds; `0` or `none` means none. */
export function resolveLatency(input: LatencyOption | undefined): LatencySettings | null {
  if (input === undefined || input === null) return null;
  let minMs: number;
  let maxMs: number;
  if (typeof input === 'number') {
    minMs = input;
    maxMs = input;
  } else if (typeof input === 'string') {
    const text = input.trim();
    if (text === 'none' || text === 'off') return null;
    const match = /^(\d+)(?:\s*-\s*(\d+))?(?:ms)?$/.exec(text);
    if (!match)
      throw invalidOption(`latency must be milliseconds (e.g. 50) or a range MIN-MAX (e.g. 20-80), not "${input}"`);
    minMs = Number(match[1]);
    maxMs = match[2] === undefined ? minMs : Number(match[2]);
  } else {
    minMs = input.minMs;
    maxMs = input.maxMs ?? input.minMs;
  }
  for (const value of [minMs, maxMs]) {
    if (!Number.isInteger(value) || value < 0 || value > maxLatencyMs) {
      throw invalidOption(`latency must be whole milliseconds from 0 to ${maxLatencyMs}, not ${String(value)}`);
    }
  }
  if (minMs > maxMs) throw invalidOption(`the latency range ${minMs}-${maxMs} must not start above its end`);
  if (maxMs === 0) return null;
  return { minMs, maxMs };
}

export function formatLatency(settings: LatencySettings | null): string {
  if (!settings) return 'none';
  return settings.minMs === settings.maxMs ? `${settings.minMs}` : `${settings.minMs}-${settings.maxMs}`;
}

/** The delay of one request, in ms. */
export function drawLatency(settings: LatencySettings, random: () => number): number {
  return settings.minMs + Math.floor(random() * (settings.maxMs - settings.minMs + 1));
}

/** Waits `ms`, or less if `signal` aborts (the emulator is closing); never rejects. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
