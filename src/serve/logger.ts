// serve's structured log: one JSON object per line (on stderr; stdout carries the events), with the
// time, a level, a message and fields. Callers pass only what may be shown: account names, codes,
// addresses, counts, reasons — never a token, a password or a request body.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

export function jsonLogger(write: (line: string) => void, now: () => number = Date.now, minimum: LogLevel = 'info'): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, message, fields = {}) {
      if (order[level] < order[minimum]) return;
      const record: Record<string, unknown> = { time: new Date(now()).toISOString(), level, msg: message };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = value;
      write(jsonLine(record));
    },
  };
}

/**
 * One JSON line, with the characters JSON leaves as they are but a terminal would act on (C1
 * controls, bidirectional overrides, line separators) written as `\uXXXX` escapes: the line stays
 * the same JSON and reads as what it holds.
 */
export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value).replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (character) =>
    `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
