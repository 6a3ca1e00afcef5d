/**
 * Redaction for `--log-http` and error details: any field whose name says it holds a secret is
 * replaced, at any depth. The Authorization header is never logged at all.
 */
const secretKey = /pass(word)?|secret|token|auth_?token/i;

export const redacted = '(sensitive)';

export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      out[key] = secretKey.test(key) && item !== null && item !== undefined ? redacted : redactSecrets(item);
    }
    return out;
  }
  return value;
}
