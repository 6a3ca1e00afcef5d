import jsonpatch, { type Operation } from 'fast-json-patch';

/**
 * The generic diff of normalised specs (docs/commands.md, plan): both sides are brought
 * to one comparable shape, then compared field by field and as an RFC 6902 patch.
 */

/** Per kind: set-valued fields with the key of a member, and write-only fields left out of diffs. */
export interface DiffRules {
  setFields: Readonly<Record<string, (member: unknown) => string>>;
  secretFields: readonly string[];
}

/**
 * The comparable form of a spec: `""`, `null` and absent are alike (absent); sets become objects
 * keyed by member, so adding one address is one `add`, never a cascade of index moves; secrets
 * are left out (they are compared through fingerprints).
 */
export function comparable(spec: Readonly<Record<string, unknown>>, rules: DiffRules): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(spec).sort()) {
    if (rules.secretFields.includes(key)) continue;
    const value = canonical(spec[key]);
    if (value === undefined) continue;
    const keyOf = rules.setFields[key];
    out[key] = keyOf && Array.isArray(value) ? keyedSet(value, keyOf) : value;
  }
  return out;
}

function keyedSet(members: unknown[], keyOf: (member: unknown) => string): Record<string, unknown> {
  const byKey: Record<string, unknown> = {};
  for (const member of members) byKey[keyOf(member)] = member;
  return Object.fromEntries(Object.entries(byKey).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function canonical(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const item = canonical((value as Record<string, unknown>)[key]);
      if (item !== undefined) out[key] = item;
    }
    return out;
  }
  return value;
}

export interface SpecDiff {
  /** From live to desired, on the comparable forms. */
  patch: Operation[];
  /** Top-level fields that differ, sorted. */
  changedFields: string[];
}

export function diffSpecs(
  live: Readonly<Record<string, unknown>>,
  desired: Readonly<Record<string, unknown>>,
  rules: DiffRules,
): SpecDiff {
  const before = comparable(live, rules);
  const after = comparable(desired, rules);
  const changed = new Set<string>();
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed.add(key);
  }
  // Equal comparable forms have an empty patch; most resources of a plan are unchanged.
  const patch = changed.size === 0 ? [] : jsonpatch.compare(before, after);
  return { patch, changedFields: [...changed].sort() };
}
