// The one judgement every plan passes before anything may apply it, whatever produced it: `-f`,
// --target, --exclude, --destroy, a scoped state, a revert, a saved plan, a rehearsal, each account
// of --accounts or of a wave, `serve --apply safe` and `telform test` all reach apply through
// `reconcile`, whose last stage is this one. It holds the safety gates (protect, irreversible, cost,
// mass delete, empty manifests, blast radius, lint, policies, create rules), the producer's own
// verdict (a revert's conflicts) and, for an apply under approval rules, the rules' verdict.
// Ownership is judged earlier, in reconcile's ownership stage: a state that may not write the account
// never gets a plan to judge.
//
// A `JudgedPlan` is made here only; `applyReconciled` applies nothing else (checked at run time too).
import type { DesiredResource } from '../engine/model.js';
import type { Plan, PlanApprovals } from '../engine/plan-types.js';
import { checkSafety, requiredApprovals, type SafetyViolation } from '../engine/safety.js';
import type { Ledger } from '../state/ledger.js';
import type { HistorySignoff } from '../state/history.js';
import type { Clock } from '../util/clock.js';
import { TelformError, type ErrorCode } from '../util/errors.js';

declare const judgedBrand: unique symbol;

export interface JudgedPlan {
  /** The plan as judged (with the approvals it needs), exactly what apply sends. */
  readonly plan: Plan;
  /** What the gates refuse with the approvals given: apply sends nothing while one is left. */
  readonly violations: readonly SafetyViolation[];
  /** The producer's refusal that no approval flag lifts (a revert's conflicts): nothing applies the plan. */
  readonly refusal?: ProducerRefusal;
  /** Who approved the plan under the approval rules, recorded with its apply. */
  readonly signoff?: HistorySignoff;
  readonly [judgedBrand]: true;
}

export interface ProducerRefusal {
  /** The error code the run stops with (`revert_conflict`). */
  code: ErrorCode;
  /** Why, and what would lift it (`--over 3`), without saying what was or was not sent. */
  reason: string;
}

interface JudgementBasis {
  approvals: PlanApprovals;
  desired: readonly DesiredResource[];
  ledger: Ledger;
  /**
   * The producer's own verdict on its plan: a revert whose fields a later apply changed again is
   * refused unless taken with `--over`. Its message names what to do.
   */
  producerRefusal?: (plan: Plan) => ProducerRefusal | undefined;
}

/** The approval rules' inputs for an apply (docs/approvals.md). */
export interface ApprovalRulesInput {
  policies: readonly string[];
  /** A saved plan's file: its approvals are signed beside it. */
  planFile?: string;
  approvalsFolder?: string;
  emergency?: string;
  /** The saved plan as reviewed, when what runs is only the rest of it (run/plan-resume.ts): the approvals sign its digest. */
  reviewed?: Plan;
  clock: Clock;
  cwd: string;
}

const judgedPlans = new WeakSet<object>();

function judgedOf(fields: Omit<JudgedPlan, typeof judgedBrand>): JudgedPlan {
  const judged = fields as JudgedPlan;
  judgedPlans.add(judged);
  return judged;
}

/** Whether `value` came out of the judgement (a spread copy did not). */
export function isJudged(value: unknown): value is JudgedPlan {
  return typeof value === 'object' && value !== null && judgedPlans.has(value);
}

/**
 * Judges a plan (fresh or saved) against every gate. `fresh`: the plan was just made, so the
 * approvals it needs are computed and recorded on it; a saved plan keeps the ones it was reviewed with.
 */
export function judgePlan(plan: Plan, basis: JudgementBasis, fresh: boolean): JudgedPlan {
  const violations = checkSafety(plan, basis.approvals, basis.desired, basis.ledger);
  const judgedPlan = fresh
    ? {
        ...plan,
        required_approvals: requiredApprovals(plan, basis.approvals, basis.desired, basis.ledger, violations),
      }
    : plan;
  const refusal = basis.producerRefusal?.(judgedPlan);
  return judgedOf({ plan: judgedPlan, violations, ...(refusal ? { refusal } : {}) });
}

/** The same judgement of a plan the run changed after judging (the ownership claim's requests, counted). */
export function rejudged(judged: JudgedPlan, plan: Plan): JudgedPlan {
  const { plan: _before, ...verdict } = judged;
  return judgedOf({ ...verdict, plan });
}

/**
 * The approval rules' verdict on an apply, added to the judgement: refuses (`approval_refused`) a
 * plan the rules do not let through now; otherwise the violations the signed approvals waive are
 * dropped and the signoff is kept for the history. Without a policy file or `--emergency`, the
 * judgement stands as it is (and the rules' reader, YAML and CEL, never load).
 */
export async function judgeApprovalRules(judged: JudgedPlan, input: ApprovalRulesInput): Promise<JudgedPlan> {
  if (input.policies.length === 0 && input.emergency === undefined) return judged;
  const { passApprovalGate } = await import('./approval-gate.js');
  const { violations, signoff } = await passApprovalGate(judged.plan, judged.violations, input);
  return judgedOf({
    plan: judged.plan,
    violations,
    ...(judged.refusal ? { refusal: judged.refusal } : {}),
    ...(signoff ? { signoff } : {}),
  });
}

/** Stops the run with the producer's refusal, if the judgement holds one; `unsent` says what was not done. */
export function assertNotRefused(judged: JudgedPlan, unsent: 'sent' | 'saved'): void {
  if (judged.refusal) throw new TelformError(judged.refusal.code, `${judged.refusal.reason}; nothing was ${unsent}`);
}
