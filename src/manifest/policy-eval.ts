// Evaluates policy rules (policy-file.ts) over each planned change and its resource. A rule whose
// expression is false for a change is a finding of the plan; an error-level one makes apply refuse.
import { EvaluationError } from '@marcbachmann/cel-js';
import type { DesiredResource } from '../engine/model.js';
import type { Plan, PlanFinding, PlannedChange } from '../engine/plan-types.js';
import { TelformError } from '../util/errors.js';
import type { CompiledExpression, PolicyRule } from './policy-file.js';

/** CEL's integers are 64-bit: whole JavaScript numbers become BigInt so `blast.calls > 10` compares ints. */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  return value;
}

function specs(change: PlannedChange): {
  after: Record<string, unknown> | undefined;
  before: Record<string, unknown> | undefined;
} {
  return {
    after: 'after' in change ? change.after : undefined,
    before: 'before' in change ? change.before : undefined,
  };
}

/** The variables a rule sees for one change (docs/policies.md lists them). */
export function policyContext(
  change: PlannedChange,
  plan: Plan,
  resources: readonly unknown[],
): Record<string, unknown> {
  const { after, before } = specs(change);
  return toCel({
    change: {
      address: change.address,
      kind: change.kind,
      name: change.name,
      action: change.action,
      reasons: change.reasons,
      flags: change.flags,
      drifted: change.drifted === true,
      protect: change.protect === true,
      blast: change.blast ?? { calls: 0, messages: 0, numbers: 0, trunks: [], applications: [] },
    },
    // What the account holds after the plan: the desired spec, or the live one of a delete.
    resource: after ?? before ?? {},
    before: before ?? {},
    resources,
    plan: { summary: plan.summary },
  }) as Record<string, unknown>;
}

function run(
  expression: CompiledExpression,
  context: Record<string, unknown>,
  rule: PolicyRule,
  change: PlannedChange,
  field: string,
): boolean {
  let result: unknown;
  try {
    result = expression.run(context);
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    const place = expression.placeAt(error.range?.start ?? 0);
    throw new TelformError('policy_failed', `rule ${rule.id} failed: ${field}: ${error.summary}`, {
      place: { source: place, address: change.address },
    });
  }
  if (typeof result !== 'boolean') {
    const place = expression.placeAt(0);
    throw new TelformError(
      'policy_failed',
      `rule ${rule.id}: ${field} must give true or false, and gave ${typeof result} for ${change.address}`,
      {
        place: { source: place, address: change.address },
      },
    );
  }
  return result;
}

/**
 * Every violation of every rule, change by change in plan order. `desired` is what the manifests
 * hold (each rule sees all of it as `resources`, to compare a change with the others).
 */
export function evaluatePolicies(
  rules: readonly PolicyRule[],
  plan: Plan,
  desired: readonly DesiredResource[],
): PlanFinding[] {
  if (rules.length === 0) return [];
  const resources = desired.map((resource) => ({
    kind: resource.kind,
    name: resource.name,
    address: resource.address,
    spec: resource.spec,
  }));
  const findings: PlanFinding[] = [];
  for (const change of plan.changes) {
    const context = policyContext(change, plan, resources);
    for (const rule of rules) {
      if (rule.match && !run(rule.match, context, rule, change, 'match')) continue;
      if (run(rule.expression, context, rule, change, 'expression')) continue;
      findings.push({
        source: 'policy',
        rule: rule.id,
        severity: rule.severity,
        address: change.address,
        message: rule.message,
        ...(change.source
          ? { source_place: { file: change.source.file, line: change.source.line, column: change.source.column } }
          : {}),
        reference: `${rule.place.file}:${rule.place.line}`,
      });
    }
  }
  return findings;
}
