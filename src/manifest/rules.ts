import * as z from 'zod';
import type { Condition, Kind, SpecRule } from '../resources/kind.js';

/**
 * Evaluates a kind's conditional requirements (`Kind.rules`) on a spec. They run even when the
 * spec has other errors, so every problem is reported at once: conditions read the field as
 * written, or its schema default when absent, and compare by equality only, so a wrongly typed
 * value simply does not meet a condition.
 */

export interface RuleViolation {
  /** The field the message is about; undefined when it is about several (the spec as a whole). */
  field: string | undefined;
  /** Every field the violation names. */
  fields: readonly string[];
  kind: 'missing' | 'forbidden';
  message: string;
}

/** More missing fields than this, from one rule, are reported in one problem. */
const groupMissingOver = 3;

export function checkRules(kind: Kind, spec: Readonly<Record<string, unknown>>): RuleViolation[] {
  const violations: RuleViolation[] = [];
  for (const rule of kind.rules) {
    if (!conditionHolds(kind, spec, rule.when)) continue;
    const missing = (rule.require ?? []).filter((field) => !given(spec, field));
    if (missing.length > groupMissingOver) {
      // Many missing fields of one rule (an empty campaign) read better as one line.
      violations.push({
        field: undefined,
        fields: missing,
        kind: 'missing',
        message: `missing ${missing.join(', ')}: ${rule.reason}`,
      });
    } else {
      for (const field of missing)
        violations.push({ field, fields: [field], kind: 'missing', message: `is required: ${rule.reason}` });
    }
    const oneOf = rule.requireOneOf ?? [];
    if (oneOf.length > 0 && !oneOf.some((field) => given(spec, field))) {
      violations.push({
        field: undefined,
        fields: oneOf,
        kind: 'missing',
        message: `needs ${oneOf.join(' or ')}: ${rule.reason}`,
      });
    }
    for (const field of rule.forbid ?? []) {
      if (given(spec, field))
        violations.push({ field, fields: [field], kind: 'forbidden', message: `is not allowed: ${rule.reason}` });
    }
  }
  return dropRepeats(violations);
}

/** Two rules may name one field (e.g. import forbids sub_usecases, and so does a plain usecase). */
function dropRepeats(violations: RuleViolation[]): RuleViolation[] {
  if (violations.length < 2) return violations;
  const seen = new Set<string>();
  return violations.filter((violation) => {
    const key = violation.field === undefined ? violation.message : `${violation.kind}:${violation.field}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function given(spec: Readonly<Record<string, unknown>>, field: string): boolean {
  return Object.hasOwn(spec, field) && spec[field] !== undefined && spec[field] !== null;
}

export function conditionHolds(kind: Kind, spec: Readonly<Record<string, unknown>>, condition: Condition): boolean {
  if ('present' in condition) return given(spec, condition.field) === condition.present;
  const value = given(spec, condition.field) ? spec[condition.field] : cachedDefault(kind, condition.field);
  if ('in' in condition) return condition.in.some((candidate) => candidate === value);
  if (value === undefined) return false;
  return !condition.notIn.some((candidate) => candidate === value);
}

/** Per kind, the defaults looked up so far (`undefined` kept too): conditions ask for them per document. */
const defaultsOfKind = new WeakMap<Kind, Map<string, unknown>>();

function cachedDefault(kind: Kind, field: string): unknown {
  let defaults = defaultsOfKind.get(kind);
  if (!defaults) defaultsOfKind.set(kind, (defaults = new Map()));
  if (!defaults.has(field)) defaults.set(field, defaultOf(kind, field));
  return defaults.get(field);
}

/** The `.default()` of a top-level spec field, if it has one. */
export function defaultOf(kind: Kind, field: string): unknown {
  let schema: unknown = kind.spec.shape[field];
  while (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) schema = schema.unwrap();
  return schema instanceof z.ZodDefault ? (schema.def.defaultValue as unknown) : undefined;
}

/** Every field a rule names, for checks of the kinds themselves. */
export function fieldsNamedBy(rule: SpecRule): string[] {
  return [rule.when.field, ...(rule.require ?? []), ...(rule.requireOneOf ?? []), ...(rule.forbid ?? [])];
}
