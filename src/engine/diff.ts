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
    const value = comparableField(key, spec[key], rules);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** One top-level field as `comparable` holds it (undefined: left out). It depends on that field's value alone. */
function comparableField(key: string, value: unknown, rules: DiffRules): unknown {
  if (rules.secretFields.includes(key)) return undefined;
  const item = canonical(value);
  if (item === undefined) return undefined;
  const keyOf = rules.setFields[key];
  return keyOf && Array.isArray(item) ? keyedSet(item, keyOf) : item;
}

/**
 * `comparable(spec, rules)`, made from `form`, the comparable form of a spec that differs from `spec`
 * only in `fields`: each field's form depends on its own value alone, so only those are made again.
 * `form` itself (never changed) when none of them differs; a new object otherwise.
 */
export function comparableChanged(
  form: Readonly<Record<string, unknown>>,
  spec: Readonly<Record<string, unknown>>,
  fields: Iterable<string>,
  rules: DiffRules,
): Readonly<Record<string, unknown>> {
  let out: Record<string, unknown> | undefined;
  let added = false;
  for (const key of fields) {
    const value = comparableField(key, Object.hasOwn(spec, key) ? spec[key] : undefined, rules);
    const current = out ?? form;
    const held = Object.hasOwn(current, key);
    if (value === undefined) {
      if (!held) continue;
      out ??= { ...form };
      delete out[key];
      continue;
    }
    if (held && sameValue(value, current[key])) continue;
    out ??= { ...form };
    out[key] = value;
    if (!held) added = true;
  }
  if (!out) return form;
  if (!added) return out;
  // A field the form did not hold goes where `comparable` puts it: keys in sorted order.
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(out).sort()) sorted[key] = out[key];
  return sorted;
}

function keyedSet(members: unknown[], keyOf: (member: unknown) => string): Record<string, unknown> {
  const keyed = members.map((member) => ({ key: keyOf(member), member }));
  // Stable, so of two members with one key the later wins, as it would in a plain assignment.
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byKey: Record<string, unknown> = {};
  for (const { key, member } of keyed) byKey[key] = member;
  return byKey;
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
  return diffComparable(comparable(live, rules), comparable(desired, rules));
}

/** The diff of two comparable forms (the planner compares one live form with several). */
export function diffComparable(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): SpecDiff {
  const changedFields = changedFieldsOf(before, after);
  // Equal comparable forms have an empty patch; most resources of a plan are unchanged.
  const patch = changedFields.length === 0 ? [] : jsonpatch.compare(before, after);
  return { patch, changedFields };
}

/** Top-level fields whose values differ between two comparable forms, sorted. */
export function changedFieldsOf(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const changed: string[] = [];
  for (const key in before) if (!sameValue(before[key], after[key])) changed.push(key);
  for (const key in after) if (!(key in before)) changed.push(key);
  return changed.sort();
}

/**
 * Deep equality of comparable values (JSON data, object keys already sorted): arrays by position,
 * objects by key, scalars by identity.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    if (!(key in right) || !sameValue(left[key], right[key])) return false;
    count += 1;
  }
  for (const _key in right) count -= 1;
  return count === 0;
}
