import { systemClock } from '../util/clock.js';
import { reportedPlan, type AccountOutcome } from '../engine/accounts-report.js';
import { applyPlan } from '../engine/apply.js';
import { classifyDrift } from '../engine/drift.js';
import { hasChanges } from '../engine/summary.js';
import { driftAccountSummary, planAccountSummary, refusedApplyMessage } from '../render/accounts.js';
import { renderApplySummary, renderOutcome } from '../render/apply.js';
import { planForDisplay } from '../render/index.js';
import { ExitCode } from './exit-codes.js';
import { desiredByAddress, type Reconciliation } from './reconcile.js';

/** What `plan`, `drift` and `apply` do with one reconciled account of a `--accounts` run. */

type StepOutcome = Omit<AccountOutcome, 'name'>;

export function planStep(options: { detailedExitcode?: boolean; showUnmanaged?: boolean }) {
  return async (run: Reconciliation): Promise<StepOutcome> => {
    const changed = hasChanges(run.plan);
    const refusals = run.violations.map((violation) => `apply will refuse: ${violation.message}`);
    return {
      exit_code: changed && options.detailedExitcode ? ExitCode.changes : ExitCode.ok,
      status: changed ? 'changes' : 'no_changes',
      summary: planAccountSummary(run.plan.summary, refusals.length),
      // An account without changes shows no details: the report keeps no plan for it (200 accounts in sync stay small).
      ...(changed || refusals.length > 0 ? { plan: reportedPlan(planForDisplay(run.plan, options.showUnmanaged ?? false, refusals)) } : {}),
    };
  };
}

export async function driftStep(run: Reconciliation): Promise<StepOutcome> {
  const drift = classifyDrift(run.plan, run.store.existed);
  return {
    exit_code: drift.status === 'drifted' ? ExitCode.changes : drift.status === 'pending' ? ExitCode.pendingManifestChanges : ExitCode.ok,
    status: drift.status,
    summary: driftAccountSummary(drift),
    drift,
    ...(drift.status === 'in_sync' && drift.notes.length === 0 ? {} : { plan: reportedPlan(run.plan) }),
  };
}

export function applyStep(options: { parallelism: number; waitMs: number }) {
  return async (run: Reconciliation): Promise<StepOutcome> => {
    if (run.violations.length > 0) {
      const message = refusedApplyMessage(run.violations.map((violation) => violation.message));
      return { exit_code: ExitCode.error, status: 'error', summary: message, error: { code: 'unsafe_plan', message } };
    }
    if (!hasChanges(run.plan)) return { exit_code: ExitCode.ok, status: 'no_changes', summary: 'Nothing to apply.' };
    const result = await applyPlan(
      {
        plan: run.plan,
        kinds: new Map(run.kinds.map((kind) => [kind.kind, kind])),
        desired: desiredByAddress(run.desired.resources),
        store: run.store,
        live: { client: run.session.client },
        fingerprinter: run.fingerprinter,
        resolveSecrets: run.desired.resolveSecrets,
        read: run.read,
      },
      { parallelism: options.parallelism, waitMs: options.waitMs, clock: systemClock },
    );
    const problems = run.plan.changes.flatMap((change) => {
      const outcome = result.outcomes.get(change.address);
      return outcome && outcome.status !== 'done' && outcome.status !== 'pending' ? [renderOutcome(change, outcome)] : [];
    });
    const failed = result.failed > 0 || result.blocked > 0;
    return {
      exit_code: failed ? ExitCode.error : ExitCode.ok,
      status: failed ? 'error' : 'applied',
      summary: renderApplySummary(run.plan, result),
      ...(problems.length > 0 ? { problems } : {}),
    };
  };
}
