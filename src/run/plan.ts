// `telform plan -f` as one operation: the run's values read, the saved plan's target checked before
// anything is read, the manifests reconciled read-only, the plan saved with its seal when asked, and
// the notes printed with it (approvals that approve nothing, changes apply will refuse). The
// rehearsal (`--rehearse`) is its own operation (run/rehearse.ts), given the same input.
import type { Plan, PlanApprovals } from '../engine/plan-types.js';
import { hasChanges } from '../engine/summary.js';
import type { GlobalOptions, RunContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { reconcile, withReconciliation, type ReconcileInput, type ReconcileOptions } from './reconcile.js';
import { assertCreateRulesMet, planNotes } from './safety.js';
import { assertPlanTarget, writeSavedPlan } from './saved-plan.js';
import { outputGuard } from './output-file.js';
import { readValues, type ValuesInput } from './values-input.js';
import { approvalTableOf, judgePlanApprovals } from './approval-gate.js';
import { systemClock } from '../util/clock.js';

export interface PlanRequest {
  paths: string[];
  values: ValuesInput;
  approvals: PlanApprovals;
  /** How the manifests are reconciled (never locked: a plan changes nothing). */
  options: Omit<ReconcileOptions, 'lock' | 'readOnly' | 'scope' | 'adjust'>;
  /** `--out FILE`: the plan is saved there, sealed with the session's token. */
  out?: string | undefined;
  /** `--detailed-exitcode`: a plan with changes exits 2. */
  detailedExitcode: boolean;
  /** `--approvals DIR`: the signed approvals its approval table counts (default: beside `out`). */
  approvalsFolder?: string;
}

interface PlanOutcome {
  plan: Plan;
  /** The warnings shown with the plan. */
  notes: string[];
  exitCode: number;
  /** What was reconciled: a rehearsal plans the same. */
  input: ReconcileInput;
}

export async function planManifests(
  request: PlanRequest,
  globals: GlobalOptions,
  context: RunContext,
): Promise<PlanOutcome> {
  const values = await readValues(request.values, context.io.cwd);
  const guard = request.out
    ? await assertPlanTarget(request.out, outputGuard('-o', request.paths, globals, context))
    : undefined;
  const input: ReconcileInput = { paths: request.paths, ...(values ? { values } : {}) };
  const run = await reconcile(input, globals, request.approvals, context, { ...request.options, lock: false });
  return withReconciliation(run, async () => {
    // Before the plan is saved or shown: a create rule broken is an error, never a warning to approve.
    assertCreateRulesMet(run.judged.violations, context.io.stderr);
    // The approval rules' table (who must sign, who has): shown with the plan, outside the digest they sign.
    const judged = await judgePlanApprovals(run.plan, {
      policies: request.options.policies ?? [],
      ...(request.approvalsFolder !== undefined
        ? { approvalsFolder: request.approvalsFolder }
        : request.out
          ? { planFile: request.out }
          : {}),
      clock: systemClock,
      cwd: context.io.cwd,
    });
    const plan = judged ? { ...run.plan, approval_rules: approvalTableOf(judged.judgement) } : run.plan;
    if (request.out && guard) await writeSavedPlan(request.out, plan, run.session.authToken, guard);
    const exitCode = request.detailedExitcode && hasChanges(plan) ? ExitCode.changes : ExitCode.ok;
    return { plan, notes: planNotes(plan, request.approvals, run.judged.violations), exitCode, input };
  });
}
