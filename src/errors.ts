/**
 * The one error base class of the reconciler side (everything but `src/emulator/`).
 *
 * A `TelformError` is a user-facing failure: bad input, a refusal of the API, an unsafe plan.
 * It carries a stable `code` (for JSON output and tests), a one-sentence message, the place it
 * points at (a manifest position or a resource address) and JSON-safe details. The CLI prints it
 * as one line and exits with `exitCode`; anything that is not a `TelformError` is a bug and is
 * reported as such (stack only under `--debug`).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface SourcePlace {
  file: string;
  line: number;
  column: number;
}

export interface ErrorPlace {
  /** Where in a manifest the problem is. */
  source?: SourcePlace;
  /** Which resource it concerns, as `Kind/name`. */
  address?: string;
}

export interface TelformErrorOptions {
  place?: ErrorPlace;
  details?: Record<string, JsonValue>;
  exitCode?: number;
  cause?: unknown;
}

export class TelformError extends Error {
  readonly code: string;
  readonly place: ErrorPlace | undefined;
  readonly details: Record<string, JsonValue>;
  readonly exitCode: number;

  constructor(code: string, message: string, options: TelformErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TelformError';
    this.code = code;
    this.place = options.place;
    this.details = options.details ?? {};
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Formats a place as `file:line:col` and/or `Kind/name`, for prefixing a one-line message. */
export function formatPlace(place: ErrorPlace | undefined): string {
  if (!place) return '';
  const parts: string[] = [];
  if (place.source) parts.push(`${place.source.file}:${place.source.line}:${place.source.column}`);
  if (place.address) parts.push(place.address);
  return parts.join('  ');
}
