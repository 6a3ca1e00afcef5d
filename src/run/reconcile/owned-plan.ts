// Reconcile's scope and ownership stage: the plan of what the state's scope holds (a scope narrows
// what a state may write, never what its gates read), made again if another state took part of the
// scope over, and the account's owners judged before anything may write.
import { allKinds, assertScopeAsGiven, type Loaded } from './inputs.js';
import { SecretFingerprinter } from '../../state/ledger.js';
import type { LedgerStore } from '../../state/ledger-store.js';
import type { LiveModel, PlannerKinds } from '../../engine/model.js';
import type { Plan } from '../../engine/plan-types.js';
import { preparePlan } from '../../engine/prepare.js';
import { keepLiveNames } from '../../engine/live-names.js';
import { readMarkerReading } from '../../resources/ownership-marker.js';
import {
  assertMayWrite,
  describeOwners,
  foreignMarkerNotes,
  ledgerScope,
  lostMarkerWarning,
  ownershipOf,
  type Ownership,
} from '../../state/ownership.js';
import { isEverything, sameScope, type Scope } from '../../resources/ownership-scope.js';
import {
  assertDesiredInScope,
  assertPruneInScope,
  effectiveScope,
  releaseOutOfScope,
  resolveForeignRefs,
  scopedKinds,
  wholeAccountKinds,
} from '../scope.js';
import { type EarlyReads } from '../early-reads.js';
import { type LiveContext } from '../../resources/live-side.js';
import { type DesiredSet } from '../../manifest/desired.js';
import type { StageTimer } from '../../util/stage-timer.js';
import { type RunIo, type Session } from '../context.js';
import { printable } from '../../util/printable.js';
import type { ReconcileOptions } from './types.js';
import { markUsedProfiles } from '../brands-made.js';

interface OwnedPlanInputs {
  loaded: Loaded;
  options: ReconcileOptions;
  store: LedgerStore;
  session: Session;
  live: LiveContext;
  started: EarlyReads | undefined;
  fingerprinter: SecretFingerprinter;
  io: RunIo;
  timer: StageTimer;
}

interface OwnedPlan {
  kinds: PlannerKinds;
  desired: DesiredSet;
  whole: Plan;
  read: LiveModel;
  ownership: Ownership;
  markersTotal: number;
}

/**
 * The scope and ownership stage: the plan of what the state's scope holds, made once more if another
 * state took part of the scope over, and the account's owners judged before anything may write.
 */
export async function ownedPlanStage(inputs: OwnedPlanInputs): Promise<OwnedPlan> {
  const { loaded, options, store, session, live, io } = inputs;
  let desired = loaded.desired;
  // Within the state's scope: other scopes' objects are invisible, and refs into them are read.
  const within = async (scope: Scope) => {
    const planned = await planWithin(scope, { ...inputs, desired });
    desired = planned.desired;
    return planned;
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
  return {
    kinds: prepared.kinds,
    desired,
    whole: prepared.plan,
    read: prepared.live,
    ownership,
    markersTotal: markers.total,
  };
}

/** Reads what `scope` needs and plans it; a scope narrows what the state may write, never what its gates read. */
async function planWithin(scope: Scope, inputs: OwnedPlanInputs & { desired: DesiredSet }) {
  const { loaded, options, store, session, live, started, fingerprinter } = inputs;
  const kinds = scopedKinds(allKinds(), scope);
  if (!loaded.teardown) assertDesiredInScope(inputs.desired.resources, allKinds(), scope);
  assertPruneInScope(loaded.approvals.prune_unmanaged, scope);
  await releaseOutOfScope(store, allKinds(), scope, options.lock, inputs.io.stderr);
  const desired = {
    ...inputs.desired,
    // A brand from a profile that registered one before (the ledger and history know) breaks a create rule.
    resources: await markUsedProfiles(
      await resolveForeignRefs(inputs.desired.resources, allKinds(), scope, live),
      store.ledger,
      () => store.readHistory(),
    ),
  };
  keepLiveNames(desired.resources, store.ledger, kinds);
  const prepared = await preparePlan({
    kinds,
    desired: desired.resources,
    live,
    store,
    fingerprinter,
    resolveSecrets: desired.resolveSecrets,
    approvals: loaded.approvals,
    endpoint: session.endpointLabel,
    account: session.account,
    now: new Date(),
    timer: inputs.timer,
    // Only what the targets need is read; a saved plan reads what its targets needed.
    targets: loaded.saved ? (loaded.saved.plan.targets ?? []) : (options.targets ?? []),
    readAll: options.readAll === true,
    // The lists started early were read as the whole account sees them.
    ...(started && isEverything(scope) ? { started } : {}),
    // A scope narrows what this state may write, never what its gates read.
    ...(isEverything(scope) ? {} : { wholeKinds: wholeAccountKinds(allKinds()) }),
  });
  return { kinds, desired, ...prepared };
}
