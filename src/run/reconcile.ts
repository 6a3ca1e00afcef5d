// The reconcile operation: manifests (or a saved plan), the ledger and the account in, a plan and
// what the safety gates refuse in it out. Every command that plans (plan, apply, drift, each
// account of --accounts) starts here, so they all read, settle, plan and judge the same way.
import { TelformError } from '../util/errors.js';
import { SecretFingerprinter } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { plannerKinds } from '../engine/kinds.js';
import type { DesiredResource, LiveModel, PlannerKinds } from '../engine/model.js';
import type { Plan, PlanApprovals, PlanFinding } from '../engine/plan-types.js';
import { preparePlan } from '../engine/prepare.js';
import { checkSafety, requiredApprovals, type SafetyViolation } from '../engine/safety.js';
import { limitToTargets } from '../engine/targets.js';
import { excludeFromPlan } from '../engine/exclude.js';
import { asTeardown } from '../engine/destroy.js';
import { keepLiveNames } from '../engine/live-names.js';
import { catalog } from '../resources/index.js';
import { readMarkerReading } from '../resources/ownership-marker.js';
import {
  assertMayWrite,
  claimNote,
  claimRequests,
  claimsOnWrite,
  describeOwners,
  foreignMarkerNotes,
  ledgerScope,
  lostMarkerWarning,
  ownershipOf,
} from '../state/ownership.js';
import { assertAclQuota } from '../engine/acl-quota.js';
import { describeScope, everything, isEverything, sameScope, type Scope } from '../resources/ownership-scope.js';
import {
  assertDesiredInScope,
  assertPruneInScope,
  effectiveScope,
  peekState,
  releaseOutOfScope,
  resolveForeignRefs,
  scopedKinds,
  wholeAccountKinds,
  type PeekedState,
} from './scope.js';
import { startEarly, type ReadsAhead } from './early-reads.js';
import { liveContext, type LiveContext } from '../resources/live-side.js';
import type { PolicyRule } from '../manifest/policy-file.js';
import { loadDesired, secretResolverForPlan, type DesiredSet } from '../manifest/desired.js';
import type { ValueSet } from '../manifest/values.js';
import type { StageTimer } from '../util/stage-timer.js';
import { timerOf, type GlobalOptions, type RunContext, type RunIo, type Session } from './context.js';
import type { HistoryTag } from '../state/history.js';
import { resumablePart, resumedNote, type ResumedPlan } from './plan-resume.js';
import { assertPlanApplies, assertPlanSealed, desiredFromPlan, mergeApprovals, readSavedPlan } from './saved-plan.js';
import { openState } from './state-location.js';
import { revertOf } from './revert-record.js';
import { printable } from '../util/printable.js';

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

export interface Reconciliation {
  session: Session;
  store: LedgerStore;
  kinds: PlannerKinds;
  desired: DesiredSet;
  /** Desired resources by address, as apply looks them up. */
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  /** The plan to show or apply: the fresh one, or the saved one once it is known to still apply. */
  plan: Plan;
  /** The approvals the plan was judged with (a saved plan's, widened by the flags given to apply it). */
  approvals: PlanApprovals;
  /** The run's view of the API, shared by plan and apply (reads like the account's numbers are made once). */
  live: LiveContext;
  /** Every kind's objects as this run read them to plan. */
  read: LiveModel;
  /** What the safety gates refuse in `plan` with the approvals given (docs/state-and-safety.md, safety). */
  violations: SafetyViolation[];
  fingerprinter: SecretFingerprinter;
  /**
   * Nobody owns the account and the plan changes something: applying it claims the account for
   * this ledger, as its first write (`claimOnFirstWrite`). Never set for a read-only run.
   */
  claimsAccount: boolean;
  /** Where the run reads files and variables: the history record's origin is found there. */
  io: RunIo;
  /** A saved plan partly applied before: what is left of it, and the reviewed plan its approvals sign. */
  resumed?: ResumedPlan;
  /** What ran the apply, for its history record; set by a caller other than `apply` (a rollout's wave). */
  history?: HistoryTag;
  close(): Promise<void>;
}

/** What to reconcile: manifest paths, or a plan saved with `plan -o` (applied exactly, or refused). */
export type ReconcileInput =
  | { paths: readonly string[]; values?: ValueSet }
  | { savedPlan: string }
  /** Desired resources made by the caller (a revert's, from the state and the history). */
  | { resources: DesiredResource[] };

export interface ReconcileOptions {
  /** Take the ledger's lock (apply): a read-only run (plan, drift) keeps what it settles in memory. */
  lock: boolean;
  allowSecretFilesOutside?: boolean | undefined;
  /** `--target` addresses; a saved plan keeps the targets it was made with. */
  targets?: readonly string[];
  /** `--exclude` addresses; a saved plan keeps the ones it was made with. */
  excludes?: readonly string[];
  /** `--destroy`: plan the deletion of everything the state manages; `input` then names no manifests. */
  destroy?: boolean;
  /** Only reads (drift): a ledger that does not own the account may run it, and is told who does. */
  readOnly?: boolean;
  /** The scope the accounts file gives the account: a state that owns another part is refused. */
  scope?: Scope;
  /** `--policy FILE`: rules evaluated over the fresh plan (a saved plan carries its findings). */
  policies?: readonly string[];
  /** `--show-unmanaged`: read every kind, not only those the manifests and the state need. */
  readAll?: boolean;
  /** Reads the command started before the rest of it loaded (`readAhead`); taken over once. */
  readsAhead?: ReadsAhead;
  /** Rewrites the fresh plan before the gates judge it (a revert marks what cannot come back). */
  adjust?: (plan: Plan, kinds: PlannerKinds) => Plan;
}

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
 */
export async function reconcile(
  input: ReconcileInput,
  globals: GlobalOptions,
  flagApprovals: PlanApprovals,
  context: RunContext,
  options: ReconcileOptions,
): Promise<Reconciliation> {
  const { io } = context;
  const timer = timerOf(context);
  const unknownKinds = flagApprovals.prune_unmanaged.filter((kind) => !catalog.get(kind));
  if (unknownKinds.length > 0) {
    throw new TelformError(
      'bad_option',
      `--prune-unmanaged ${unknownKinds.join(', ')}: not a kind (kinds: ${catalog.names.join(', ')})`,
    );
  }
  const allowSecretFilesOutside = options.allowSecretFilesOutside === true;
  const saved =
    'savedPlan' in input ? { file: input.savedPlan, plan: await readSavedPlan(input.savedPlan) } : undefined;
  const approvals = saved ? mergeApprovals(saved.plan.approvals, flagApprovals) : flagApprovals;
  const teardown = saved ? saved.plan.destroy === true : options.destroy === true;
  // The part of the account the state owns: manifests are checked against it before any write.
  // Reads the command started before it loaded the rest (plan -f) are taken over here.
  const ahead = saved || teardown ? undefined : await options.readsAhead?.take();
  const peekedState: PeekedState =
    ahead ?? (saved || teardown ? { scope: everything } : await peekState(globals, io.env));
  const peeked = peekedState.scope;
  if (options.scope && !saved && !teardown) assertScopeAsGiven(options.scope, peeked);
  const allKinds = plannerKinds(catalog);
  // A run that takes no lock lists what its state names while the manifests load (GETs only: a
  // manifest that fails validation still sends no write); apply reads once it holds the lock.
  const mayReadEarly = !options.lock && 'paths' in input && (options.targets ?? []).length === 0;
  const { session: earlySession, reads: early } =
    ahead ??
    startEarly(peekedState, mayReadEarly, () => context.connect(globals, io), allKinds, approvals.prune_unmanaged);
  let desired: DesiredSet;
  let policies: PolicyRule[];
  try {
    ({ desired, policies } = await loadInputs({
      input,
      saved,
      teardown,
      io,
      timer,
      allowSecretFilesOutside,
      policyFiles: options.policies ?? [],
      scope: options.scope ?? peeked,
    }));
  } catch (error) {
    // The manifests (or policies) failed: the session opened early is closed, its reads dropped.
    await earlySession?.then(
      (opened) => opened.close(),
      () => undefined,
    );
    throw error;
  }
  const session = await (earlySession ?? context.connect(globals, io));
  const started = await early?.catch(() => undefined);
  let store: LedgerStore | undefined;
  try {
    // Before the state, the account or a secret is read: an edited plan could name what is read.
    if (saved) assertPlanSealed(saved.plan, session, saved.file);
    // A saved revert wants what the revert wanted, made again from the history and the ledger (it is
    // applied only while the ledger is the one it was made from): its plan lists only what it changes.
    if (saved?.plan.reverts !== undefined) {
      const { set } = await revertOf(saved.plan.reverts, globals, { io }, saved.plan.reverts_over ?? []);
      desired = { ...desired, resources: set.resources };
    }
    store = await openState(globals, io.env, {
      binding: { endpoint: session.endpointLabel, account: session.account },
      lock: options.lock,
      notify: io.stderr,
      // The ledger peeked before the manifests loaded, parsed once: reused if the state did not change since.
      ...(peekedState.ledger && peekedState.text !== undefined
        ? { parsed: { text: peekedState.text, ledger: peekedState.ledger } }
        : {}),
    });
    const fingerprinter = new SecretFingerprinter(session.authToken);
    const live = started?.live ?? liveContext(session.client);
    const opened = store;
    // Within the state's scope: other scopes' objects are invisible, and refs into them are read.
    const within = async (scope: Scope) => {
      if (!teardown) assertDesiredInScope(desired.resources, allKinds, scope);
      assertPruneInScope(approvals.prune_unmanaged, scope);
      await releaseOutOfScope(opened, allKinds, scope, options.lock, io.stderr);
      desired = { ...desired, resources: await resolveForeignRefs(desired.resources, allKinds, scope, live) };
      const kinds = scopedKinds(allKinds, scope);
      keepLiveNames(desired.resources, opened.ledger, kinds);
      const prepared = await preparePlan({
        kinds,
        desired: desired.resources,
        live,
        store: opened,
        fingerprinter,
        resolveSecrets: desired.resolveSecrets,
        approvals,
        endpoint: session.endpointLabel,
        account: session.account,
        now: new Date(),
        timer,
        // Only what the targets need is read; a saved plan reads what its targets needed.
        targets: saved ? (saved.plan.targets ?? []) : (options.targets ?? []),
        readAll: options.readAll === true,
        // The lists started early were read as the whole account sees them.
        ...(started && isEverything(scope) ? { started } : {}),
        // A scope narrows what this state may write, never what its gates read.
        ...(isEverything(scope) ? {} : { wholeKinds: wholeAccountKinds(allKinds) }),
      });
      return { kinds, ...prepared };
    };
    let scope = ledgerScope(store.ledger);
    if (options.scope) assertScopeAsGiven(options.scope, scope, store.file);
    let prepared = await within(scope);
    // One owner per account: a plan or apply by a ledger that does not own it stops here, before any write.
    let markers = await readMarkerReading(live);
    const effective = effectiveScope(store, markers.markers, io.stderr);
    if (!sameScope(effective, scope)) {
      // Another state took part of the scope over: plan again within what is left.
      scope = effective;
      prepared = await within(scope);
      markers = await readMarkerReading(live);
    }
    const { kinds, plan: whole, live: read } = prepared;
    const ownership = ownershipOf(markers.markers, store.ledger.lineage, scope);
    // ACL names are live text: escaped.
    for (const note of foreignMarkerNotes(markers.foreign)) io.stderr(printable(note));
    const lost = lostMarkerWarning(ownership, store, session.account);
    if (lost) io.stderr(lost);
    if (!options.readOnly) assertMayWrite(ownership, store, session.account, options.lock ? 'apply' : 'plan');
    // The owners are read from markers in the account: live text, escaped.
    else if (ownership.status === 'other')
      io.stderr(
        `note: account ${session.account} is owned by ${printable(describeOwners(ownership.owners))}; the state ${store.file} only reads it`,
      );
    // A saved plan is planned again with the targets it was made with (`--target`).
    const scoped = teardown ? asTeardown(whole) : whole;
    // Read only by a --target that names nothing (for its suggestion): not built otherwise.
    const resources = desired.resources;
    const knownAddresses: Iterable<string> = {
      *[Symbol.iterator]() {
        for (const resource of resources) yield resource.address;
        yield* Object.keys(opened.ledger.resources);
      },
    };
    const targeted = limitToTargets(
      scoped,
      saved ? (saved.plan.targets ?? []) : (options.targets ?? []),
      kinds,
      knownAddresses,
    );
    const excluded = excludeFromPlan(
      targeted,
      saved ? (saved.plan.excluded ?? []) : (options.excludes ?? []),
      kinds,
      store.ledger.resources,
    );
    const limited = options.adjust && !saved ? options.adjust(excluded, kinds) : excluded;
    const values = 'values' in desired ? desired.values : undefined;
    const policyFindings =
      policies.length === 0
        ? []
        : (await import('../manifest/policy-eval.js')).evaluatePolicies(policies, limited, desired.resources);
    const findings = [...findingsOf(limited, desired.findings), ...policyFindings];
    const checked = { ...limited, ...(values ? { values } : {}), ...(findings.length > 0 ? { findings } : {}) };
    // The gates judge the fresh plan once: its violations are what `requiredApprovals` finds given, and,
    // unless a saved plan is applied, what the run refuses (the fields added below are none they read).
    const judged = checkSafety(checked, approvals, desired.resources, store.ledger);
    const planned = {
      ...checked,
      required_approvals: requiredApprovals(checked, approvals, desired.resources, store.ledger, judged),
    };
    // The first apply of an account nobody owns claims it: its requests are in the estimate.
    const claims = !options.readOnly && claimsOnWrite(ownership, store.ledger) && writes(planned);
    const plan = claims
      ? { ...planned, summary: { ...planned.summary, api_requests: planned.summary.api_requests + claimRequests } }
      : planned;
    // The API's 100 SIP IP ACLs: a plan (and its claim) that needs more is refused before anything is sent.
    if (!options.readOnly)
      assertAclQuota(plan, markers.total, claims, session.account, options.lock ? 'apply' : 'plan');
    // A saved plan an earlier attempt applied part of is finished: only what it left is applied (run/plan-resume.ts).
    const resumed = saved ? await resumeOrAssertApplies(saved, plan, store) : undefined;
    if (resumed && saved) io.stderr(resumedNote(saved, resumed));
    const chosen = saved ? (resumed?.plan ?? saved.plan) : plan;
    // Plain adoptions only: a number the account already holds is attached by an update, and is not another ledger's.
    if (claims)
      io.stderr(claimNote(store, session.account, chosen.changes.filter((change) => change.action === 'adopt').length));
    const violations = saved ? checkSafety(chosen, approvals, desired.resources, store.ledger) : judged;
    reportManifestWarnings(desired.warnings ?? [], chosen, io.stderr);
    return {
      session,
      store: opened,
      kinds,
      desired,
      desiredByAddress: new Map(desired.resources.map((resource) => [resource.address, resource])),
      plan: chosen,
      ...(resumed ? { resumed, history: { trigger: 'apply' as const, finishes: resumed.finishes } } : {}),
      approvals,
      live,
      read,
      violations,
      fingerprinter,
      claimsAccount: claims,
      io,
      close: async () => {
        await opened.close();
        await session.close();
      },
    };
  } catch (error) {
    await store?.close().catch(() => undefined);
    await session.close();
    throw error;
  }
}

interface LoadInputs {
  input: ReconcileInput;
  saved: { file: string; plan: Plan } | undefined;
  teardown: boolean;
  io: RunIo;
  timer: StageTimer;
  allowSecretFilesOutside: boolean;
  policyFiles: readonly string[];
  scope: Scope;
}

/** What the run wants (the manifests, a saved plan's or the caller's resources) and its policies, before any request. */
async function loadInputs({
  input,
  saved,
  teardown,
  io,
  timer,
  allowSecretFilesOutside,
  policyFiles,
  scope,
}: LoadInputs): Promise<{ desired: DesiredSet; policies: PolicyRule[] }> {
  const desired: DesiredSet = teardown
    ? // A teardown wants nothing: every resource of the state is an orphan, deleted in reverse order.
      { resources: [], findings: [], resolveSecrets: async () => ({}) }
    : 'resources' in input
      ? {
          resources: input.resources,
          findings: [],
          resolveSecrets: await secretResolverForPlan({ env: io.env, cwd: io.cwd, allowSecretFilesOutside }),
        }
      : saved
        ? {
            resources: desiredFromPlan(saved.plan),
            findings: saved.plan.findings ?? [],
            resolveSecrets: await secretResolverForPlan({ env: io.env, cwd: io.cwd, allowSecretFilesOutside }),
          }
        : await timer.timeAsync('load', () => {
            const { paths, values } = input as { paths: readonly string[]; values?: ValueSet };
            return loadDesired(paths, {
              cwd: io.cwd,
              env: io.env,
              report: io.stderr,
              allowSecretFilesOutside,
              ...(values ? { values } : {}),
              scope,
              deferWarnings: true,
            });
          });
  // Compiled before the account is read: a rule with a CEL error stops the run at its line and column.
  // The CEL library loads only for a run that has policies.
  const policies: PolicyRule[] =
    saved || policyFiles.length === 0
      ? []
      : await (await import('../manifest/policy-file.js')).loadPolicies(policyFiles, io.cwd);
  return { desired, policies };
}

/** Refuses a state that owns another part of the account than the accounts file gives it. */
function assertScopeAsGiven(given: Scope, owned: Scope, file?: string): void {
  if (sameScope(given, owned)) return;
  throw new TelformError(
    'out_of_scope',
    `the accounts file gives this account the scope ${describeScope(given)}, but its state${file ? ` ${file}` : ''} owns ${describeScope(owned)}; claim that scope with the state first (telform state claim --scope …)`,
  );
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

/**
 * The findings about the plan's resources (a `--target` plan leaves the others out). A lint error on a
 * campaign the plan does not submit is held: the registry took the campaign as it is.
 */
function findingsOf(plan: Plan, findings: readonly PlanFinding[]): PlanFinding[] {
  const addresses = new Set(plan.changes.map((change) => change.address));
  const submitted = new Set(
    plan.changes.filter((change) => submittingActions.has(change.action)).map((change) => change.address),
  );
  return findings
    .filter((finding) => addresses.has(finding.address))
    .map((finding) =>
      finding.source === 'lint' && finding.severity === 'error' && !submitted.has(finding.address)
        ? { ...finding, held: true as const }
        : finding,
    );
}

/** Campaign changes that submit to the registry (`engine/safety.ts` judges their lint errors). */
const submittingActions = new Set(['create', 'update', 'replace', 'wait']);

/** Whether applying the plan writes (to the account or the ledger): a blocked change is never sent. */
function writes(plan: Plan): boolean {
  return plan.changes.some(
    (change) => (change.action !== 'noop' && change.action !== 'blocked') || change.moved_from !== undefined,
  );
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

/** The saved plan applies as it is, or what an earlier attempt left of it does; otherwise it is stale. */
async function resumeOrAssertApplies(
  saved: { file: string; plan: Plan },
  fresh: Plan,
  store: LedgerStore,
): Promise<ResumedPlan | undefined> {
  try {
    assertPlanApplies(saved.plan, fresh, saved.file);
    return undefined;
  } catch (error) {
    if (!(error instanceof TelformError) || error.code !== 'plan_stale') throw error;
    const resumed = await resumablePart(saved.plan, fresh, store, saved.file);
    if (!resumed) throw error;
    return resumed;
  }
}
