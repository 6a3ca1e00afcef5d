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

/** The string values held under secret-named fields of a request body, at any depth. */
export function secretValuesOf(value: unknown): string[] {
  const found: string[] = [];
  const visit = (item: unknown, secret: boolean): void => {
    if (typeof item === 'string') {
      if (secret && item !== '') found.push(item);
    } else if (Array.isArray(item)) {
      for (const member of item) visit(member, secret);
    } else if (item && typeof item === 'object') {
      for (const [key, member] of Object.entries(item as Record<string, unknown>))
        visit(member, secret || secretKey.test(key));
    }
  };
  visit(value, false);
  return found;
}

/**
 * Replaces every occurrence of the given secret values in `text`. An API that echoes a rejected
 * password in its error message (`"password Hunter2 is too short"`) must not carry it into an
 * error, a log line or a plan (docs/manifests.md: secrets are never printed).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(redacted);
  return out;
}
