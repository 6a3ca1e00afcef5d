import type { ApiClient, ApiResponse, RequestOptions } from './client.js';
import { ApiRequestError, OutcomeUnknownError, RetriesExhaustedError } from './errors.js';

/**
 * Writes that must never be duplicated (docs/commands.md, connecting to the API): after a lost response the client
 * reads before it re-sends.
 */

export type CreateOutcome<T> =
  | { kind: 'created'; response: ApiResponse<T> }
  /** The create had happened although its response was lost: `found` is what the lookup found. */
  | { kind: 'recovered'; found: unknown };

/**
 * Sends a create. When its outcome is unknown, `lookup` reads the API by natural key (a create) or
 * for the entry (an entry add): if it finds the object, that is adopted; otherwise the create is
 * sent again. Bounded: after `maxAttempts` unknown outcomes it gives up with the last error.
 */
export async function createWithRecovery<T>(
  client: ApiClient,
  path: string,
  body: Record<string, unknown>,
  lookup: () => Promise<unknown>,
  maxAttempts = 4,
): Promise<CreateOutcome<T>> {
  let lastError: OutcomeUnknownError | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    try {
      return { kind: 'created', response: await client.request<T>('POST', path, { body, mode: 'create' }) };
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      lastError = error;
      const found = await lookup();
      if (found !== undefined) return { kind: 'recovered', found };
    }
  }
  throw new RetriesExhaustedError(
    { method: 'POST', path },
    maxAttempts,
    lastError?.message ?? 'outcome unknown',
    lastError,
  );
}

/**
 * Deletes idempotently: retried like any idempotent request, and a 404 counts as done — either an
 * earlier attempt whose answer was lost took effect, or the object was already gone. `alreadyGone`
 * tells the caller which of the two it cannot distinguish happened (a 404 on the first attempt).
 */
export async function deleteIdempotent(
  client: ApiClient,
  path: string,
  options: Pick<RequestOptions, 'query'> = {},
): Promise<{ alreadyGone: boolean; response?: ApiResponse }> {
  try {
    return { alreadyGone: false, response: await client.request('DELETE', path, { ...options, mode: 'idempotent' }) };
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return { alreadyGone: true };
    throw error;
  }
}
