// Judges a plan against the approval rules (docs/approvals.md) at one instant: for each change that
// writes, the rules covering it, the valid approvals each rule counts (a person holding the role,
// distinct people, within the TTL), its windows and the freezes. Pure: the approvals are verified
// before (approval-files.ts) and the time is given, so tests need no clock but their own.
import { EvaluationError } from '@marcbachmann/cel-js';
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import {
  insideWindow,
  wallClockText,
  type ApprovalPolicy,
  type ApprovalRule,
  type Freeze,
} from '../manifest/approval-policy.js';
import { holdersOf } from '../manifest/people-file.js';
import type { CompiledExpression } from '../manifest/policy-file.js';
import { toCel } from '../manifest/policy-eval.js';
import { TelformError } from '../util/errors.js';
import type { RejectedApproval, VerifiedApproval } from './approval-files.js';

interface RuleVerdict {
  rule: ApprovalRule;
  /** Valid approvals of this rule by people holding its role, one per person. */
  approvers: VerifiedApproval[];
  /** Approvals of this rule past its TTL. */
  expired: VerifiedApproval[];
  /** Approvals of this rule by people who do not hold its role. */
  withoutRole: VerifiedApproval[];
  /** How many more people must approve (0: enough). */
  missing: number;
  /** False when the rule has windows and none is open now. */
  inWindow: boolean;
}

interface ChangeVerdict {
  address: string;
  rules: RuleVerdict[];
  /** The freezes covering this change now. */
  frozen: Freeze[];
}

export interface ApprovalJudgement {
  digest: string;
  changes: ChangeVerdict[];
  rejected: RejectedApproval[];
  /** One sentence per reason the plan may not be applied now (empty: it may). */
  refusals: string[];
  /** `--emergency`: the reason, and the approval that allowed it. */
  emergency?: { reason: string; by: VerifiedApproval; role: string };
}

/** Actions that send something to the account (what a rule, a window or a freeze holds back). */
const writing = new Set(['create', 'update', 'replace', 'delete']);

/** The fields a change sets: the patch's top-level names, or the spec's for a create. */
function changedFields(change: PlannedChange): string[] {
  const patch = 'patch' in change && Array.isArray(change.patch) ? change.patch : [];
  if (patch.length > 0)
    return [...new Set(patch.map((operation) => String(operation.path).split('/')[1] ?? '').filter(Boolean))].sort();
  const after = 'after' in change ? change.after : undefined;
  return after ? Object.keys(after).sort() : [];
}

/** What an approval rule's `match` sees (docs/approvals.md). */
function approvalContext(change: PlannedChange, plan: Plan): Record<string, unknown> {
  const after = 'after' in change ? change.after : undefined;
  const before = 'before' in change ? change.before : undefined;
  return toCel({
    change: {
      address: change.address,
      kind: change.kind,
      name: change.name,
      action: change.action,
      fields: changedFields(change),
      billable_usd: change.flags.billable_usd,
      irreversible: change.flags.irreversible,
      numbers_affected: change.blast?.numbers ?? 0,
      flags: change.flags,
      drifted: change.drifted === true,
    },
    resource: after ?? before ?? {},
    before: before ?? {},
    account: plan.account,
  }) as Record<string, unknown>;
}

function matches(
  expression: CompiledExpression,
  context: Record<string, unknown>,
  what: string,
  address: string,
): boolean {
  let result: unknown;
  try {
    result = expression.run(context);
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    throw new TelformError('policy_failed', `${what} failed: match: ${error.summary}`, {
      place: { source: expression.placeAt(error.range?.start ?? 0), address },
    });
  }
  if (typeof result !== 'boolean')
    throw new TelformError(
      'policy_failed',
      `${what}: match must give true or false, and gave ${typeof result} for ${address}`,
      {
        place: { source: expression.placeAt(0), address },
      },
    );
  return result;
}

/** The rules covering each writing change (no rule: today's flags decide alone). */
export function coveringRules(plan: Plan, policy: ApprovalPolicy): Map<string, ApprovalRule[]> {
  const covered = new Map<string, ApprovalRule[]>();
  for (const change of plan.changes) {
    if (!writing.has(change.action)) continue;
    const context = approvalContext(change, plan);
    const rules = policy.rules.filter((rule) =>
      matches(rule.match, context, `approval rule ${rule.id}`, change.address),
    );
    if (rules.length > 0) covered.set(change.address, rules);
  }
  return covered;
}

function activeFreezes(change: PlannedChange, plan: Plan, policy: ApprovalPolicy, nowMs: number): Freeze[] {
  return policy.freezes.filter(
    (freeze) =>
      (freeze.fromMs === undefined || nowMs >= freeze.fromMs) &&
      (freeze.untilMs === undefined || nowMs < freeze.untilMs) &&
      (!freeze.match || matches(freeze.match, approvalContext(change, plan), 'freeze', change.address)),
  );
}

interface JudgeInput {
  plan: Plan;
  digest: string;
  policy: ApprovalPolicy;
  approvals: ReadonlyArray<VerifiedApproval>;
  rejected: ReadonlyArray<RejectedApproval>;
  nowMs: number;
  /** `apply --emergency REASON`. */
  emergency?: string;
}

/** Judges the plan now; `refusals` empty means every rule, window and freeze lets it through. */
export function judgeApprovals(input: JudgeInput): ApprovalJudgement {
  const { plan, policy, nowMs } = input;
  const covered = coveringRules(plan, policy);
  const changes: ChangeVerdict[] = [];
  const refusals: string[] = [];
  let emergency: ApprovalJudgement['emergency'];
  /** An unexpired approval by a holder of `role` carrying the same emergency reason. */
  const emergencyBy = (role: string, ttlMs: number): VerifiedApproval | undefined =>
    input.emergency === undefined
      ? undefined
      : input.approvals.find(
          (approval) =>
            approval.approval.emergency === input.emergency &&
            approval.person.roles.includes(role) &&
            nowMs <= approval.signedMs + ttlMs,
        );
  const emergencyNote = (role: string | undefined): string =>
    role === undefined
      ? 'no emergency is allowed for it'
      : input.emergency === undefined
        ? `an emergency apply needs --emergency REASON and an approval by ${role} signed with the same reason (telform approve --emergency REASON)`
        : `--emergency needs an approval by ${role} signed with the same reason, and none is here`;
  for (const change of plan.changes) {
    if (!writing.has(change.action)) continue;
    const rules = covered.get(change.address) ?? [];
    const verdicts = rules.map((rule) => judgeRule(rule, input));
    const frozen = activeFreezes(change, plan, policy, nowMs);
    if (rules.length === 0 && frozen.length === 0) continue;
    changes.push({ address: change.address, rules: verdicts, frozen });
    for (const verdict of verdicts) {
      const { rule } = verdict;
      if (verdict.missing > 0) refusals.push(missingSentence(change.address, verdict, input));
      if (!verdict.inWindow) {
        const by = rule.emergencyRole ? emergencyBy(rule.emergencyRole, rule.ttlMs) : undefined;
        if (by && rule.emergencyRole) emergency = { reason: input.emergency as string, by, role: rule.emergencyRole };
        else
          refusals.push(
            `${change.address}: rule ${rule.id} allows it only within ${rule.windows.map((window) => window.text).join(' or ')}, and it is ${rule.windows.map((window) => wallClockText(window.zone, nowMs)).join(' / ')}; ${emergencyNote(rule.emergencyRole)}`,
          );
      }
    }
    for (const freeze of frozen) {
      const by = freeze.emergencyRole ? emergencyBy(freeze.emergencyRole, Number.POSITIVE_INFINITY) : undefined;
      if (by && freeze.emergencyRole) emergency = { reason: input.emergency as string, by, role: freeze.emergencyRole };
      else
        refusals.push(
          `${change.address}: the fleet is frozen (${freeze.reason}${freeze.untilMs === undefined ? '' : `, until ${new Date(freeze.untilMs).toISOString()}`}; ${freeze.place.file}:${freeze.place.line}); ${emergencyNote(freeze.emergencyRole)}`,
        );
    }
  }
  // Said once: an approval that does not count is often why a rule misses one.
  if (refusals.length > 0)
    for (const rejected of input.rejected) refusals.push(`${rejected.file} does not count: ${rejected.reason}`);
  return {
    digest: input.digest,
    changes,
    rejected: [...input.rejected],
    refusals,
    ...(emergency ? { emergency } : {}),
  };
}

function judgeRule(rule: ApprovalRule, input: JudgeInput): RuleVerdict {
  const inWindow = rule.windows.length === 0 || rule.windows.some((window) => insideWindow(window, input.nowMs));
  if (!rule.needs) return { rule, approvers: [], expired: [], withoutRole: [], missing: 0, inWindow };
  const { role, count } = rule.needs;
  const naming = input.approvals.filter((approval) => approval.approval.rules.includes(rule.id));
  const approvers = new Map<string, VerifiedApproval>();
  const expired: VerifiedApproval[] = [];
  const withoutRole: VerifiedApproval[] = [];
  for (const approval of naming) {
    if (!approval.person.roles.includes(role)) withoutRole.push(approval);
    else if (input.nowMs > approval.signedMs + rule.ttlMs) expired.push(approval);
    else if (!approvers.has(approval.person.name)) approvers.set(approval.person.name, approval);
  }
  return {
    rule,
    approvers: [...approvers.values()],
    expired,
    withoutRole,
    missing: Math.max(0, count - approvers.size),
    inWindow,
  };
}

/** `Campaign/x: rule billable needs 2 of messaging-leads; approved by alice; 1 more missing (of bob, carol); …` */
function missingSentence(address: string, verdict: RuleVerdict, input: JudgeInput): string {
  const { rule } = verdict;
  const needs = rule.needs as { count: number; role: string };
  const approvedBy = verdict.approvers.map((approval) => approval.person.name);
  const others = input.policy.people
    ? holdersOf(input.policy.people, needs.role).filter((name) => !approvedBy.includes(name))
    : [];
  const parts = [
    `${address}: rule ${rule.id} needs ${needs.count} of ${needs.role}`,
    approvedBy.length > 0 ? `approved by ${approvedBy.join(', ')}` : 'no valid approval',
    `${verdict.missing} more missing${others.length > 0 ? ` (of ${others.join(', ')})` : ''}`,
  ];
  for (const approval of verdict.expired)
    parts.push(
      `${approval.person.name}'s approval (${approval.file}, signed ${approval.approval.signed_at}) expired at ${new Date(approval.signedMs + rule.ttlMs).toISOString()} (ttl ${rule.ttlText})`,
    );
  for (const approval of verdict.withoutRole)
    parts.push(`${approval.person.name} (${approval.file}) does not hold the role ${needs.role}`);
  return parts.join('; ');
}
