// `telform revert N` as one operation: apply #N's revert written into the manifests (`--write`), or
// planned from the state and the history and then saved for review (`-o`, its target checked before
// anything is read) or applied under the ledger's lock and recorded as the revert of #N. The caller
// watches as it watches an apply (run/apply-run.ts): told the plan first, it gives back its progress,
// the terminal prompt and the signal handlers.
import type { Plan, PlanApprovals } from '../engine/plan-types.js';
import type { SafetyViolation } from '../engine/safety.js';
import { applyReconciled, type ApplyRunOutcome } from './apply.js';
import { approvalRulesOf, followed, plannedRun, type ApplyWatcher } from './apply-run.js';
import type { GlobalOptions, RunContext } from './context.js';
import { withReconciliation } from './reconcile.js';
import { reconcileRevert, revertOf, writeRevertBack, type RevertWrite } from './revert.js';
import { planNotes } from './safety.js';
import { assertNotRefused } from './judgement.js';
import { assertPlanTarget, writeSavedPlan } from './saved-plan.js';
import { outputGuard } from './output-file.js';

interface RevertPlanning {
  approvals: PlanApprovals;
  /** `--over N2`: later applies whose changes to the same fields the revert may take back. */
  over?: readonly number[];
  allowSecretFilesOutside?: boolean | undefined;
  /** `--policy FILE`: the policies and approval rules the revert is judged by. */
  policies?: readonly string[];
  /** `--emergency REASON`: an applied revert outside a window or freeze the rules allow it past. */
  emergency?: string;
}

export type RevertRequest = { seq: number } &
  /** `--write -f MANIFESTS`: the values from before the apply, written into the manifests. */
  (
    | { mode: 'write'; files: readonly string[] }
    /** `-o FILE`: the revert's plan saved, sealed with the session's token, for `telform apply FILE`. */
    | ({ mode: 'save'; out: string } & RevertPlanning)
    | ({ mode: 'apply'; parallelism: number; waitMs: number } & RevertPlanning)
  );

type RevertOutcome =
  | { mode: 'written'; result: RevertWrite }
  /** `violations`: what the gates refuse when the saved plan is applied without more approvals. */
  | { mode: 'saved'; out: string; plan: Plan; violations: SafetyViolation[] }
  | { mode: 'apply'; plan: Plan; outcome: ApplyRunOutcome };

export async function revertApply(
  request: RevertRequest,
  globals: GlobalOptions,
  context: RunContext,
  watcher: ApplyWatcher,
): Promise<RevertOutcome> {
  const { seq } = request;
  if (request.mode === 'write') {
    const { record } = await revertOf(seq, globals, context);
    return { mode: 'written', result: await writeRevertBack(record, request.files, context) };
  }
  const guard =
    request.mode === 'save' ? await assertPlanTarget(request.out, outputGuard('-o', [], globals, context)) : undefined;
  const { run, set } = await reconcileRevert(seq, globals, request.approvals, context, {
    lock: request.mode === 'apply',
    allowSecretFilesOutside: request.allowSecretFilesOutside,
    over: request.over ?? [],
    policies: request.policies ?? [],
    ...(request.mode === 'apply'
      ? {
          approvalRules: approvalRulesOf({
            ...(request.emergency === undefined ? {} : { emergency: request.emergency }),
          }),
        }
      : {}),
  });
  return withReconciliation(run, async (): Promise<RevertOutcome> => {
    const watch = watcher.planned(plannedRun(run, planNotes(run.plan, request.approvals)));
    // A field a later apply changed again is refused (the plan above names it) unless taken with --over.
    if (run.judged.refusal) {
      watch.done?.();
      assertNotRefused(run.judged, request.mode === 'save' ? 'saved' : 'sent');
    }
    if (request.mode === 'save') {
      watch.done?.();
      if (guard) await writeSavedPlan(request.out, run.plan, run.session.authToken, guard);
      return { mode: 'saved', out: request.out, plan: run.plan, violations: [...run.judged.violations] };
    }
    try {
      const outcome = await applyReconciled(run, {
        parallelism: request.parallelism,
        waitMs: request.waitMs,
        history: { trigger: 'revert', reverts: seq, ...(set.over.length > 0 ? { over: set.over } : {}) },
        ...followed(watch),
      });
      return { mode: 'apply', plan: run.plan, outcome };
    } finally {
      watch.done?.();
    }
  });
}
