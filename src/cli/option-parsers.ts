import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../util/duration.js';

/** Option value parsers shared by commands; each refuses bad input with one sentence. */

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function positiveInteger(value: string): number {
  // Digits only: Number() would read `1e3` as 1000 and `99999999999999999999` as 1e20.
  const parsed = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(
      /^\d+$/.test(value.trim())
        ? `expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`
        : 'expected a whole number of at least 1, in digits (e.g. 5000)',
    );
  return parsed;
}

export function usdAmount(value: string): number {
  if (!/^\d+(\.\d{1,2})?$/.test(value)) throw new InvalidArgumentError('expected an amount in USD, e.g. 15 or 30.00');
  return Number(value);
}

/** A count: 0 or a positive whole number. */
export function count(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number, e.g. 0 or 40');
  return Number(value);
}

/** `15m`, `90s`, `1h30m`, `500ms`; a bare number is seconds. */
export function duration(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const ms = parseDuration(text);
  if (ms === undefined) throw new InvalidArgumentError('expected a duration such as 15m, 90s or 1h30m');
  return ms;
}

/**
 * `--workspace NAME`: a database state's workspace, in the alphabet the accounts file allows for
 * one. An empty name would be a ledger nobody could name again.
 */
export function workspaceName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(value)) {
    throw new InvalidArgumentError(
      'expected a workspace name: letters, digits, ".", "_" or "-" (at most 63, starting with a letter or digit)',
    );
  }
  return value;
}
