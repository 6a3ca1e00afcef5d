import type { SecretSourceRef } from './model.js';

/**
 * How a secret's source reads in a plan, a ledger note or an error: where the value comes from,
 * never the value. A reviewer approves what the plan shows, so a secret that starts coming from
 * another variable or file must be visible as such, not as an unexplained "(sensitive)".
 */
export function describeSecretRef(ref: SecretSourceRef): string {
  if ('fromEnv' in ref) return `from env ${ref.fromEnv}`;
  if ('fromFile' in ref) return `from file ${ref.fromFile}`;
  return 'literal in the manifest';
}

/** `(sensitive, from env PBX_PW)`: the placeholder a plan shows for a secret. */
export function sensitiveLabel(ref: SecretSourceRef | undefined): string {
  return ref ? `(sensitive, ${describeSecretRef(ref)})` : '(sensitive)';
}

export function sameSecretRef(a: SecretSourceRef, b: SecretSourceRef): boolean {
  return describeSecretRef(a) === describeSecretRef(b);
}
