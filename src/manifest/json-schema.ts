import * as z from 'zod';
import type { KindCatalog } from '../resources/index.js';
import type { Condition, Kind, SpecRule } from '../resources/kind.js';
import { apiVersion, envelopeSchema } from './document.js';
import { defaultOf } from './rules.js';

/**
 * The JSON Schema of a manifest document, for editors through the
 * `yaml-language-server` comment. Generated from the same zod schemas the validator uses, by
 * zod 4's own conversion, and committed as `schemas/manifest.schema.json` (a test fails when it
 * is stale; `npm run schemas` rewrites it). One schema switches on `kind` with `if`/`then`, so an
 * editor reports the errors of the kind written, and each kind's conditional rules become
 * `if`/`then` too. Draft-07, the draft editors support best.
 */

type JsonSchema = Record<string, unknown>;

function convert(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  delete json['$schema'];
  return json;
}

export function buildManifestJsonSchema(catalog: KindCatalog): JsonSchema {
  const envelope = convert(
    envelopeSchema.extend({ kind: z.enum(catalog.names as [string, ...string[]]).describe('The kind of resource.') }),
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `telform manifest (${apiVersion})`,
    ...envelope,
    allOf: catalog.kinds.map((kind) => ({
      if: { properties: { kind: { const: kind.name } }, required: ['kind'] },
      then: { properties: { spec: specSchema(kind) } },
    })),
  };
}

/** `{ value: NAME }` (docs/values-and-waves.md): taken wherever a literal is, except by secrets. */
const valueReference: JsonSchema = {
  type: 'object',
  properties: {
    value: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,62}$',
      description: 'A value given by the accounts file or --values / --value.',
    },
  },
  required: ['value'],
  additionalProperties: false,
};

function specSchema(kind: Kind): JsonSchema {
  const json = convert(kind.spec);
  const properties = json['properties'] as Record<string, JsonSchema> | undefined;
  for (const [field, property] of Object.entries(properties ?? {})) {
    if (field in kind.secrets) continue;
    const { description, ...rest } = property;
    (properties as Record<string, JsonSchema>)[field] = {
      ...(description === undefined ? {} : { description }),
      anyOf: [rest, valueReference],
    };
  }
  json['description'] = `${kind.name}: ${kind.description}`;
  const rules = kind.rules.map((rule) => ruleSchema(kind, rule));
  if (rules.length > 0) json['allOf'] = rules;
  return json;
}

function conditionSchema(kind: Kind, condition: Condition): JsonSchema {
  const field = condition.field;
  if ('present' in condition) return condition.present ? { required: [field] } : { not: { required: [field] } };
  if ('notIn' in condition)
    return { properties: { [field]: { not: { enum: [...condition.notIn] } } }, required: [field] };
  // An absent field has its default; the condition holds then when the default is among the values.
  const holdsWhenAbsent = condition.in.some((value) => value === defaultOf(kind, field));
  return { properties: { [field]: { enum: [...condition.in] } }, ...(holdsWhenAbsent ? {} : { required: [field] }) };
}

function ruleSchema(kind: Kind, rule: SpecRule): JsonSchema {
  const then: JsonSchema[] = [];
  if (rule.require && rule.require.length > 0) then.push({ required: [...rule.require] });
  if (rule.requireOneOf && rule.requireOneOf.length > 0)
    then.push({ anyOf: rule.requireOneOf.map((field) => ({ required: [field] })) });
  if (rule.forbid && rule.forbid.length > 0)
    then.push({ properties: Object.fromEntries(rule.forbid.map((field) => [field, false])) });
  return {
    if: conditionSchema(kind, rule.when),
    then: then.length === 1 ? then[0] : { allOf: then },
    description: rule.reason,
  };
}

/** The file as committed: two-space JSON with a final newline. */
export function renderManifestJsonSchema(catalog: KindCatalog): string {
  return `${JSON.stringify(buildManifestJsonSchema(catalog), null, 2)}\n`;
}
