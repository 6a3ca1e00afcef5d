import * as z from 'zod';
import type { Kind, SpecRule } from './kind.js';

/**
 * `telform explain KIND[.field]` as data: read from the same zod schema, rules and live field
 * rules the validator and the planner use, so it cannot say something they do not do.
 */
export interface FieldExplanation {
  kind: string;
  /** Dotted path inside `spec`, e.g. `entries.ip`. */
  path: string;
  type: string;
  description: string | undefined;
  required: boolean;
  default: unknown;
  /** Value rules and conditional requirements, one sentence each. */
  rules: string[];
  /** What changing it on an existing object does: in place, replace, billable, irreversible, blocked. */
  change: string[];
}

export interface KindExplanation {
  kind: string;
  description: string;
  /** Kind-level facts: the name field, the natural key, deletes. */
  facts: string[];
  fields: FieldExplanation[];
}

type JsonSchema = Record<string, unknown>;

function toJson(kind: Kind): JsonSchema {
  return z.toJSONSchema(kind.spec, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

const asSchema = (value: unknown): JsonSchema =>
  value !== null && typeof value === 'object' ? (value as JsonSchema) : {};

/** A JSON Schema node as a short type: `string (uuid)`, `one of: inbound, outbound`, `list of string`. */
export function describeType(schema: JsonSchema): string {
  if (Array.isArray(schema['enum']))
    return `one of: ${(schema['enum'] as unknown[]).map((value) => String(value)).join(', ')}`;
  if ('const' in schema) return `exactly ${JSON.stringify(schema['const'])}`;
  const alternatives = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined;
  if (Array.isArray(alternatives))
    return alternatives.map((alternative) => describeType(asSchema(alternative))).join(', or ');
  const type = schema['type'];
  if (type === 'array') return `list of ${describeType(asSchema(schema['items']))}`;
  if (type === 'object') {
    const properties = Object.keys(asSchema(schema['properties']));
    return properties.length > 0 ? `object { ${properties.join(', ')} }` : 'object';
  }
  if (typeof type === 'string') return schema['format'] ? `${type} (${String(schema['format'])})` : type;
  return 'any';
}

/** Limits written in the schema: lengths, patterns, ranges, counts. */
function valueRules(schema: JsonSchema): string[] {
  const rules: string[] = [];
  const range = (low: string, high: string, unit: string): void => {
    const min = schema[low];
    const max = schema[high];
    if (typeof min === 'number' && typeof max === 'number') rules.push(`${unit} ${min} to ${max}`);
    else if (typeof min === 'number') rules.push(`${unit} at least ${min}`);
    else if (typeof max === 'number') rules.push(`${unit} at most ${max}`);
  };
  range('minLength', 'maxLength', 'length');
  range('minimum', 'maximum', 'value');
  range('minItems', 'maxItems', 'items');
  if (typeof schema['pattern'] === 'string') rules.push(`matches ${String(schema['pattern'])}`);
  return rules;
}

function ruleSentence(rule: SpecRule): string {
  const when =
    'present' in rule.when
      ? `${rule.when.field} is ${rule.when.present ? 'given' : 'not given'}`
      : 'in' in rule.when
        ? `${rule.when.field} is ${rule.when.in.map(String).join(' or ')}`
        : `${rule.when.field} is not ${rule.when.notIn.map(String).join(' or ')}`;
  const parts: string[] = [];
  if (rule.require?.length) parts.push(`${rule.require.join(', ')} required`);
  if (rule.requireOneOf?.length) parts.push(`one of ${rule.requireOneOf.join(', ')} required`);
  if (rule.forbid?.length) parts.push(`${rule.forbid.join(', ')} not allowed`);
  return `when ${when}: ${parts.join('; ')} (${rule.reason})`;
}

/** What telform does with a field a read may leave out (docs/real-accounts.md). */
const unreadSentence =
  "some reads of the API leave it out: it is then unknown, compared with the value telform last applied (or the manifest's, before the first apply), never drift or a reason to replace";

function changeBehaviour(kind: Kind, field: string): string[] {
  const { fields } = kind.live;
  if (kind.live.keyField?.field === field) return [`blocked: ${field} ${kind.live.keyField.explain}`];
  if (fields.immutable.includes(field))
    return [
      'blocked: the API cannot change it on an existing object; the plan refuses the change (delete the resource or revert the manifest)',
    ];
  if (fields.replaceOn.includes(field)) {
    const lines = [
      `replace: a new ${kind.name} is created and the old one deleted (${kind.live.replaceStrategy === 'create_before_delete' ? 'the new one first' : 'the old one first: both cannot exist at once'})`,
    ];
    if (kind.live.irreversibleDelete)
      lines.push('irreversible: the old one cannot be brought back; apply needs --allow-irreversible');
    return lines;
  }
  if (fields.updatable.includes(field)) {
    const lines = ['in place: updated on the existing object'];
    if (kind.live.billableUpdateUsd > 0)
      lines.push(`billable: each update costs ${kind.live.billableUpdateUsd} USD (apply needs --max-cost)`);
    if (kind.live.updateRefusal)
      lines.push('blocked while the live object is in a state the API refuses updates in (the plan says which)');
    return lines;
  }
  return ['not updated: set when the object is created'];
}

function explainTopField(kind: Kind, json: JsonSchema, field: string): FieldExplanation {
  const schema = asSchema(asSchema(json['properties'])[field]);
  const rules = valueRules(schema);
  const target = kind.references[field];
  if (target) rules.push(`a literal id, or { ref: NAME } of a ${target} in the manifests`);
  if (field in kind.secrets)
    rules.push(
      'a secret: { fromEnv: VAR }, { fromFile: PATH } or a literal (warned); write-only, never printed or stored',
    );
  if (field in kind.setFields) rules.push('a set: order does not matter, and a duplicate member is an error');
  if (kind.uniqueFields.includes(field)) rules.push(`unique among ${kind.name} resources`);
  if (kind.nameField === field) rules.push('defaults to metadata.name');
  if (kind.live.fields.mayBeUnread?.includes(field)) rules.push(unreadSentence);
  for (const rule of kind.rules) {
    const named = [rule.when.field, ...(rule.require ?? []), ...(rule.requireOneOf ?? []), ...(rule.forbid ?? [])];
    if (named.includes(field)) rules.push(ruleSentence(rule));
  }
  const required =
    Array.isArray(json['required']) && (json['required'] as string[]).includes(field) && !('default' in schema);
  return {
    kind: kind.name,
    path: field,
    type: describeType(schema),
    description: typeof schema['description'] === 'string' ? schema['description'] : undefined,
    required,
    default: schema['default'],
    rules,
    change: changeBehaviour(kind, field),
  };
}

/** One field (`entries.ip` walks into lists and objects); undefined when the kind has no such field. */
export function explainField(kind: Kind, path: string): FieldExplanation | undefined {
  const json = toJson(kind);
  const [top, ...rest] = path.split('.');
  if (!top || !(top in asSchema(json['properties']))) return undefined;
  const topLevel = explainTopField(kind, json, top);
  if (rest.length === 0) return topLevel;
  let parent = asSchema(asSchema(json['properties'])[top]);
  let schema: JsonSchema | undefined;
  for (const segment of rest) {
    if (parent['type'] === 'array') parent = asSchema(parent['items']);
    const properties = asSchema(parent['properties']);
    if (!(segment in properties)) return undefined;
    schema = asSchema(properties[segment]);
    const required = Array.isArray(parent['required']) && (parent['required'] as string[]).includes(segment);
    if (segment === rest[rest.length - 1]) {
      return {
        kind: kind.name,
        path,
        type: describeType(schema),
        description: typeof schema['description'] === 'string' ? schema['description'] : undefined,
        required: required && !('default' in schema),
        default: schema['default'],
        rules: valueRules(schema),
        change: topLevel.change.map((line) => `${line} (as a change of ${top})`),
      };
    }
    parent = schema;
  }
  return undefined;
}

export function explainKind(kind: Kind): KindExplanation {
  const json = toJson(kind);
  const facts: string[] = [];
  if (kind.nameField) facts.push(`name field: ${kind.nameField} (defaults to metadata.name)`);
  facts.push(
    `delete: ${kind.live.irreversibleDelete ? 'irreversible (apply needs --allow-irreversible ADDRESS)' : 'can be recreated'}`,
  );
  if (kind.live.billableUpdateUsd > 0) {
    facts.push(
      `billable: ${kind.live.billableUpdateUsd} USD per update (a vetting review); registering a ${kind.name.toLowerCase()}, new or replacing another, is not billed, but registering a deleted one again by telform revert is (another vetting review)`,
    );
  }
  if (kind.live.whenInUse) facts.push(`deleting it while in use: ${kind.live.whenInUse.replace(/_/g, ' ')}`);
  const unread = kind.live.fields.mayBeUnread ?? [];
  if (unread.length > 0)
    facts.push(`not always read back by the API: ${unread.join(', ')} (${unreadSentence.replace(/^[^:]*: /, '')})`);
  return {
    kind: kind.name,
    description: kind.description,
    facts,
    fields: Object.keys(asSchema(json['properties'])).map((field) => explainTopField(kind, json, field)),
  };
}
