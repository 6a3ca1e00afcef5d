// Checks the signature the API puts on its 10DLC status callbacks: `X-Plivo-Signature-V2` (and
// `X-Plivo-Signature-Ma-V2`) is the base64 HMAC-SHA256, keyed by the account's auth token, of the
// callback URL without its query string followed by `X-Plivo-Signature-V2-Nonce`. The URL is the
// one the API called: behind a proxy or an ingress it is the public URL (`--public-url`), not the
// address the server listens on. A nonce seen recently is refused, so a captured callback cannot be
// replayed while it is remembered (a replay after that still only costs a read).
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedRequest {
  /** The URL the API called, query string included or not. */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export type SignatureVerdict = { ok: true; nonce: string } | { ok: false; reason: string };

export const unsignedReason = 'no signature (X-Plivo-Signature-V2 and its nonce are required)';

/** Whether the request carries a signature and its nonce at all (checked before anything else). */
export function hasSignature(headers: SignedRequest['headers']): boolean {
  return signaturesOf(headers).length > 0 && header(headers, 'x-plivo-signature-v2-nonce') !== undefined;
}

function signaturesOf(headers: SignedRequest['headers']): string[] {
  return [header(headers, 'x-plivo-signature-v2'), header(headers, 'x-plivo-signature-ma-v2')].filter(
    (value): value is string => value !== undefined,
  );
}

export function verifyCallbackSignature(request: SignedRequest, authToken: string): SignatureVerdict {
  const nonce = header(request.headers, 'x-plivo-signature-v2-nonce');
  const signatures = signaturesOf(request.headers);
  if (nonce === undefined || signatures.length === 0) return { ok: false, reason: unsignedReason };
  // An account whose token is unknown (its variables are missing) can sign nothing: an empty key
  // is one anybody can use.
  if (authToken === '') return { ok: false, reason: 'the account has no token to check the signature with' };
  let base: string;
  try {
    const url = new URL(request.url);
    base = `${url.origin}${url.pathname}`;
  } catch {
    return { ok: false, reason: 'the callback URL cannot be read' };
  }
  const expected = createHmac('sha256', authToken).update(`${base}${nonce}`).digest();
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches
    ? { ok: true, nonce }
    : { ok: false, reason: 'the signature does not match (wrong token, altered URL, or forged)' };
}

function header(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** Nonces of recently accepted callbacks, at most `limit` (oldest forgotten first). */
export class NonceMemory {
  private readonly seen = new Set<string>();

  constructor(private readonly limit = 10_000) {}

  /** False when `nonce` was already used; remembers it otherwise. */
  admit(nonce: string): boolean {
    if (this.seen.has(nonce)) return false;
    this.seen.add(nonce);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.values().next().value as string;
      this.seen.delete(oldest);
    }
    return true;
  }
}
