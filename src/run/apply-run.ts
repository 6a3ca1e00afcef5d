// `telform apply` of one account (`-f` manifests, a teardown, or a saved plan) as one operation: the
// run's values read, a saved plan rehearsed on a replica first when asked (and applied here only if it
// went through there), the plan reconciled under the ledger's lock, then applied by the one apply
// (run/apply.ts) — or, for `--format json`, by the step each account of `--accounts` runs, its result
// an entry of the accounts report. The caller watches: it is told the plan before anything is asked
// or sent, and gives back how to follow the apply (progress, the terminal prompt, the signal handlers).
import type { Plan, PlanApprovals } from '../engine/plan-types.js';
import { countApplySteps } from '../engine/summary.js';
import type { AccountOutcome } from '../render/accounts-report.js';
import type { Rehearsal } from '../render/rehearsal-report.js';
import { TelformError } from '../util/errors.js';
import { applyStep } from './account-steps.js';
import { applyReconciled, type ApplyRunOptions, type ApplyRunOutcome } from './apply.js';
import type { GlobalOptions, RunContext } from './context.js';
import {
  reconcile,
  withReconciliation,
  type ReconcileInput,
  type ReconcileOptions,
  type Reconciliation,
} from './reconcile.js';
import { rehearse, type StartReplica } from './rehearse.js';
import { systemClock, type Clock } from '../util/clock.js';
import { planNotes } from './safety.js';
import { readValues, type ValuesInput } from './values-input.js';

export interface ApplyRequest {
  /** A saved plan applied exactly, or manifests (with the run's values; none for a teardown of `destroy`). */
  source: { savedPlan: string } | { paths: string[]; values: ValuesInput };
  approvals: PlanApprovals;
  /** How the manifests are reconciled (always under the ledger's lock: this run writes). */
  options: Omit<ReconcileOptions, 'lock' | 'readOnly' | 'scope' | 'adjust'>;
  parallelism: number;
  waitMs: number;
  /** `--format json`: the result as an account's entry of the accounts report (never asks). */
  asReportEntry?: boolean;
  /** `--rehearse` of a saved plan: the replica the caller starts, and how long it waits for its registry. */
  rehearsal?: { start: StartReplica; waitMs: number };
  /** The approval rules' gate (run/approval-gate.ts): `--approvals DIR`, `--emergency REASON`, the clock it judges by. */
  approvalGate?: { approvalsFolder?: string; emergency?: string; clock?: Clock };
}

/** How the caller follows one apply (all optional: absent, the apply runs unwatched and approved). */
type ApplyWatch = Pick<ApplyRunOptions, 'onEvent' | 'approve' | 'interruptible' | 'onClaim'> & {
  /** Called once the sending ends, or when nothing was sent (the progress's last lines). */
  done?: () => void;
};

/** What the plan is shown with, and where it runs. */
interface PlannedRun {
  plan: Plan;
  /** The warnings shown with the plan (approvals that approve nothing). */
  notes: string[];
  /** The operations its apply runs (what a progress line counts to). */
  steps: number;
  account: string;
  /** The state it is recorded in. */
  state: string;
}

export interface ApplyWatcher {
  /** The rehearsal's report, before anything here is read (a rehearsal that did not go through then stops the run). */
  rehearsed?: (rehearsal: Rehearsal) => void;
  /** Told the reconciled plan before any gate, prompt or request; gives back how to follow its apply. */
  planned: (run: PlannedRun) => ApplyWatch;
}

type ApplyRequestOutcome =
  /** `asReportEntry`: the account's entry of the accounts report. */
  { mode: 'entry'; entry: AccountOutcome } | { mode: 'apply'; plan: Plan; outcome: ApplyRunOutcome };

export async function applyManifests(
  request: ApplyRequest,
  globals: GlobalOptions,
  context: RunContext,
  watcher: ApplyWatcher,
): Promise<ApplyRequestOutcome> {
  const { source } = request;
  let input: ReconcileInput;
  if ('savedPlan' in source) input = { savedPlan: source.savedPlan };
  else {
    const values = await readValues(source.values, context.io.cwd);
    input = { paths: source.paths, ...(values ? { values } : {}) };
  }
  if (request.rehearsal && 'savedPlan' in source) {
    // The exact reviewed plan on a replica first: if the API would refuse any of it there, nothing is applied here.
    const rehearsal = await rehearse(
      { reconcile: input, globals, options: {}, waitMs: request.rehearsal.waitMs, parallelism: request.parallelism },
      context,
      request.rehearsal.start,
    );
    watcher.rehearsed?.(rehearsal);
    if (!rehearsal.clean) {
      throw new TelformError(
        'rehearsal_failed',
        `the rehearsal of ${source.savedPlan} on a replica of the account did not go through (see above); nothing was applied`,
      );
    }
  }
  // The approval rules judge with the other gates, before anything is shown as about to run: a refusal sends nothing.
  const reconciled = await reconcile(input, globals, request.approvals, context, {
    ...request.options,
    lock: true,
    approvalRules: approvalRulesOf(request.approvalGate),
  });
  return withReconciliation(reconciled, async (run): Promise<ApplyRequestOutcome> => {
    const watch = watcher.planned(plannedRun(run, planNotes(run.plan, run.plan.approvals)));
    const following = { parallelism: request.parallelism, waitMs: request.waitMs, ...followed(watch) };
    try {
      if (request.asReportEntry) {
        const { approve: _asked, onClaim: _claim, ...step } = following;
        return { mode: 'entry', entry: { name: run.session.account, ...(await applyStep(step)(run)) } };
      }
      return { mode: 'apply', plan: run.plan, outcome: await applyReconciled(run, following) };
    } finally {
      watch.done?.();
    }
  });
}

/** The approval rules' inputs of an apply: `--approvals DIR`, `--emergency REASON`, the clock they judge by. */
export function approvalRulesOf(
  gate: ApplyRequest['approvalGate'] = {},
): NonNullable<ReconcileOptions['approvalRules']> {
  return {
    ...(gate.approvalsFolder === undefined ? {} : { approvalsFolder: gate.approvalsFolder }),
    ...(gate.emergency === undefined ? {} : { emergency: gate.emergency }),
    clock: gate.clock ?? systemClock,
  };
}

/** The plan and where it runs, as a watcher is told it. */
export function plannedRun(run: Reconciliation, notes: string[]): PlannedRun {
  return {
    plan: run.plan,
    notes,
    steps: countApplySteps(run.plan),
    account: run.session.account,
    state: run.store.file,
  };
}

/** The apply options a watch gives (those it sets; `done` is the caller's). */
export function followed(
  watch: ApplyWatch,
): Pick<ApplyRunOptions, 'onEvent' | 'approve' | 'interruptible' | 'onClaim'> {
  const { done: _done, ...options } = watch;
  return options;
}
