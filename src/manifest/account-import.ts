import { checkRules, defaultOf } from './rules.js';
import { metadataNamePattern } from '../resources/fields.js';
import type { LiveObject } from '../resources/live-side.js';
import type { Kind } from '../resources/kind.js';

/**
 * Import (bring an existing account under management) as a pure function: live objects in,
 * manifest resources out. Each object gets a readable, deterministic `metadata.name`; the API's own
 * name stays in `spec` unchanged, so importing changes nothing in the account. Ids become refs
 * where the target is imported too; fields equal to their default are left out; write-only
 * secrets become `{ fromEnv: VAR }` placeholders with a generated variable name.
 */
export interface ImportedResource {
  kind: string;
  name: string;
  address: string;
  id: string;
  /** The spec as written in the manifest: refs, no defaults, secret placeholders. */
  manifestSpec: Record<string, unknown>;
  /** The spec as the validator will produce it (defaults filled), secrets left out: the ledger's applied spec. */
  appliedSpec: Record<string, unknown>;
  /** Environment variables the manifest reads its secrets from, by field. */
  secretVariables: Record<string, string>;
  /** Why the name was made up, when the live name could not be used as is. */
  madeUpName?: string;
}

/** What a ledger already owns, by kind: live id → its `metadata.name` (the ids of superseded objects too). */
export type OwnedIds = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * `owned`: what the ledger imported into already manages. Those objects are left out (an import never
 * gives an owned id a second address), their names are not reused (nor is an existing entry ever
 * rewritten), and a reference to one becomes a ref to the name the ledger knows it by.
 */
export function importResources(
  kinds: readonly Kind[],
  live: ReadonlyMap<string, readonly LiveObject[]>,
  owned: OwnedIds = new Map(),
): ImportedResource[] {
  const names = new Map<string, Map<string, string>>(); // kind → id → metadata.name
  const named: Array<{ kind: Kind; object: LiveObject; name: string; madeUpName?: string }> = [];
  for (const kind of kinds) {
    const ownedOfKind = owned.get(kind.name) ?? new Map<string, string>();
    const used = new Set<string>(ownedOfKind.values());
    const byId = new Map<string, string>(ownedOfKind);
    names.set(kind.name, byId);
    // Sorted by live name, then id (each object's name looked up once, not at every comparison).
    const objects = (live.get(kind.name) ?? [])
      .filter((object) => !ownedOfKind.has(object.id) && !(kind.live.idle?.(object) ?? false))
      .map((object) => ({ object, key: liveName(kind, object) ?? '' }))
      .sort((a, b) => compare(a.key, b.key) || compare(a.object.id, b.object.id))
      .map(({ object }) => object);
    for (const object of objects) {
      const { name, madeUpName } = chooseName(kind, object, used);
      used.add(name);
      byId.set(object.id, name);
      named.push({ kind, object, name, ...(madeUpName ? { madeUpName } : {}) });
    }
  }
  // Each field's default as JSON, worked out once per kind rather than once per object.
  const defaults = new Map<Kind, Map<string, string | undefined>>();
  const defaultJson = (kind: Kind, field: string): string | undefined => {
    let ofKind = defaults.get(kind);
    if (!ofKind) defaults.set(kind, (ofKind = new Map()));
    if (!ofKind.has(field)) ofKind.set(field, JSON.stringify(defaultOf(kind, field)));
    return ofKind.get(field);
  };
  return named.map(({ kind, object, name, madeUpName }) => {
    const applied: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(object.spec)) {
      if (value === undefined || value === null || value === '') continue;
      const target = kind.references[field];
      const targetName = target && typeof value === 'string' ? names.get(target)?.get(value) : undefined;
      applied[field] = targetName === undefined ? value : { ref: targetName };
    }
    // A field the read left out is unknown: the manifest will say its default, so the state records that as
    // applied (before telform applies the object, the manifest's value is assumed, never a change).
    for (const field of object.unread ?? []) {
      const fallback = applied[field] === undefined ? defaultJson(kind, field) : undefined;
      if (fallback !== undefined) applied[field] = JSON.parse(fallback) as unknown;
    }
    const manifestSpec: Record<string, unknown> = {};
    const nameSchema = kind.nameField ? kind.spec.shape[kind.nameField] : undefined;
    if (kind.nameField && applied[kind.nameField] === undefined && nameSchema?.safeParse('').success) {
      // The object has no name: say so, or the name would default to metadata.name and change it.
      manifestSpec[kind.nameField] = '';
    }
    for (const [field, value] of Object.entries(applied)) {
      if (field === kind.nameField && value === name) continue;
      if (JSON.stringify(value) === defaultJson(kind, field)) continue;
      manifestSpec[field] = value;
    }
    const secretVariables: Record<string, string> = {};
    for (const field of Object.keys(kind.secrets)) {
      if (!secretNeeded(kind, applied, field)) continue;
      const variable = secretVariable(kind.name, name, field);
      secretVariables[field] = variable;
      manifestSpec[field] = { fromEnv: variable };
    }
    return {
      kind: kind.name,
      name,
      address: `${kind.name}/${name}`,
      id: object.id,
      manifestSpec,
      appliedSpec: applied,
      secretVariables,
      ...(madeUpName ? { madeUpName } : {}),
    };
  });
}

/** `TELFORM_SECRET_<KIND>_<NAME>_<FIELD>`, upper case, every other character as `_`. */
export function secretVariable(kind: string, name: string, field: string): string {
  const part = (text: string) =>
    text
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .toUpperCase();
  return `TELFORM_SECRET_${part(kind)}_${part(name)}_${part(field)}`;
}

function secretNeeded(kind: Kind, spec: Readonly<Record<string, unknown>>, field: string): boolean {
  const schema = kind.spec.shape[field];
  if (schema && !schema.safeParse(undefined).success) return true;
  return checkRules(kind, spec).some((violation) => violation.kind === 'missing' && violation.fields.includes(field));
}

function liveName(kind: Kind, object: LiveObject): string | undefined {
  const value = kind.nameField ? object.spec[kind.nameField] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function chooseName(kind: Kind, object: LiveObject, used: ReadonlySet<string>): { name: string; madeUpName?: string } {
  const original = liveName(kind, object);
  if (original !== undefined && metadataNamePattern.test(original) && !used.has(original)) return { name: original };
  const prefix = slug(kind.name);
  const base = slug(original ?? '') || `${prefix}-${slug(object.id).slice(0, 62 - prefix.length) || 'object'}`;
  let name = base.slice(0, 63).replace(/-+$/, '');
  for (let suffix = 2; used.has(name); suffix += 1)
    name = `${base.slice(0, 63 - String(suffix).length - 1).replace(/-+$/, '')}-${suffix}`;
  const why =
    original === undefined
      ? `it has no ${kind.nameField ?? 'name'}`
      : used.has(original) || used.has(slug(original))
        ? `its ${kind.nameField} "${original}" is taken by another ${kind.name}`
        : `its ${kind.nameField} "${original}" is not a valid metadata.name`;
  return { name, madeUpName: `${kind.name}/${name} (id ${object.id}): ${why}` };
}

function slug(text: string): string {
  return text
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
