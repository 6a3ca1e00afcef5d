// What `plan`, `drift` and `apply` do with one reconciled account of a `--accounts` run: the same
// operations as for one account (drift's classification, the one apply), told as a report line.
import type { AccountOutcome } from '../render/accounts-report.js';
import { reportedPlan } from '../render/accounts-report.js';
import { driftAccountSummary, planAccountSummary } from '../render/accounts.js';
import { renderApplySummary, renderOutcome } from '../render/apply.js';
import { planForDisplay } from '../render/index.js';
import { hasChanges } from '../engine/summary.js';
import { applyReconciled, type ApplyRunOptions } from './apply.js';
import { driftOf } from './drift.js';
import { ExitCode } from './exit-codes.js';
import type { Reconciliation } from './reconcile.js';
import { accountRefusalMessage, brokenCreateRules, refusalNotes } from './safety.js';

type StepOutcome = Omit<AccountOutcome, 'name'>;

export function planStep(options: { detailedExitcode?: boolean | undefined; showUnmanaged?: boolean | undefined }) {
  return async (run: Reconciliation): Promise<StepOutcome> => {
    const broken = brokenCreateRules(run.judged.violations);
    if (broken.length > 0) {
      // As for one account: a create rule broken fails the plan, with each break in the report line.
      const message = `the plan breaks ${broken.length === 1 ? 'a create rule' : `${broken.length} create rules`}, which the API would refuse: ${broken.map((violation) => violation.message).join('; ')}`;
      return { exit_code: ExitCode.error, status: 'error', summary: message, error: { code: 'create_rule', message } };
    }
    const changed = hasChanges(run.plan);
    const refusals = refusalNotes(run.judged.violations);
    return {
      exit_code: changed && options.detailedExitcode ? ExitCode.changes : ExitCode.ok,
      status: changed ? 'changes' : 'no_changes',
      summary: planAccountSummary(run.plan.summary, refusals.length),
      // An account without changes shows no details: the report keeps no plan for it (200 accounts in sync stay small).
      ...(changed || refusals.length > 0
        ? { plan: reportedPlan(planForDisplay(run.plan, options.showUnmanaged ?? false, refusals)) }
        : {}),
    };
  };
}

export async function driftStep(run: Reconciliation): Promise<StepOutcome> {
  const { report, exitCode } = driftOf(run);
  return {
    exit_code: exitCode,
    status: report.status,
    summary: driftAccountSummary(report),
    drift: report,
    ...(report.status === 'in_sync' && report.notes.length === 0 ? {} : { plan: reportedPlan(run.plan) }),
  };
}

/** Each account is applied as `apply -f --auto-approve` applies one (no `approve`: --accounts never asks). */
export function applyStep(
  options: Pick<ApplyRunOptions, 'parallelism' | 'waitMs' | 'clock' | 'onEvent' | 'interruptible'>,
) {
  return async (run: Reconciliation): Promise<StepOutcome> => {
    const outcome = await applyReconciled(run, options);
    switch (outcome.status) {
      case 'refused': {
        const message = accountRefusalMessage(outcome.violations);
        return {
          exit_code: ExitCode.error,
          status: 'error',
          summary: message,
          error: { code: 'unsafe_plan', message },
        };
      }
      case 'no_changes': {
        const recorded = outcome.recorded.map(
          ({ address, protect }) => `${address} is ${protect ? 'protected' : 'no longer protected'}`,
        );
        const note = recorded.length > 0 ? ` Recorded in the state: ${recorded.join(', ')}.` : '';
        return { exit_code: ExitCode.ok, status: 'no_changes', summary: `Nothing to apply.${note}` };
      }
      case 'cancelled':
        return { exit_code: ExitCode.error, status: 'error', summary: 'apply cancelled; nothing was sent' };
      case 'applied': {
        const { result } = outcome;
        const problems = run.plan.changes.flatMap((change) => {
          const done = result.outcomes.get(change.address);
          return done && done.status !== 'done' && done.status !== 'pending' ? [renderOutcome(change, done)] : [];
        });
        return {
          exit_code: outcome.failed ? ExitCode.error : ExitCode.ok,
          status: outcome.failed ? 'error' : 'applied',
          summary: renderApplySummary(run.plan, result),
          ...(problems.length > 0 ? { problems } : {}),
        };
      }
      default: {
        const never: never = outcome;
        throw new Error(`unhandled apply outcome ${String(never)}`);
      }
    }
  };
}
