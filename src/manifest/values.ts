// Values: per-account (or per-run) data a manifest takes by reference, `{ value: NAME }`, where it
// would take a literal. They come from the accounts file (`defaults.values`, an account's `values`)
// or, for a single-account run, from `--values FILE` and `--value NAME=V`. A value is substituted
// into the document before the kind's schema checks it, so every rule of the field applies to it
// exactly as to a literal; a problem inside a substituted value also names where the value was given.
import type { SourcePlace } from '../util/errors.js';
import { TelformError } from '../util/errors.js';
import { didYouMean } from '../util/suggest.js';
import type { ProblemList } from './problems.js';
import { formatPath, placeOf, positionAt, toPointer, type PathSegment, type PositionMap } from './source.js';

/** Where a value was given: a place in a file (accounts or values file), or the command line. */
export interface ValueOrigin {
  /** `accounts.yaml:14:9`, or `--value` for the command line. */
  where: string;
  place?: SourcePlace;
}

export interface GivenValue {
  value: unknown;
  origin: ValueOrigin;
}

/** Values by name. */
export type ValueSet = ReadonlyMap<string, GivenValue>;

/** One value as a plan shows it: its name, value, origin and the resources that use it. */
export interface UsedValue {
  name: string;
  value: unknown;
  origin: string;
  used_by: string[];
}

/** A value name: like an identifier, so it reads the same in YAML, on the command line and in messages. */
export const valueNamePattern = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

/** `{ value: NAME }`: a mapping with exactly that one key, holding a string. */
export function isValueReference(value: unknown): value is { value: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'value' && typeof (value as { value: unknown }).value === 'string';
}

function isScalarValue(value: unknown): boolean {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

/**
 * What a value may hold: a scalar, or a list of scalars or of flat mappings of scalars (ACL
 * addresses, SIP ACL entries). Never a reference, a secret source or anything nested deeper:
 * values are data, and secrets stay `fromEnv`/`fromFile`. Returns why not, or undefined.
 */
export function valueShapeProblem(value: unknown): string | undefined {
  if (isScalarValue(value)) return undefined;
  if (value === null || value === undefined) return 'a value cannot be empty (null)';
  if (!Array.isArray(value)) return 'a value is a string, number, boolean or a list of them (a mapping is not a value)';
  for (const member of value) {
    if (isScalarValue(member)) continue;
    if (
      typeof member === 'object' &&
      member !== null &&
      !Array.isArray(member) &&
      Object.values(member).every(isScalarValue)
    )
      continue;
    return 'a list value holds strings, numbers, booleans or flat mappings of them';
  }
  return undefined;
}

/** The YAML nodes of a `values:` mapping to given values, each with its place; throws on a bad one. */
export function valuesFromYaml(
  input: unknown,
  file: string,
  label: string,
  placeOfName: (name: string) => SourcePlace,
  error: (message: string, place: SourcePlace) => TelformError,
): Map<string, GivenValue> {
  const values = new Map<string, GivenValue>();
  if (input === undefined || input === null) return values;
  if (typeof input !== 'object' || Array.isArray(input))
    throw error(`${label}: expected a mapping of value names to values`, placeOfName(''));
  for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
    const place = placeOfName(name);
    if (!valueNamePattern.test(name))
      throw error(
        `${label}.${name}: a value name is letters, digits, "_" or "-", starting with a letter or "_"`,
        place,
      );
    const shape = valueShapeProblem(value);
    if (shape) throw error(`${label}.${name}: ${shape}`, place);
    values.set(name, { value, origin: { where: `${file}:${place.line}:${place.column}`, place } });
  }
  return values;
}

/** `--values FILE` then `--value NAME=V` (the command line wins over the file). */
export function mergeValues(...sets: ReadonlyArray<ValueSet | undefined>): Map<string, GivenValue> {
  const merged = new Map<string, GivenValue>();
  for (const set of sets) for (const [name, given] of set ?? []) merged.set(name, given);
  return merged;
}

/** A value substituted into a document: where (a path from the document root) and which. */
export interface Substitution {
  path: PathSegment[];
  /** Where the `{ value: NAME }` reference is written in the manifest. */
  place: SourcePlace;
  name: string;
  given: GivenValue;
}

/**
 * Tracks which values the manifests use, for the plan (each value and its origin) and for the
 * warning about a value no manifest uses (most likely a misspelled name).
 */
export class ValueUse {
  readonly #used = new Map<string, Set<string>>();

  constructor(readonly values: ValueSet | undefined) {}

  /** A copy to record into, joined back only if kept (a file tried on the fast path). */
  fork(): ValueUse {
    return new ValueUse(this.values);
  }

  join(other: ValueUse): void {
    for (const [name, users] of other.#used) for (const address of users) this.record(name, address);
  }

  record(name: string, address: string): void {
    let users = this.#used.get(name);
    if (!users) this.#used.set(name, (users = new Set()));
    users.add(address);
  }

  /** Every value used, by name, with the resources using it (sorted). */
  used(): UsedValue[] {
    const out: UsedValue[] = [];
    for (const name of [...this.#used.keys()].sort()) {
      const given = this.values?.get(name);
      if (!given) continue;
      out.push({
        name,
        value: given.value,
        origin: given.origin.where,
        used_by: [...(this.#used.get(name) ?? [])].sort(),
      });
    }
    return out;
  }

  /** A value given but used by no manifest: a warning at the place it was given. */
  reportUnused(problems: ProblemList): void {
    for (const [name, given] of this.values ?? []) {
      if (this.#used.has(name)) continue;
      if (given.origin.place)
        problems.warning('value_unused', `value ${name} is given but no manifest uses it`, {
          source: given.origin.place,
        });
      else problems.warning('value_unused', `value ${name} is given (${given.origin.where}) but no manifest uses it`);
    }
  }
}

interface SubstituteContext {
  file: string;
  positions: PositionMap;
  address: string | undefined;
  secretFields: readonly string[];
  use: ValueUse;
  problems: ProblemList;
}

/**
 * Replaces every `{ value: NAME }` in a document's `spec` by the value, in place, and returns
 * what it replaced. A name with no value, and a value in a secret field, are errors at the
 * reference (the reference is left as it is, so the schema check reports nothing more about it
 * than that it is not a literal: the document yields no resource either way).
 */
export function substituteValues(
  document: unknown,
  context: SubstituteContext,
): { substitutions: Substitution[]; failed: PathSegment[][] } {
  const substitutions: Substitution[] = [];
  const failed: PathSegment[][] = [];
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { substitutions, failed };
  const spec = (document as Record<string, unknown>)['spec'];
  if (typeof spec !== 'object' || spec === null) return { substitutions, failed };
  // One path, grown and shrunk as the walk goes (most documents hold no reference): copied only at one.
  const path: PathSegment[] = ['spec'];
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number): void => {
    const current = (holder as Record<string | number, unknown>)[key];
    if (typeof current !== 'object' || current === null) return;
    path.push(key);
    if (isValueReference(current)) replace(holder, key, current.value, [...path]);
    else if (Array.isArray(current)) for (let index = 0; index < current.length; index++) visit(current, index);
    else for (const child of Object.keys(current)) visit(current as Record<string, unknown>, child);
    path.pop();
  };
  const replace = (
    holder: Record<string, unknown> | unknown[],
    key: string | number,
    name: string,
    path: PathSegment[],
  ): void => {
    const where = {
      source: placeOf(context.file, positionAt(context.positions, toPointer(path))),
      ...(context.address ? { address: context.address } : {}),
      field: formatPath(path),
    };
    if (context.secretFields.includes(String(path[1]))) {
      if (context.use.values?.has(name)) context.use.record(name, context.address ?? context.file);
      context.problems.error(
        'value_secret',
        'a secret is never a value; use { fromEnv: VARIABLE } or { fromFile: path }',
        where,
      );
      failed.push(path);
      return;
    }
    const given = context.use.values?.get(name);
    if (!given) {
      const known = [...(context.use.values?.keys() ?? [])];
      const hint =
        didYouMean(name, known) ||
        (known.length === 0
          ? '; no values are given (--values FILE, --value NAME=V, or values in the accounts file)'
          : '');
      context.problems.error('value_missing', `value ${name} is not given${hint}`, where);
      failed.push(path);
      return;
    }
    context.use.record(name, context.address ?? context.file);
    // A copy: one value may be used by many documents, and the schema parse may rewrite members.
    (holder as Record<string | number, unknown>)[key] = structuredClone(given.value);
    substitutions.push({ path, place: where.source, name, given });
  };
  for (const field of Object.keys(spec)) visit(spec as Record<string, unknown>, field);
  return { substitutions, failed };
}

/** Whether a problem's field lies at or under a path (`spec.ip_addresses[1]` lies under `spec.ip_addresses`). */
export function fieldUnder(path: readonly PathSegment[], field: string | undefined): boolean {
  if (field === undefined) return false;
  const prefix = formatPath(path);
  return field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`);
}
