import * as z from 'zod';
import type { ProblemCode, ProblemList } from './problems.js';
import { didYouMean, suggest } from '../util/suggest.js';
import { formatPath, placeOf, positionAt, toPointer, type PathSegment, type PositionMap } from './source.js';

/**
 * zod issues to one-line problems:
 * each problem names the field, says what is wrong in words, adds the offending value (never for a
 * secret) and a "did you mean" for misspelled fields and enum values, and is placed at the value
 * (or, for an unknown field, its key; for a missing one, the mapping it is missing from).
 */

/** Marks messages zod made up itself, so they are replaced by ours; schema-level messages win. */
const defaultMessage = '\u0000default';
const parseOptions = { error: () => defaultMessage, reportInput: true } as const;

/** Validates `input` against `schema`, reporting every issue; true when valid. The context is made only for issues. */
export function validateWith<T>(
  schema: z.ZodType<T>,
  input: unknown,
  context: () => IssueContext,
): { ok: true; value: T } | { ok: false } {
  const result = schema.safeParse(input, parseOptions);
  if (result.success) return { ok: true, value: result.data };
  reportIssues(result.error.issues, context());
  return { ok: false };
}

export interface IssueContext {
  file: string;
  positions: PositionMap;
  /** `Kind/name`, when known. */
  address: string | undefined;
  /** Where the validated value sits in its document, e.g. `['spec']`. */
  base: readonly PathSegment[];
  /** The value validated, to tell a missing field from a wrong one. */
  input: unknown;
  /** The schema validated against, to list the fields a mapping allows. */
  schema: z.ZodType;
  /** Notes appended to messages about a pointer (relative to `base`), e.g. a defaulted field. */
  notes?: ReadonlyMap<string, string>;
  /** Whether the value at a path (relative to `base`) is a secret: its value is never shown. */
  isSecret: (path: readonly PathSegment[]) => boolean;
  problems: ProblemList;
}

type Issue = z.core.$ZodIssue;

export function reportIssues(
  issues: readonly Issue[],
  context: IssueContext,
  prefix: readonly PathSegment[] = [],
): void {
  const full = issues.map(
    (issue) => ({ ...issue, path: [...prefix, ...issue.path.map(toSegment)] }) as Issue & { path: PathSegment[] },
  );
  // A misspelled required field shows up twice (unknown "reff", missing "ref"); say it once.
  const explained = new Set<string>();
  for (const issue of full) {
    if (issue.code !== 'unrecognized_keys') continue;
    const known = knownKeys(context.schema, issue.path);
    for (const key of issue.keys) {
      const guess = suggest(key, known);
      if (guess !== undefined) explained.add(toPointer([...issue.path, guess]));
    }
  }
  for (const issue of full) reportIssue(issue, context, explained);
}

/** `message (note)`, or `message (got x; note)` when the message ends in parentheses already. */
function withNote(message: string, note: string): string {
  return message.endsWith(')') ? `${message.slice(0, -1)}; ${note})` : `${message} (${note})`;
}

function toSegment(key: PropertyKey): PathSegment {
  return typeof key === 'number' ? key : String(key);
}

function reportIssue(
  issue: Issue & { path: PathSegment[] },
  context: IssueContext,
  explained: ReadonlySet<string>,
): void {
  const path = issue.path;
  const report = (
    code: ProblemCode,
    message: string,
    at: readonly PathSegment[] = path,
    role: 'value' | 'key' = 'value',
  ): void => {
    const where = [...context.base, ...at];
    const position = positionAt(context.positions, toPointer(where), role);
    const note = context.notes?.get(toPointer(at.slice(0, 1)));
    context.problems.error(code, note === undefined ? message : withNote(message, note), {
      source: placeOf(context.file, position),
      ...(context.address === undefined ? {} : { address: context.address }),
      ...(where.length === 0 ? {} : { field: formatPath(where) }),
    });
  };
  const custom = issue.message !== defaultMessage ? issue.message : undefined;
  const actual = valueAt(context.input, path);
  const got = (): string => (context.isSecret(path) ? '' : ` (got ${describeValue(actual.value)})`);
  if (!actual.present && issue.code !== 'unrecognized_keys') {
    // Whatever the schema expected, a field that is not there is simply missing.
    if (!explained.has(toPointer(path))) report('missing_field', 'is required');
    return;
  }
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = knownKeys(context.schema, path);
      for (const key of issue.keys) {
        const hint =
          key === '<<'
            ? ' (YAML merge keys are not supported; repeat the fields, or use an alias for a whole value)'
            : didYouMean(key, known) || allowedList(known);
        report('unknown_field', `unknown field "${key}"${hint}`, [...path, key], 'key');
      }
      return;
    }
    case 'invalid_type': {
      const scalar =
        typeof actual.value === 'number' || typeof actual.value === 'bigint' || typeof actual.value === 'boolean';
      const hint = issue.expected === 'string' && scalar ? '; quote it to make it a string' : '';
      report('invalid_type', custom ?? `must be ${expectedName(issue.expected)}${got().replace(/\)$/, `${hint})`)}`);
      return;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const limit = Number(small ? issue.minimum : (issue as { maximum: number | bigint }).maximum);
      const code: ProblemCode =
        issue.origin === 'string' ? (small ? 'too_short' : 'too_long') : small ? 'too_small' : 'too_large';
      report(code, custom ?? sizeMessage(issue.origin, small, limit, actual.value));
      return;
    }
    case 'invalid_format':
      report('invalid_format', `${custom ?? `must be a valid ${issue.format}`}${got()}`);
      return;
    case 'invalid_value': {
      const values = issue.values.map((value) => String(value));
      if (custom !== undefined) {
        report('invalid_value', custom);
        return;
      }
      const message = values.length === 1 ? `must be ${values[0] as string}` : `must be one of ${values.join(', ')}`;
      const guess = typeof actual.value === 'string' ? didYouMean(actual.value, values) : '';
      report('invalid_value', `${message}${got()}${guess}`);
      return;
    }
    case 'invalid_union': {
      const branch = pickUnionBranch(issue.errors);
      if (branch !== undefined) {
        reportIssues(branch, context, path);
        return;
      }
      report(
        'invalid_type',
        `${custom ?? 'has the wrong shape'}${context.isSecret(path) ? '' : ` (got ${describeValue(actual.value)})`}`,
      );
      return;
    }
    case 'custom':
      report('rule', custom ?? 'is invalid');
      return;
    default:
      report('invalid_value', custom ?? 'is invalid');
  }
}

/**
 * Of a union's failed branches, the one the input was most likely meant for: branches whose very
 * type did not match (a string for an object branch) are out; of the rest, the one with fewest
 * issues. Undefined when no branch fits, so the union's own message is used.
 */
function pickUnionBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const candidates = branches.filter(
    (issues) =>
      !issues.some(
        (issue) => (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.path.length === 0,
      ),
  );
  if (candidates.length === 0) return undefined;
  const fewest = Math.min(...candidates.map((issues) => issues.length));
  const best = candidates.filter((issues) => issues.length === fewest);
  // A tie (`{ fromEnv, fromFile }` fits neither object better) is explained by the union's own message.
  return best.length === 1 ? best[0] : undefined;
}

function valueAt(root: unknown, path: readonly PathSegment[]): { present: boolean; value: unknown } {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment))
      return { present: false, value: undefined };
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return { present: true, value: current };
}

/** The fields a mapping at `path` may hold, found by walking the schema (through optional, default and union). */
export function knownKeys(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let current: z.ZodType[] = [schema];
  for (const segment of [...path, undefined]) {
    const next: z.ZodType[] = [];
    for (const candidate of current.flatMap(unwrap)) {
      if (segment === undefined) {
        if (candidate instanceof z.ZodObject) next.push(candidate);
      } else if (candidate instanceof z.ZodObject && typeof segment === 'string') {
        const field = (candidate.shape as Record<string, z.ZodType>)[segment];
        if (field) next.push(field);
      } else if (candidate instanceof z.ZodArray && typeof segment === 'number') {
        next.push(candidate.element as z.ZodType);
      }
    }
    current = next;
  }
  return [...new Set(current.flatMap((object) => Object.keys((object as z.ZodObject).shape)))];
}

function unwrap(schema: z.ZodType): z.ZodType[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable) {
    return unwrap(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(unwrap);
  return [schema];
}

function allowedList(known: readonly string[]): string {
  if (known.length === 0 || known.length > 12) return '';
  return `; allowed: ${known.join(', ')}`;
}

function expectedName(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
      return 'a mapping (field: value)';
    case 'array':
      return 'a list';
    default:
      return `a ${expected}`;
  }
}

/** A value as shown in a message: short, quoted when a string, described when a collection. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function sizeMessage(origin: string, small: boolean, limit: number, value: unknown): string {
  const bound = small ? 'at least' : 'at most';
  switch (origin) {
    case 'string': {
      const length = typeof value === 'string' ? [...value].length : undefined;
      if (small && limit === 1) return 'must not be empty';
      return `must be ${bound} ${limit} characters long${length === undefined ? '' : ` (got ${length})`}`;
    }
    case 'array': {
      const count = Array.isArray(value) ? value.length : undefined;
      return `must have ${bound} ${limit} ${limit === 1 ? 'item' : 'items'}${count === undefined ? '' : ` (got ${count})`}`;
    }
    default:
      return `must be ${bound} ${limit}${typeof value === 'number' ? ` (got ${value})` : ''}`;
  }
}
