import type { z } from 'zod';

/**
 * A kind's spec schema, read once into plain checking functions for the common case: a valid spec.
 * zod's own parse allocates a result record per field and runs each check through generic code,
 * which for a command that validates thousands of documents once costs more than the documents'
 * YAML; these functions do the same checks directly. They answer the parsed value (defaults filled,
 * fields in the schema's order, exactly what zod answers) or `invalid`, and the caller then asks
 * zod, whose issues make every message. So zod stays the only definition of a spec, and the only
 * source of messages; a test holds the two parses together over every kind.
 *
 * Only what the kinds' schemas use is read: strict and plain objects, optional, default, union,
 * array, string (length and regex checks), number and int (bounds), boolean, enum, literal, never. A
 * schema using anything else gets no fast parse (`compileFastParse` answers undefined).
 */
export const invalid: unique symbol = Symbol('invalid');

export type FastParse = (input: unknown) => unknown;

interface Compiled {
  parse: FastParse;
  /** What a field left out becomes: a value, `omitted` (no key), or `invalid` (required). */
  absent: () => unknown;
}

const omitted = Symbol('omitted');

class Unsupported extends Error {}

/**
 * `lenient` reads a value the account holds: types and known fields are checked, value rules
 * (lengths, patterns, bounds, enum members, required fields) are not. It gives the spec of a
 * document whose only problems are such rules (`held_value`, docs/real-accounts.md).
 */
export function compileFastParse(schema: z.ZodType, lenient = false): FastParse | undefined {
  try {
    return compile(schema, lenient).parse;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** zod's definition objects, read loosely: which fields exist depends on `type`. */
interface Definition {
  type: string;
  checks?: Array<{ _zod: { def: CheckDefinition } }>;
  coerce?: boolean;
  format?: string;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  readonly defaultValue?: unknown;
}

interface CheckDefinition {
  check: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
}

function definitionOf(schema: z.ZodType): Definition {
  return schema._zod.def as unknown as Definition;
}

const required = (): unknown => invalid;
const leftOut = (): unknown => omitted;

function compile(schema: z.ZodType, lenient: boolean): Compiled {
  const definition = definitionOf(schema);
  const absentRequired = lenient ? leftOut : required;
  // Checks (a refinement, a size) are read on strings, numbers and lists only.
  if ((definition.checks ?? []).length > 0 && !['string', 'number', 'array'].includes(definition.type))
    throw new Unsupported();
  switch (definition.type) {
    case 'string': {
      if (definition.coerce || definition.format !== undefined) throw new Unsupported();
      const check = lenient ? () => true : compileChecks(definition, 'string');
      return {
        parse: (input) => (typeof input === 'string' && check(input) ? input : invalid),
        absent: absentRequired,
      };
    }
    case 'number': {
      // `z.int()` is a number of format `safeint`: a whole number a double holds exactly.
      if (definition.coerce || (definition.format !== undefined && definition.format !== 'safeint'))
        throw new Unsupported();
      const whole = definition.format === 'safeint';
      const strictCheck = compileChecks(definition, 'number');
      const check = lenient ? () => true : strictCheck;
      return {
        parse: (input) =>
          typeof input === 'number' && (whole ? Number.isSafeInteger(input) : Number.isFinite(input)) && check(input)
            ? input
            : invalid,
        absent: absentRequired,
      };
    }
    case 'boolean':
      if (definition.coerce) throw new Unsupported();
      return { parse: (input) => (typeof input === 'boolean' ? input : invalid), absent: absentRequired };
    case 'enum':
    case 'literal': {
      const values = schema._zod.values;
      if (!values) throw new Unsupported();
      // Leniently, any value of a member's type: a member the create rules no longer offer.
      const types = new Set([...values].map((value) => typeof value));
      const member = lenient
        ? (input: unknown) => values.has(input as never) || types.has(typeof input)
        : (input: unknown) => values.has(input as never);
      return { parse: (input) => (member(input) ? input : invalid), absent: absentRequired };
    }
    case 'never':
      return { parse: () => invalid, absent: required };
    case 'optional': {
      const inner = compile(definition.innerType as z.ZodType, lenient);
      const innerType = definitionOf(definition.innerType as z.ZodType).type;
      // A default inside fills a left-out field; anything else optional inside is not read here.
      if (innerType !== 'default' && (definition.innerType as z.ZodType)._zod.optin !== undefined)
        throw new Unsupported();
      return { parse: inner.parse, absent: innerType === 'default' ? inner.absent : () => omitted };
    }
    case 'default': {
      const inner = compile(definition.innerType as z.ZodType, lenient);
      // The definition's getter: zod hands out a fresh copy of an object default each time.
      return { parse: inner.parse, absent: () => definition.defaultValue };
    }
    case 'union': {
      const strictOptions = (definition.options ?? []).map((option) => {
        if (option._zod.optin !== undefined) throw new Unsupported();
        return compile(option, false).parse;
      });
      // Leniently, a branch the value fits in full wins over one it fits only by its type.
      const options = lenient
        ? [...strictOptions, ...(definition.options ?? []).map((option) => compile(option, true).parse)]
        : strictOptions;
      return {
        parse: (input) => {
          for (const option of options) {
            const value = option(input);
            if (value !== invalid) return value;
          }
          return invalid;
        },
        absent: absentRequired,
      };
    }
    case 'array': {
      const element = compile(definition.element as z.ZodType, lenient).parse;
      const strictCheck = compileChecks(definition, 'array');
      const check = lenient ? () => true : strictCheck;
      return {
        parse: (input) => {
          if (!Array.isArray(input) || !check(input)) return invalid;
          const out: unknown[] = new Array(input.length);
          for (let index = 0; index < input.length; index++) {
            const value = element(input[index]);
            if (value === invalid) return invalid;
            out[index] = value;
          }
          return out;
        },
        absent: absentRequired,
      };
    }
    case 'object':
      return { parse: compileObject(definition, lenient), absent: absentRequired };
    default:
      throw new Unsupported();
  }
}

function compileObject(definition: Definition, lenient: boolean): FastParse {
  const strict = definition.catchall !== undefined;
  if (strict && definitionOf(definition.catchall as z.ZodType).type !== 'never') throw new Unsupported();
  const shape = definition.shape ?? {};
  const keys = Object.keys(shape);
  const known = new Set(keys);
  const fields = keys.map((key) => ({ key, ...compile(shape[key] as z.ZodType, lenient) }));
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return invalid;
    const record = input as Record<string, unknown>;
    if (strict) {
      for (const key in record) if (!known.has(key)) return invalid;
    }
    // In the schema's order, as zod builds its result.
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const value = field.key in record ? field.parse(record[field.key]) : field.absent();
      if (value === invalid) return invalid;
      if (value !== omitted) out[field.key] = value;
    }
    return out;
  };
}

type Subject = 'string' | 'number' | 'array';

/** The schema's checks as one predicate; a check of another sort makes the schema unsupported. */
type Checked = string | number | unknown[];

function compileChecks(definition: Definition, subject: Subject): (input: Checked) => boolean {
  const tests: Array<(input: Checked) => boolean> = [];
  for (const check of definition.checks ?? []) {
    const { check: sort, minimum, maximum, pattern, value, inclusive, format } = check._zod.def;
    if (sort === 'min_length' && subject !== 'number' && typeof minimum === 'number') {
      // Counting code points is needed only between the bound and twice it, as in zod.
      tests.push((checked) => {
        const input = checked as string | unknown[];
        return input.length >= 2 * minimum || (input.length >= minimum && lengthOf(input) >= minimum);
      });
    } else if (sort === 'max_length' && subject !== 'number' && typeof maximum === 'number') {
      tests.push((checked) => {
        const input = checked as string | unknown[];
        return input.length <= maximum || lengthOf(input) <= maximum;
      });
    } else if (sort === 'string_format' && format === 'regex' && subject === 'string' && pattern instanceof RegExp) {
      tests.push((input) => {
        pattern.lastIndex = 0;
        return pattern.test(input as string);
      });
    } else if ((sort === 'greater_than' || sort === 'less_than') && subject === 'number' && typeof value === 'number') {
      const above = sort === 'greater_than';
      tests.push((checked) => {
        const input = checked as number;
        return above ? (inclusive ? input >= value : input > value) : inclusive ? input <= value : input < value;
      });
    } else {
      throw new Unsupported();
    }
  }
  if (tests.length === 0) return () => true;
  return (input) => {
    for (const test of tests) if (!test(input)) return false;
    return true;
  };
}

/** Any UTF-16 surrogate: a string without one has as many code points as code units. */
const surrogate = /[\uD800-\uDFFF]/;

/** zod measures a string in code points (a surrogate pair is one character), a list in items. */
function lengthOf(input: string | unknown[]): number {
  if (typeof input !== 'string') return input.length;
  // Most text has no surrogate: the regular expression answers that natively, where the loop below
  // runs in the interpreter (a short command's code is rarely optimised) over every character.
  if (!surrogate.test(input)) return input.length;
  let count = input.length;
  for (let index = 0; index < input.length - 1; index++) {
    if ((input.charCodeAt(index) & 0xfc00) === 0xd800 && (input.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count--;
      index++;
    }
  }
  return count;
}
