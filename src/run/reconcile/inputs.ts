// Reconcile's inputs stage: what the run wants (the manifests, a saved plan's resources, the
// caller's) and its policies, loaded and validated before any write, while the lists the state names
// are started (GETs only). Also the checks of the flags and scope given against the state.
import { TelformError } from '../../util/errors.js';
import { plannerKinds } from '../../engine/kinds.js';
import type { PlannerKinds } from '../../engine/model.js';
import type { Plan, PlanApprovals } from '../../engine/plan-types.js';
import { catalog } from '../../resources/index.js';
import { describeScope, everything, sameScope, type Scope } from '../../resources/ownership-scope.js';
import { peekState, type PeekedState } from '../scope.js';
import { startEarly, type EarlyReads } from '../early-reads.js';
import type { PolicyRule } from '../../manifest/policy-file.js';
import { loadDesired, secretResolverForPlan, type DesiredSet } from '../../manifest/desired.js';
import type { ValueSet } from '../../manifest/values.js';
import type { StageTimer } from '../../util/stage-timer.js';
import { timerOf, type GlobalOptions, type RunContext, type RunIo, type Session } from '../context.js';
import { desiredFromPlan, mergeApprovals, readSavedPlan } from '../saved-plan.js';
import type { ReconcileInput, ReconcileOptions } from './types.js';

export function assertPruneKinds(prune: readonly string[]): void {
  const unknownKinds = prune.filter((kind) => !catalog.get(kind));
  if (unknownKinds.length === 0) return;
  throw new TelformError(
    'bad_option',
    `--prune-unmanaged ${unknownKinds.join(', ')}: not a kind (kinds: ${catalog.names.join(', ')})`,
  );
}

export interface Loaded {
  saved: { file: string; plan: Plan } | undefined;
  approvals: PlanApprovals;
  teardown: boolean;
  peeked: PeekedState;
  desired: DesiredSet;
  policies: PolicyRule[];
  earlySession: Promise<Session> | undefined;
  early: Promise<EarlyReads> | undefined;
}

/**
 * The inputs stage: the saved plan or the manifests and policies, loaded and validated before any
 * write; the state's scope peeked and the lists it names started meanwhile (GETs only).
 */
export async function loadStage(
  input: ReconcileInput,
  globals: GlobalOptions,
  flagApprovals: PlanApprovals,
  context: RunContext,
  options: ReconcileOptions,
): Promise<Loaded> {
  const { io } = context;
  const saved =
    'savedPlan' in input ? { file: input.savedPlan, plan: await readSavedPlan(input.savedPlan) } : undefined;
  const approvals = saved ? mergeApprovals(saved.plan.approvals, flagApprovals) : flagApprovals;
  const teardown = saved ? saved.plan.destroy === true : options.destroy === true;
  // The part of the account the state owns: manifests are checked against it before any write.
  // Reads the command started before it loaded the rest (plan -f) are taken over here.
  const ahead = saved || teardown ? undefined : await options.readsAhead?.take();
  const peeked: PeekedState = ahead ?? (saved || teardown ? { scope: everything } : await peekState(globals, io.env));
  if (options.scope && !saved && !teardown) assertScopeAsGiven(options.scope, peeked.scope);
  // A run that takes no lock lists what its state names while the manifests load (GETs only: a
  // manifest that fails validation still sends no write); apply reads once it holds the lock.
  const mayReadEarly = !options.lock && 'paths' in input && (options.targets ?? []).length === 0;
  const { session: earlySession, reads: early } =
    ahead ??
    startEarly(peeked, mayReadEarly, () => context.connect(globals, io), allKinds(), approvals.prune_unmanaged);
  try {
    const { desired, policies } = await loadInputs({
      input,
      saved,
      teardown,
      io,
      timer: timerOf(context),
      allowSecretFilesOutside: options.allowSecretFilesOutside === true,
      policyFiles: options.policies ?? [],
      scope: options.scope ?? peeked.scope,
    });
    return { saved, approvals, teardown, peeked, desired, policies, earlySession, early };
  } catch (error) {
    // The manifests (or policies) failed: the session opened early is closed, its reads dropped.
    await earlySession?.then(
      (opened) => opened.close(),
      () => undefined,
    );
    throw error;
  }
}

let plannerKindsOfCatalog: PlannerKinds | undefined;
export function allKinds(): PlannerKinds {
  return (plannerKindsOfCatalog ??= plannerKinds(catalog));
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
      : await (await import('../../manifest/policy-file.js')).loadPolicies(policyFiles, io.cwd);
  return { desired, policies };
}

/** Refuses a state that owns another part of the account than the accounts file gives it. */
export function assertScopeAsGiven(given: Scope, owned: Scope, file?: string): void {
  if (sameScope(given, owned)) return;
  throw new TelformError(
    'out_of_scope',
    `the accounts file gives this account the scope ${describeScope(given)}, but its state${file ? ` ${file}` : ''} owns ${describeScope(owned)}; claim that scope with the state first (telform state claim --scope …)`,
  );
}
