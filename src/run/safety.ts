// How the safety gates' verdicts reach the user, in one place: the plan's warnings ("apply will
// refuse"), the refusal of `apply -f` and of a saved plan, and the refusal of one account under
// --accounts. The gates themselves are the engine's (checked on the plan, before any request).
import { TelformError } from '../util/errors.js';
import { unusedApprovals, type SafetyViolation } from '../engine/safety.js';
import type { Plan, PlanApprovals } from '../engine/plan-types.js';

/** The notes printed with a plan: each approval given that approves nothing, then each change apply will refuse. */
export function planNotes(plan: Plan, approvals: PlanApprovals, violations: readonly SafetyViolation[] = []): string[] {
  return [...unusedApprovals(plan, approvals), ...refusalNotes(violations)];
}

/**
 * The plan's warning for each change apply will refuse with the approvals given. A broken create rule
 * is never one: the plan itself is refused (`brokenCreateRules`).
 */
export function refusalNotes(violations: readonly SafetyViolation[]): string[] {
  return violations
    .filter((violation) => violation.code !== 'held_value')
    .map((violation) => `apply will refuse: ${violation.message}`);
}

/**
 * A create, replace or change of a field that breaks a create rule: the API would refuse it and no
 * flag approves it, so a plan holding one fails as an error (exit 1), as its apply would.
 */
export function brokenCreateRules(violations: readonly SafetyViolation[]): SafetyViolation[] {
  return violations.filter((violation) => violation.code === 'held_value');
}

/** Refuses a plan that breaks a create rule: each break on `report` (`refused: …`), then the error. */
export function assertCreateRulesMet(violations: readonly SafetyViolation[], report: (line: string) => void): void {
  const broken = brokenCreateRules(violations);
  if (broken.length === 0) return;
  for (const line of refusalLines(broken)) report(line);
  throw new TelformError(
    'create_rule',
    `the plan breaks ${broken.length === 1 ? 'a create rule' : `${broken.length} create rules`} (listed above), which the API would refuse; fix the manifest${broken.length === 1 ? '' : 's'}; nothing was sent`,
    { details: { violations: broken.map((violation) => violation.message) } },
  );
}

/** The lines an apply that refuses prints before its error, one per violation. */
export function refusalLines(violations: readonly SafetyViolation[]): string[] {
  return violations.map((violation) => `refused: ${violation.message}`);
}

function unapproved(count: number): string {
  return `apply refused ${count} unapproved change${count === 1 ? '' : 's'}`;
}

/** The error of an apply that refused (its violations were printed above it). */
export function refusalError(violations: readonly SafetyViolation[]): TelformError {
  return new TelformError('unsafe_plan', `${unapproved(violations.length)} (listed above); nothing was sent`, {
    details: { violations: violations.map((violation) => violation.message) },
  });
}

/** One account's refusal under --accounts: its report line holds the violations themselves. */
export function accountRefusalMessage(violations: readonly SafetyViolation[]): string {
  return `${unapproved(violations.length)}; nothing was sent: ${violations.map((violation) => violation.message).join('; ')}`;
}
