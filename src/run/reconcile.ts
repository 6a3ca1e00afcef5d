// The reconcile operation: manifests (or a saved plan), the ledger and the account in, a plan and
// what the safety gates refuse in it out. Every command that plans (plan, apply, drift, each
// account of --accounts) starts here, so they all read, settle, plan and judge the same way.
import { SecretFingerprinter } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import type { Plan, PlanApprovals } from '../engine/plan-types.js';
import { liveContext } from '../resources/live-side.js';
import { timerOf, type GlobalOptions, type RunContext, type RunIo, type Session } from './context.js';
import { assertPlanSealed } from './saved-plan.js';
import { openState } from './state-location.js';
import { revertOf } from './revert-record.js';
import { assertPruneKinds, loadStage, type Loaded } from './reconcile/inputs.js';
import { ownedPlanStage } from './reconcile/owned-plan.js';
import { transformStage } from './reconcile/transforms.js';
import { judgeStage } from './reconcile/judge-stage.js';

/** Flags that approve what the safety gates would refuse (docs/state-and-safety.md, safety). */
export interface ApprovalFlags {
  allowIrreversible?: string[];
  maxCost?: number;
  maxNumbersAffected?: number;
  allowLint?: string[];
  forceDeletes?: boolean;
  allowEmpty?: boolean;
  pruneUnmanaged?: string[];
}

import type { Reconciliation, ReconcileInput, ReconcileOptions } from './reconcile/types.js';
import type { ResumedPlan } from './plan-resume.js';
export type { Reconciliation, ReconcileInput, ReconcileOptions } from './reconcile/types.js';

export function approvalsFrom(flags: ApprovalFlags): PlanApprovals {
  return {
    allow_irreversible: [...new Set(flags.allowIrreversible ?? [])].sort(),
    max_cost_usd: flags.maxCost ?? null,
    force_deletes: flags.forceDeletes ?? false,
    allow_empty: flags.allowEmpty ?? false,
    prune_unmanaged: [...new Set(flags.pruneUnmanaged ?? [])].sort(),
    // Recorded only when given, so plans without them read as before.
    ...(flags.maxNumbersAffected === undefined ? {} : { max_numbers_affected: flags.maxNumbersAffected }),
    ...((flags.allowLint ?? []).length === 0 ? {} : { allow_lint: [...new Set(flags.allowLint)].sort() }),
  };
}

/**
 * Loads the manifests (no request before they validate), opens the session and the ledger, reads
 * the account and plans. A saved plan is planned again from what it holds, with its approvals
 * widened by `approvals`, and refused if anything it was made from changed. The caller closes the
 * result.
 *
 * The stages, each with one concern: the inputs (`loadStage`: manifests or a saved plan, policies,
 * the reads started early), the state (`openState`), the owned plan (`ownedPlanStage`: scope,
 * ownership, reads and planning), the transforms (`transformStage`: teardown, targets, excludes, the
 * producer's own), and the judgement (`judgeStage`, run/judgement.ts), which every plan passes.
 */
export async function reconcile(
  input: ReconcileInput,
  globals: GlobalOptions,
  flagApprovals: PlanApprovals,
  context: RunContext,
  options: ReconcileOptions,
): Promise<Reconciliation> {
  const { io } = context;
  assertPruneKinds(flagApprovals.prune_unmanaged);
  const loaded = await loadStage(input, globals, flagApprovals, context, options);
  const session = await (loaded.earlySession ?? context.connect(globals, io));
  const started = await loaded.early?.catch(() => undefined);
  let store: LedgerStore | undefined;
  try {
    const wanted = await sealedInputsStage(loaded, session, globals, io);
    store = await openStateStage(wanted, globals, io, options.lock, session);
    const fingerprinter = new SecretFingerprinter(session.authToken);
    const live = started?.live ?? liveContext(session.client);
    const timer = timerOf(context);
    const loadedAs = { loaded: wanted, options, store, session, io };
    const owned = await ownedPlanStage({ ...loadedAs, live, started, fingerprinter, timer });
    const transformed = transformStage(owned.whole, { ...wanted, options, ...owned, ledger: store.ledger });
    const verdict = await judgeStage(transformed, { ...owned, ...loadedAs });
    reportManifestWarnings(owned.desired.warnings ?? [], verdict.judged.plan, io.stderr);
    const { kinds, desired, read } = owned;
    return reconciliationOf({
      kinds,
      desired,
      read,
      ...verdict,
      session,
      store,
      live,
      fingerprinter,
      io,
      approvals: loaded.approvals,
    });
  } catch (error) {
    await store?.close().catch(() => undefined);
    await session.close();
    throw error;
  }
}

/** The stages' outcome as the caller uses it; closing it closes the state and the session. */
function reconciliationOf(
  parts: Omit<Reconciliation, 'plan' | 'desiredByAddress' | 'claimsAccount' | 'close' | 'resumed' | 'history'> & {
    claims: boolean;
    resumed?: ResumedPlan;
  },
): Reconciliation {
  const { claims, resumed, judged, desired, store, session, ...rest } = parts;
  return {
    ...rest,
    judged,
    desired,
    store,
    session,
    plan: judged.plan,
    desiredByAddress: new Map(desired.resources.map((resource) => [resource.address, resource])),
    claimsAccount: claims,
    ...(resumed ? { resumed, history: { trigger: 'apply' as const, finishes: resumed.finishes } } : {}),
    close: async () => {
      await store.close();
      await session.close();
    },
  };
}

/**
 * A saved plan's seal is checked before the state, the account or a secret is read (an edited plan
 * could name what is read). A saved revert wants what the revert wanted, made again from the history
 * and the ledger (it applies only while the ledger is the one it was made from): its plan lists only
 * what it changes.
 */
async function sealedInputsStage(loaded: Loaded, session: Session, globals: GlobalOptions, io: RunIo): Promise<Loaded> {
  const { saved } = loaded;
  if (!saved) return loaded;
  assertPlanSealed(saved.plan, session, saved.file);
  if (saved.plan.reverts === undefined) return loaded;
  const { set } = await revertOf(saved.plan.reverts, globals, { io }, saved.plan.reverts_over ?? []);
  return { ...loaded, desired: { ...loaded.desired, resources: set.resources } };
}

/**
 * The state stage: the ledger opened (locked for an apply), reusing the ledger peeked before the
 * manifests loaded if the state did not change since.
 */
async function openStateStage(
  loaded: Loaded,
  globals: GlobalOptions,
  io: RunIo,
  lock: boolean,
  session: Session,
): Promise<LedgerStore> {
  const { ledger, text } = loaded.peeked;
  return openState(globals, io.env, {
    binding: { endpoint: session.endpointLabel, account: session.account },
    lock,
    notify: io.stderr,
    ...(ledger && text !== undefined ? { parsed: { text, ledger } } : {}),
  });
}

/**
 * The manifests' warnings about what the plan changes, and those about no resource: a converged plan
 * prints none (validate lists every warning).
 */
function reportManifestWarnings(
  warnings: ReadonlyArray<{ address?: string; line: string }>,
  plan: Plan,
  report: (line: string) => void,
): void {
  if (warnings.length === 0) return;
  const changing = new Set(plan.changes.filter((change) => change.action !== 'noop').map((change) => change.address));
  for (const warning of warnings)
    if (warning.address === undefined || changing.has(warning.address)) report(warning.line);
}

/** Runs `work` on a reconciliation and closes it, whatever happens. */
export async function withReconciliation<T>(
  run: Reconciliation,
  work: (run: Reconciliation) => Promise<T>,
): Promise<T> {
  try {
    return await work(run);
  } finally {
    await run.close();
  }
}
