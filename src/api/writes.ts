import type { ApiClient, ApiResponse, RequestOptions } from './client.js';
import { TelformError } from '../util/errors.js';
import { ApiRequestError, OutcomeUnknownError, RetriesExhaustedError } from './errors.js';

/**
 * Writes that must never be duplicated (docs/commands.md, connecting to the API): after a lost response the client
 * reads before it re-sends.
 */

export type CreateOutcome<T> =
  | { kind: 'created'; response: ApiResponse<T> }
  /** The create had happened although its response was lost: `found` is what the lookup found. */
  | { kind: 'recovered'; found: unknown };

/** What `lookup` answers when the reads cannot tell whether the create happened: nothing is sent again. */
export const cannotTell = Symbol('cannot tell');

/**
 * Sends a create. When its outcome is unknown, `lookup` reads the API by natural key (a create) or
 * for the entry (an entry add): if it finds the object, that is adopted; if it answers `cannotTell`
 * (the reads do not show the name), or `resend` is false (a billed or irreversible kind), nothing is
 * sent again: the error says so, and the journal's open intent lets the next run settle it from the
 * account. Otherwise (the reads show the create did not happen) it is sent again. Bounded: after
 * `maxAttempts` unknown outcomes it gives up with the last error.
 */
export async function createWithRecovery<T>(
  client: ApiClient,
  path: string,
  body: Record<string, unknown>,
  lookup: () => Promise<unknown>,
  maxAttempts = 4,
  resend = true,
): Promise<CreateOutcome<T>> {
  let lastError: OutcomeUnknownError | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    try {
      return { kind: 'created', response: await client.request<T>('POST', path, { body, mode: 'create' }) };
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      lastError = error;
      const found = await lookup();
      if (found !== undefined && found !== cannotTell) return { kind: 'recovered', found };
      if (found === cannotTell || !resend) {
        throw new TelformError(
          'create_outcome_unknown',
          `POST ${path} got no answer and ${found === cannotTell ? 'the account’s reads cannot tell whether it made the object' : 'the object cannot be found yet'}; it was not sent again (that could make a second one): the next run settles it from the account`,
          { cause: error },
        );
      }
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
