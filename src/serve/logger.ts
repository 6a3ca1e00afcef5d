// serve's structured log: one JSON object per line (on stderr; stdout carries the events), with the
// time, a level, a message and fields. Callers pass only what may be shown: account names, codes,
// addresses, counts, reasons — never a token, a password or a request body.
import { printableJson } from '../util/printable.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

export function jsonLogger(
  write: (line: string) => void,
  now: () => number = Date.now,
  minimum: LogLevel = 'info',
  /** Fields every line carries (a replica's name). */
  base: LogFields = {},
): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, message, fields = {}) {
      if (order[level] < order[minimum]) return;
      const record: Record<string, unknown> = { time: new Date(now()).toISOString(), level, msg: message };
      for (const [key, value] of Object.entries({ ...base, ...fields })) if (value !== undefined) record[key] = value;
      write(jsonLine(record));
    },
  };
}

/** One JSON line; characters JSON leaves raw but a terminal would act on are escaped (the data is unchanged). */
export function jsonLine(value: unknown): string {
  return `${printableJson(JSON.stringify(value))}\n`;
}
