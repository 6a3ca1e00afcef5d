import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileFastParse, invalid } from '../../src/manifest/schema-fast-parse.js';
import { catalog } from '../../src/resources/index.js';

/**
 * The fast parse of a spec must answer exactly what zod answers for a valid spec (values, defaults,
 * key order) and `invalid` for every spec zod refuses: it replaces zod's parse on the common path,
 * and a spec it let through wrongly would never be reported.
 */

const repository = path.resolve(import.meta.dirname, '../..');

/** Every spec written in the examples and the test manifests, by kind. */
function specsWritten(): Map<string, Array<Record<string, unknown>>> {
  const specs = new Map<string, Array<Record<string, unknown>>>();
  const folders = [path.join(repository, 'examples'), path.join(repository, 'test')];
  for (const folder of folders) {
    for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
      if (!/\.ya?ml$/.test(file)) continue;
      let documents: unknown[];
      try {
        documents = loadAll(readFileSync(path.join(folder, file), 'utf8'), null, { schema: CORE_SCHEMA });
      } catch {
        continue;
      }
      for (const document of documents) {
        const { kind, spec } = (document ?? {}) as { kind?: unknown; spec?: unknown };
        // An alias bomb's values are not what anyone writes.
        if (
          typeof kind !== 'string' ||
          typeof spec !== 'object' ||
          spec === null ||
          Array.isArray(spec) ||
          !isSmall(spec)
        )
          continue;
        specs.set(kind, [...(specs.get(kind) ?? []), spec as Record<string, unknown>]);
      }
    }
  }
  return specs;
}

function isSmall(value: unknown): boolean {
  try {
    return JSON.stringify(value).length <= 2000;
  } catch {
    return false; // longer than a string can be
  }
}

function agree(schema: z.ZodType, fast: (input: unknown) => unknown, input: unknown): boolean {
  const expected = schema.safeParse(input);
  const actual = fast(input);
  if (!expected.success) {
    expect(actual, JSON.stringify(input)).toBe(invalid);
    return false;
  }
  expect(actual, JSON.stringify(input)).not.toBe(invalid);
  // Deep, strict and in order: the planner prints fields in the parsed order.
  expect(
    isDeepStrictEqual(actual, expected.data) && JSON.stringify(actual) === JSON.stringify(expected.data),
    JSON.stringify(input),
  ).toBe(true);
  return true;
}

describe('compileFastParse', () => {
  it('reads every kind of the catalog (a kind it cannot read is parsed by zod alone, more slowly)', () => {
    const unread = catalog.kinds.filter((kind) => compileFastParse(kind.spec) === undefined).map((kind) => kind.name);
    expect(unread).toEqual([]);
  });

  it('answers undefined for a schema with parts it does not read', () => {
    expect(compileFastParse(z.strictObject({ a: z.string().transform((value) => value.length) }))).toBeUndefined();
    expect(compileFastParse(z.strictObject({ a: z.string() }).refine(() => true))).toBeUndefined();
    expect(compileFastParse(z.strictObject({ a: z.email() }))).toBeUndefined();
    expect(compileFastParse(z.looseObject({ a: z.string() }))).toBeUndefined();
  });

  it('agrees with zod on the edges of lengths, bounds, defaults and unions', () => {
    const schema = z.strictObject({
      name: z.string().min(2).max(3),
      count: z.number().gt(0).lte(10).optional(),
      mode: z.enum(['a', 'b']).default('a'),
      kept: z
        .array(z.union([z.literal(1), z.strictObject({ ref: z.string().regex(/^x/) })]))
        .max(2)
        .optional(),
      later: z.boolean().default(true).optional(),
    });
    const fast = compileFastParse(schema) as (input: unknown) => unknown;
    const cases: unknown[] = [
      { name: 'ab' },
      { name: '😀' },
      { name: '😀😀' },
      { name: '😀😀😀😀' },
      { name: 'a' },
      { name: 'abcd' },
      { name: 'ab', count: 0 },
      { name: 'ab', count: 10, mode: 'b', kept: [1, { ref: 'xy' }] },
      { name: 'ab', count: 10.5 },
      { name: 'ab', count: Number.NaN },
      { name: 'ab', kept: [1, 1, 1] },
      { name: 'ab', kept: [{ ref: 'y' }] },
      { name: 'ab', kept: [{ ref: 'x', other: 1 }] },
      { name: 'ab', later: false, extra: 1 },
      { name: 'ab', mode: null },
      ['ab'],
      null,
    ];
    const valid = cases.filter((input) => agree(schema, fast, input));
    expect(valid).toHaveLength(3);
  });

  const written = specsWritten();
  const anyValue = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('ref', 'fromEnv', 'fromFile', 'ip', 'x'),
      fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
    ),
  );

  for (const kind of catalog.kinds) {
    it(`agrees with zod on ${kind.name} specs as written and changed`, () => {
      const fast = compileFastParse(kind.spec) as (input: unknown) => unknown;
      const fields = Object.keys(kind.spec.shape);
      const specs = written.get(kind.name) ?? [];
      // Values written for each field, by any spec of the kind.
      const seen = (field: string) => specs.flatMap((spec) => (Object.hasOwn(spec, field) ? [spec[field]] : []));
      const change = fc.oneof(
        fc.record({ field: fc.constantFrom(...fields, 'unknown_field'), to: anyValue }),
        fc.record({ field: fc.constantFrom(...fields), to: fc.constant(undefined) }),
        ...fields
          .filter((field) => seen(field).length > 0)
          .map((field) => fc.record({ field: fc.constant(field), to: fc.constantFrom(...seen(field)) })),
      );
      const base = specs.length > 0 ? fc.constantFrom(...specs) : fc.constant({});
      let valid = 0;
      fc.assert(
        fc.property(base, fc.array(change, { maxLength: 3 }), (spec, changes) => {
          const input: Record<string, unknown> = { ...spec };
          // The loader fills the API name field with metadata.name before parsing.
          if (kind.nameField !== undefined && !Object.hasOwn(input, kind.nameField))
            input[kind.nameField] = 'default-name';
          for (const { field, to } of changes) {
            if (to === undefined) delete input[field];
            else input[field] = to;
          }
          if (agree(kind.spec, fast, input)) valid++;
        }),
        { numRuns: 500 },
      );
      // Specs zod accepts are among them (where anything is written), so answered values are compared too.
      if (specs.length > 0) expect(valid).toBeGreaterThan(0);
    });
  }
});
