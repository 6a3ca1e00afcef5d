// The apply operation: a reconciled plan is checked, approved, applied and recorded. `apply -f`, the
// apply of a saved plan and every account of `apply --accounts` call this one function, so a safety
// gate, a protection recorded without a request or the run's read memo holds on every path.
import { systemClock, type Clock } from '../util/clock.js';
import { applyPlan, ledgerRefreshes, type ApplyEvent, type ApplyResult } from '../engine/apply.js';
import type { Plan } from '../engine/plan-types.js';
import type { SafetyViolation } from '../engine/safety.js';
import { hasChanges } from '../engine/summary.js';
import { claimOnFirstWrite } from '../state/ownership.js';
import type { Reconciliation } from './reconcile.js';
import { assertNotRefused, isJudged } from './judgement.js';
import { entriesBefore, recordApply } from './history.js';
import type { HistoryRecord, HistoryTag } from '../state/history.js';

export interface ApplyRunOptions {
  /** Requests in flight at once (`--parallelism`). */
  parallelism: number;
  /** How long to wait for registry approvals (`--wait`); 0: do not wait. */
  waitMs: number;
  clock?: Clock;
  onEvent?: (event: ApplyEvent) => void;
  /**
   * Asked once the plan is known to be safe and to change something, before any request is sent;
   * false cancels the apply. Absent: approved (`--auto-approve`, a saved plan, each account of
   * --accounts). It may throw to refuse (no terminal to ask on).
   */
  approve?: () => Promise<boolean>;
  /**
   * Wraps the sending of the changes (after `approve`): the CLI tells a user who interrupts it what
   * was under way. Absent: the changes are applied as they are.
   */
  interruptible?: <T>(apply: () => Promise<T>) => Promise<T>;
  /** What runs it, for the history record (`apply` unless said, or the reconciliation's own tag). */
  history?: HistoryTag;
  /**
   * Told when the claim of an account nobody owns starts (true) and ends (false): the first write,
   * inside `interruptible`, so an interrupted claim is said as such.
   */
  onClaim?: (claiming: boolean) => void;
}

/** A protection given or lifted: recorded in the state without a request. */
export interface ProtectionRecorded {
  address: string;
  protect: boolean;
}

export type ApplyRunOutcome =
  /** The safety gates refused changes nobody approved; nothing was sent. */
  | { status: 'refused'; violations: SafetyViolation[] }
  /** Nothing to send; protections that changed were recorded in the state. */
  | { status: 'no_changes'; recorded: ProtectionRecorded[] }
  /** `approve` said no; nothing was sent. */
  | { status: 'cancelled' }
  /** `record`: the apply's history record (its number names it to `telform revert`). */
  | { status: 'applied'; result: ApplyResult; failed: boolean; record: HistoryRecord };

/**
 * Applies the reconciled plan: refuses it when a gate does (before anything else), records a
 * protection-only change in the state, asks `approve`, claims an account nobody owns, then applies
 * in dependency waves through the run's live context (its memo spares reads the plan already made)
 * and compacts the journal.
 */
export async function applyReconciled(run: Reconciliation, options: ApplyRunOptions): Promise<ApplyRunOutcome> {
  // Only a plan that came out of the one judgement is applied, and exactly as judged.
  if (!isJudged(run.judged)) throw new Error('applyReconciled: the plan did not pass the judgement stage');
  const { plan, violations } = run.judged;
  assertNotRefused(run.judged, 'sent');
  if (violations.length > 0) return { status: 'refused', violations: [...violations] };
  const inputs = {
    plan,
    kinds: run.kinds,
    desired: run.desiredByAddress,
    store: run.store,
    live: run.live,
    fingerprinter: run.fingerprinter,
    resolveSecrets: run.desired.resolveSecrets,
    read: run.read,
  };
  const clock = options.clock ?? systemClock;
  if (!hasChanges(plan)) {
    const refreshed = ledgerRefreshes(plan, run.store, run.desiredByAddress);
    // Applying a plan of noops sends nothing: it refreshes the ledger entries, protect included.
    if (refreshed.length > 0) await applyPlan(inputs, { parallelism: options.parallelism, waitMs: 0, clock });
    return {
      status: 'no_changes',
      recorded: refreshed.map((address) => ({ address, protect: run.desiredByAddress.get(address)?.protect === true })),
    };
  }
  if (options.approve && !(await options.approve())) return { status: 'cancelled' };
  const send = async () => {
    // The fence first: an account nobody owns is claimed before any other write (refused if another ledger claimed it meanwhile).
    if (run.claimsAccount) {
      options.onClaim?.(true);
      try {
        await claimOnFirstWrite(run.store, run.live, run.session.account, 'apply');
      } finally {
        options.onClaim?.(false);
      }
    }
    return applyPlan(inputs, {
      parallelism: options.parallelism,
      waitMs: options.waitMs,
      clock,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
  };
  const before = entriesBefore(run);
  const result = await (options.interruptible ? options.interruptible(send) : send());
  const record = await recordApply(
    run,
    result,
    before,
    options.history ?? run.history ?? planTag(plan),
    run.judged.signoff,
  );
  return { status: 'applied', result, failed: result.failed > 0 || result.blocked > 0, record };
}

/** What the plan itself says it is: a revert's plan (saved by `revert -o`) is recorded as the revert of its apply. */
function planTag(plan: Plan): HistoryTag {
  if (plan.reverts === undefined) return { trigger: 'apply' };
  return { trigger: 'revert', reverts: plan.reverts, ...(plan.reverts_over ? { over: plan.reverts_over } : {}) };
}

/** The line the CLI prints for a protection recorded without a request. */
export function recordedLine(recorded: ProtectionRecorded): string {
  return `recorded in the state: ${recorded.address} is ${recorded.protect ? 'protected' : 'no longer protected'}`;
}
