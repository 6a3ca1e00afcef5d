import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './http.js';
import type { AccountState, EmulatorState } from './state.js';

/**
 * HTTP Basic authentication (the API reference, Authentication): the user is the Auth ID, the password the
 * Auth Token, and the Auth ID must be the one in the path. Tokens are compared in constant time
 * (as digests, so differing lengths leak nothing either). Every failure is the same 401.
 */
export function authenticate(state: EmulatorState, pathAuthId: string, header: string | undefined): AccountState {
  // Built only on failure: an Error captures a stack trace, too costly to pay on every request.
  const failure = (): ApiError =>
    new ApiError(401, 'Authentication failed', { 'WWW-Authenticate': 'Basic realm="telform-emulator"' });
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) throw failure();
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw failure();
  const authId = decoded.slice(0, colon);
  const token = decoded.slice(colon + 1);
  const account = state.accounts.get(authId);
  const expected = account?.authToken ?? 'no-such-account';
  const tokenMatches = timingSafeEqual(digest(token), digest(expected));
  if (!account || !tokenMatches || authId !== pathAuthId) throw failure();
  return account;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
