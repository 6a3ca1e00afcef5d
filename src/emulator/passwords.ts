import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Write-only secrets (SipAuth and trunk credential passwords, origination URI passwords) are kept
 * only as a salted one-way hash (the API reference, "The password is kept only as a one-way hash and is never
 * returned"). A salted SHA-256 is enough here: the emulator holds test data, and bulk tests create
 * thousands of credentials, which a deliberately slow KDF would make slow.
 * Stored form: `sha256$<salt base64url>$<digest hex>`.
 */

const algorithm = 'sha256';

export function hashPassword(password: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `${algorithm}$${salt}$${digest(salt, password)}`;
}

/** Whether `password` is the one `stored` was made from; compares in constant time. */
export function verifyPassword(password: string, stored: string): boolean {
  const [kind, salt, expected] = stored.split('$');
  if (kind !== algorithm || salt === undefined || expected === undefined) return false;
  const actual = Buffer.from(digest(salt, password), 'hex');
  const wanted = Buffer.from(expected, 'hex');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

function digest(salt: string, password: string): string {
  return createHash(algorithm).update(salt, 'utf8').update('\0').update(password, 'utf8').digest('hex');
}
