import { TelformError } from '../util/errors.js';
import { terminalStatus, type CommandIo } from './io.js';
import { SecretFingerprinter } from '../state/ledger.js';
import { plannerKinds } from '../engine/kinds.js';
import type { DesiredResource, LiveModel, PlannerKind } from '../engine/model.js';
import type { Plan, PlanApprovals, PlanFinding } from '../engine/plan-types.js';
import { preparePlan } from '../engine/prepare.js';
import { checkSafety, requiredApprovals, type SafetyViolation } from '../engine/safety.js';
import { assertPlanApplies, assertPlanSealed, desiredFromPlan } from '../engine/saved-plan.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { limitToTargets } from '../engine/targets.js';
import { openState } from './state-location.js';
import { catalog } from '../resources/index.js';
import { readOwnershipMarkers } from '../resources/ownership-marker.js';
import { assertMayWrite, describeOwners, ownershipOf } from '../state/ownership.js';
import { keepLiveNames } from '../engine/live-names.js';
import type { LiveContext } from '../resources/live-side.js';
import { loadDesired, secretResolverForPlan, type DesiredSet } from '../manifest/desired.js';
import type { ValueSet } from '../manifest/values.js';
import { commandTimer } from './timings.js';
import { openSession, type GlobalOptions, type Session } from './session.js';

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
  kinds: PlannerKind[];
  desired: DesiredSet;
  /** The plan to show or apply: the fresh one, or the saved one once it is known to still apply. */
  plan: Plan;
  /** The run's view of the API, shared by plan and apply (reads like the account's numbers are made once). */
  live: LiveContext;
  /** Every kind's objects as this run read them to plan. */
  read: LiveModel;
  /** What the safety gates refuse in `plan` with the approvals given (docs/state-and-safety.md, safety). */
  violations: SafetyViolation[];
  fingerprinter: SecretFingerprinter;
  close(): Promise<void>;
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
 * the account and plans. A saved plan (`apply plan.json`) is planned again from what it holds and
 * refused if anything it was made from changed. `lock` takes the ledger's lock (apply). The
 * caller closes the result.
 */
export async function reconcile(
  input: { paths: readonly string[]; values?: ValueSet } | { saved: { plan: Plan; file: string } },
  globals: GlobalOptions,
  approvals: PlanApprovals,
  io: CommandIo,
  options: {
    lock: boolean;
    allowSecretFilesOutside?: boolean | undefined;
    targets?: readonly string[];
    /** Only reads (drift): a ledger that does not own the account may run it, and is told who does. */
    readOnly?: boolean;
  },
): Promise<Reconciliation> {
  const unknownKinds = approvals.prune_unmanaged.filter((kind) => !catalog.get(kind));
  if (unknownKinds.length > 0) {
    throw new TelformError('bad_option', `--prune-unmanaged ${unknownKinds.join(', ')}: not a kind (kinds: ${catalog.names.join(', ')})`);
  }
  const desired =
    'saved' in input
      ? {
          resources: desiredFromPlan(input.saved.plan),
          findings: input.saved.plan.findings ?? [],
          resolveSecrets: await secretResolverForPlan({ env: io.env, cwd: io.cwd, allowSecretFilesOutside: options.allowSecretFilesOutside === true }),
        }
      : await commandTimer.timeAsync('load', () => loadDesired(input.paths, {
            cwd: io.cwd,
            env: io.env,
            report: io.stderr,
            allowSecretFilesOutside: options.allowSecretFilesOutside === true,
            ...(input.values ? { values: input.values } : {}),
          }),
        );
  const session = await openSession(globals, { env: io.env, note: io.stderr, logHttp: io.stderr, ...terminalStatus() });
  let store: LedgerStore | undefined;
  try {
    // Before the state, the account or a secret is read: an edited plan could name what is read.
    if ('saved' in input) assertPlanSealed(input.saved.plan, session, input.saved.file);
    store = await openState(globals, io.env, {
      binding: { endpoint: session.endpointLabel, account: session.account },
      lock: options.lock,
    });
    const kinds = plannerKinds(catalog);
    keepLiveNames(desired.resources, store.ledger, kinds);
    const fingerprinter = new SecretFingerprinter(session.authToken);
    const live: LiveContext = { client: session.client, memo: new Map() };
    const { plan: whole, live: read } = await preparePlan({
      kinds,
      desired: desired.resources,
      live,
      store,
      fingerprinter,
      resolveSecrets: desired.resolveSecrets,
      approvals,
      endpoint: session.endpointLabel,
      account: session.account,
      now: new Date(),
      timer: commandTimer,
    });
    // One owner per account: a plan or apply by a ledger that does not own it stops here, before any write.
    const ownership = ownershipOf(await readOwnershipMarkers(live), store.ledger.lineage);
    if (!options.readOnly) assertMayWrite(ownership, store, session.account, options.lock ? 'apply' : 'plan');
    else if (ownership.status === 'other') io.stderr(`note: account ${session.account} is owned by ${describeOwners(ownership.owners)}; the state ${store.file} only reads it`);
    // A saved plan is planned again with the targets it was made with (`--target`).
    const limited = limitToTargets(whole, 'saved' in input ? (input.saved.plan.targets ?? []) : (options.targets ?? []), kinds);
    const values = 'values' in desired ? desired.values : undefined;
    const findings = findingsOf(limited, desired.findings);
    const checked = { ...limited, ...(values ? { values } : {}), ...(findings.length > 0 ? { findings } : {}) };
    const plan = { ...checked, required_approvals: requiredApprovals(checked, approvals, desired.resources, store.ledger) };
    if ('saved' in input) assertPlanApplies(input.saved.plan, plan, input.saved.file);
    const chosen = 'saved' in input ? input.saved.plan : plan;
    const violations = checkSafety(chosen, approvals, desired.resources, store.ledger);
    const opened = store;
    return {
      session,
      store: opened,
      kinds,
      desired,
      plan: chosen,
      live,
      read,
      violations,
      fingerprinter,
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

/** The findings about the plan's resources (a `--target` plan leaves the others out). */
function findingsOf(plan: Plan, findings: readonly PlanFinding[]): PlanFinding[] {
  const addresses = new Set(plan.changes.map((change) => change.address));
  return findings.filter((finding) => addresses.has(finding.address));
}

export function desiredByAddress(resources: readonly DesiredResource[]): Map<string, DesiredResource> {
  return new Map(resources.map((resource) => [resource.address, resource]));
}
