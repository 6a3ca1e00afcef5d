import { TelformError, type ErrorPlace, type JsonValue } from '../util/errors.js';
import { printable } from '../util/printable.js';

/** What the client knows about the request behind an error; never a secret. */
export interface RequestSummary {
  method: string;
  /** Path relative to the base URL, without query string. */
  path: string;
}

/**
 * The API answered with an error status. Keeps the status, the API's own message and the request,
 * so the CLI can say exactly what the API refused and why.
 */
export class ApiRequestError extends TelformError {
  readonly status: number;
  readonly apiMessage: string;
  readonly request: RequestSummary;

  constructor(status: number, apiMessage: string, request: RequestSummary, place?: ErrorPlace) {
    // A 401 is never about the request itself: say what to check.
    const hint =
      status === 401 ? '; check TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN (or PLIVO_AUTH_ID and PLIVO_AUTH_TOKEN)' : '';
    // The API's message and the path (live ids) are printed: escaped, as any live text.
    super(
      'api_error',
      `the API answered ${status} to ${request.method} ${printable(request.path)}: ${printable(apiMessage)}${hint}`,
      {
        ...(place ? { place } : {}),
        details: { status, api_message: apiMessage, method: request.method, path: request.path },
      },
    );
    this.name = 'ApiRequestError';
    this.status = status;
    this.apiMessage = apiMessage;
    this.request = request;
  }
}

/**
 * The request may or may not have taken effect: it was sent and then the connection failed, timed
 * out, or the server answered 5xx. Writes that are not idempotent must be reconciled by reading
 * (docs/commands.md, connecting to the API), never re-sent blindly.
 */
export class OutcomeUnknownError extends TelformError {
  readonly request: RequestSummary;

  constructor(request: RequestSummary, reason: string, cause?: unknown) {
    super(
      'outcome_unknown',
      `no answer to ${request.method} ${request.path} (${reason}); it may or may not have taken effect`,
      {
        details: { method: request.method, path: request.path, reason },
        cause,
      },
    );
    this.name = 'OutcomeUnknownError';
    this.request = request;
  }
}

/** Retries ran out (attempts or time) on a request that kept failing with a retryable error. */
export class RetriesExhaustedError extends TelformError {
  constructor(request: RequestSummary, attempts: number, lastReason: string, cause?: unknown) {
    super(
      'retries_exhausted',
      `${request.method} ${request.path} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${lastReason}`,
      {
        details: { method: request.method, path: request.path, attempts, last_reason: lastReason },
        cause,
      },
    );
    this.name = 'RetriesExhaustedError';
  }
}

/** A list could not be read whole; nothing may be planned from a partial view (docs/state-and-safety.md, safety). */
export class PartialListError extends TelformError {
  constructor(path: string, reason: string, details: Record<string, JsonValue> = {}) {
    super('partial_list', `could not read the whole list ${path}: ${reason}`, { details: { path, ...details } });
    this.name = 'PartialListError';
  }
}

/** Endpoint or credentials are missing or inconsistent (docs/commands.md, connecting to the API). */
export class ConnectionConfigError extends TelformError {
  constructor(message: string) {
    super('connection_config', message);
    this.name = 'ConnectionConfigError';
  }
}

/** Extracts the API's message from an error body, tolerant of the shapes production uses. */
export function apiMessageOf(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['error', 'message', 'global_error']) {
      const value = record[key];
      if (typeof value === 'string' && value !== '') return value;
      if (value && typeof value === 'object') return JSON.stringify(value);
    }
  }
  return fallback;
}
