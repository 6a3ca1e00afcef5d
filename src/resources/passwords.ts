import { maxTextLength } from './fields.js';
import type { Finding } from './kind.js';

/**
 * Password rules, checked offline on literal secrets by `validate` and on resolved ones by
 * `validate --check-secrets`. Messages describe the rule, never the password or any part of it.
 */

/**
 * SipAuth credential passwords: 8 to 128 characters with an
 * upper-case letter, a lower-case letter and a digit. Production is reported to ask
 * for 12; the documented 8 wins, so 8–11 pass with a warning (docs/manifests.md).
 */
export function checkSipAuthPassword(value: string): Finding[] {
  const findings: Finding[] = [];
  const length = [...value].length;
  if (length < 8) findings.push({ severity: 'error', message: 'must be at least 8 characters long' });
  else if (length > 128) findings.push({ severity: 'error', message: 'must be at most 128 characters long' });
  const missing: string[] = [];
  if (!/[A-Z]/.test(value)) missing.push('an upper-case letter');
  if (!/[a-z]/.test(value)) missing.push('a lower-case letter');
  if (!/[0-9]/.test(value)) missing.push('a digit');
  if (missing.length > 0) findings.push({ severity: 'error', message: `must contain ${joinAnd(missing)}` });
  if (length >= 8 && length < 12) {
    findings.push({
      severity: 'warning',
      message: 'is shorter than 12 characters: the API accepts it, but production asks for at least 12',
    });
  }
  return findings;
}

const trunkSpecials = '~!@#$%^&*()_+';

/**
 * Trunk credential passwords: 5 to 20 characters from letters,
 * digits and `~!@#$%^&*()_+`, with at least one of those special characters.
 */
export function checkTrunkPassword(value: string): Finding[] {
  const findings: Finding[] = [];
  const length = [...value].length;
  if (length < 5) findings.push({ severity: 'error', message: 'must be at least 5 characters long' });
  else if (length > 20) findings.push({ severity: 'error', message: 'must be at most 20 characters long' });
  if (!/^[A-Za-z0-9~!@#$%^&*()_+]*$/.test(value)) {
    findings.push({ severity: 'error', message: `may hold only letters, digits and ${trunkSpecials}` });
  }
  if (!/[~!@#$%^&*()_+]/.test(value))
    findings.push({ severity: 'error', message: `must contain at least one of ${trunkSpecials}` });
  return findings;
}

/**
 * Origination URI passwords: the API documents no format, so any non-empty value of at most
 * `maxTextLength` characters passes; emptiness is refused where the secret is read.
 */
export function checkAnyPassword(value: string): Finding[] {
  return [...value].length > maxTextLength
    ? [{ severity: 'error', message: `must be at most ${maxTextLength} characters` }]
    : [];
}

function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`;
}
