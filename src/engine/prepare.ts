import { Pacer } from '../util/pace.js';
import { untimed, type StageTimer } from '../util/stage-timer.js';
import type { LiveContext, LiveObject } from '../resources/live-side.js';
import { keyedAs, type SecretFingerprint, type SecretFingerprinter } from '../state/ledger.js';
import { ledgerIdsToFetch } from './match.js';
import { ApiRequestError } from '../api/errors.js';
import { TelformError } from '../util/errors.js';
import { unreadableKey } from './unread.js';
import type { DesiredResource, LiveModel, PlannerKind, PlannerKinds, ResolvedSecret } from './model.js';
import type { Plan, PlanApprovals } from './plan-types.js';
import { buildPlan, type SecretState } from './planner.js';
import { kindsByName } from './kinds.js';
import { neededKinds, readNeeded, type KindNeeds } from './needed-kinds.js';
import { idsToReread, settleOperations, type Settlement } from './settle.js';
import { sameSecretRef } from './secret-source.js';
import { SpecForms } from './spec-forms.js';
import type { LedgerStore } from '../state/ledger-store.js';

/**
 * The one glue function between the edges and the pure planner: reads the live list of every kind
 * the run needs (whole, concurrently; `needed-kinds.ts`), settles the operations an interrupted apply left uncertain
 * (re-reading their objects by id; recorded in the state when this run holds its lock), fetches by
 * id the ledger's objects the lists did not show, compares secrets through fingerprints, then plans.
 */
export interface PrepareInputs {
  kinds: PlannerKinds;
  desired: readonly DesiredResource[];
  live: LiveContext;
  store: LedgerStore;
  fingerprinter: SecretFingerprinter;
  /** Resolves the secrets of one resource (an error names the resource and the source, never a value). */
  resolveSecrets(resource: DesiredResource): Promise<Record<string, ResolvedSecret>>;
  approvals: PlanApprovals;
  endpoint: string;
  account: string;
  now: Date;
  /** Measures the read and plan stages (the benchmarks); untimed by default. */
  timer?: StageTimer;
  /** `--target` addresses: only the kinds they and what they refer to need are read. */
  targets?: readonly string[];
  /** Read every kind, needed or not (`--show-unmanaged` lists what the account holds of each). */
  readAll?: boolean;
  /**
   * The kinds unscoped, when `kinds` is a scope's view: the gates read the whole account's objects of
   * the kinds the run needs (a number of another scope on a trunk this state deletes), never written.
   */
  wholeKinds?: PlannerKinds;
  /** Lists already under way on `live` (started while the manifests loaded), by kind, and the request count before them. */
  started?: { lists: ReadonlyMap<string, Promise<LiveObject[]>>; sentBefore: number };
}

export interface Prepared {
  plan: Plan;
  live: LiveModel;
}

export async function preparePlan(inputs: PrepareInputs): Promise<Prepared> {
  const timer = inputs.timer ?? untimed;
  const forms = new SpecForms();
  const sentBefore = inputs.started?.sentBefore ?? inputs.live.client.requestsSent;
  const { live, notes, settled, fetchedById, unreadable, secretStates, fingerprints, whole } = await timer.timeAsync(
    'read',
    async () => {
      // The secrets are resolved and fingerprinted while the lists are read: local work in the
      // network's wait. They are compared with the ledger once settling has updated it.
      const needs = inputs.readAll
        ? everyKind(inputs.kinds)
        : neededKinds({
            kinds: inputs.kinds,
            desired: inputs.desired,
            ledger: inputs.store.ledger,
            ...(inputs.targets ? { targets: inputs.targets } : {}),
            prune: inputs.approvals.prune_unmanaged,
          });
      // So are the comparable forms of the manifests' and the state's specs (a failure is left to the planner, which makes the form again).
      const [{ live, notes }, resolved] = await Promise.all([
        readNeeded(inputs.kinds, needs, inputs.live, inputs.started?.lists, forms),
        fingerprintSecrets(inputs),
        forms.prepare(specsToDiff(inputs), inputs.kinds).catch(() => undefined),
      ]);
      const whole = inputs.wholeKinds ? await readWhole(inputs, inputs.wholeKinds) : undefined;
      const settled = await settleUncertain(inputs, live);
      // An apply stopped before it recorded itself is recorded now, as settling left it: before this
      // run changes anything (a read-only run records nothing).
      await inputs.store.recordInterrupted();
      const { fetchedById, unreadable } = await fetchMissingLedgerObjects(inputs, live);
      const { states: secretStates, fingerprints } = compareSecrets(inputs, resolved);
      return { live, notes, settled, fetchedById, unreadable, secretStates, fingerprints, whole };
    },
  );
  // The planner sees the kinds that were read: a kind nothing needs has no resource to plan.
  const readKinds = kindsByName([...inputs.kinds.values()].filter((kind) => live.has(kind.kind)));
  const plan = timer.time('diff', () =>
    buildPlan({
      kinds: readKinds,
      desired: inputs.desired,
      live,
      fetchedById,
      unreadable,
      ledger: inputs.store.ledger,
      secretStates,
      settled,
      endpoint: inputs.endpoint,
      account: inputs.account,
      approvals: inputs.approvals,
      now: inputs.now,
      timer,
      readRequests: inputs.live.client.requestsSent - sentBefore,
      forms,
      ...(whole ? { whole } : {}),
    }),
  );
  // A saved plan must not be applied with other secret values than it was made with.
  Object.assign(plan.basis.objects, fingerprints);
  plan.warnings.unshift(...notes);
  return { plan, live };
}

/** The whole account's objects of the kinds the run needs, for the gates of a scoped run. */
async function readWhole(
  inputs: PrepareInputs,
  wholeKinds: PlannerKinds,
): Promise<{ kinds: PlannerKinds; live: LiveModel }> {
  const needs = neededKinds({
    kinds: wholeKinds,
    desired: inputs.desired,
    ledger: inputs.store.ledger,
    prune: inputs.approvals.prune_unmanaged,
  });
  const { live } = await readNeeded(wholeKinds, needs, inputs.live);
  return { kinds: kindsByName([...wholeKinds.values()].filter((kind) => live.has(kind.kind))), live };
}

/** The specs the plan compares live objects with: the manifests' and those the state recorded. */
function specsToDiff(inputs: PrepareInputs): Array<{ kind: string; spec: Readonly<Record<string, unknown>> }> {
  const specs: Array<{ kind: string; spec: Readonly<Record<string, unknown>> }> = inputs.desired.map(
    ({ kind, spec }) => ({ kind, spec }),
  );
  for (const entry of Object.values(inputs.store.ledger.resources))
    specs.push({ kind: entry.kind, spec: entry.applied_spec });
  return specs;
}

/** Every kind, each required by nothing in particular (a 403 is still an error: the run asked for everything). */
function everyKind(kinds: PlannerKinds): KindNeeds {
  return { required: new Map([...kinds.keys()].map((kind) => [kind, [() => '--show-unmanaged']])), helpful: new Set() };
}

/**
 * Settles every operation the journal left uncertain, before anything is planned: the objects of
 * updates and deletes are re-read by id, creates are looked for in the lists just read.
 */
async function settleUncertain(inputs: PrepareInputs, live: LiveModel): Promise<Settlement[]> {
  const uncertain = inputs.store.uncertain;
  if (uncertain.length === 0) return [];
  const kinds = inputs.kinds;
  const reread = new Map<number, LiveObject | null>();
  await Promise.all(
    idsToReread(uncertain).map(async ({ seq, kind, id }) => {
      const definition = kinds.get(kind);
      if (definition) reread.set(seq, (await definition.live.read(inputs.live, id)) ?? null);
    }),
  );
  const settlements = settleOperations({
    kinds,
    uncertain,
    ledger: inputs.store.ledger,
    live,
    reread,
    now: inputs.now,
  });
  // An ambiguous create stays uncertain: every run blocks it until the account or the state says which object it made.
  for (const settlement of settlements)
    if (settlement.outcome !== 'ambiguous') await inputs.store.settle(settlement.address, settlement.entry);
  return settlements;
}

/**
 * Reads by id the ledger's objects the lists did not show. A read that fails concerns that object
 * alone: it is recorded in `unreadable` (by kind and id, with why), and the planner plans nothing for
 * it and what depends on it, instead of failing the run. Wrong credentials and a stopped run still fail it.
 */
async function fetchMissingLedgerObjects(
  inputs: PrepareInputs,
  live: LiveModel,
): Promise<{ fetchedById: Map<string, LiveObject | null>; unreadable: Map<string, string> }> {
  const kinds = inputs.kinds;
  const fetchedById = new Map<string, LiveObject | null>();
  const unreadable = new Map<string, string>();
  await Promise.all(
    ledgerIdsToFetch(inputs.store.ledger, live).map(async ({ address, kind, id }) => {
      const definition = kinds.get(kind);
      if (!definition) return;
      try {
        fetchedById.set(address, (await definition.live.read(inputs.live, id)) ?? null);
      } catch (error) {
        if (!objectOnly(error)) throw error;
        unreadable.set(unreadableKey(kind, id), error.message);
      }
    }),
  );
  return { fetchedById, unreadable };
}

/** A failure that says something of one object's read, not of the run (credentials, a stopped client). */
function objectOnly(error: unknown): error is TelformError {
  if (!(error instanceof TelformError) || error.code === 'client_closed') return false;
  return !(error instanceof ApiRequestError && error.status === 401);
}

/** A resolved secret of a desired resource, fingerprinted (its value is not kept). */
interface FingerprintedSecret {
  resource: DesiredResource;
  field: string;
  fingerprint: SecretFingerprint;
  origin: ResolvedSecret['origin'];
  /** For a resource moving from an address the state holds: that address. */
  movedFrom?: string;
  /**
   * The fingerprints made under every address the state's fingerprint may have been made under
   * (the old address of a move, the `keyed_as` of an entry moved before), by address.
   */
  under: Map<string, SecretFingerprint>;
}

async function fingerprintSecrets(inputs: PrepareInputs): Promise<FingerprintedSecret[]> {
  const result: FingerprintedSecret[] = [];
  const resources = inputs.store.ledger.resources;
  // In slices: each secret is an HMAC, and the lists started early are still answered meanwhile.
  const pacer = new Pacer();
  for (const resource of inputs.desired) {
    if (Object.keys(resource.secretSources).length === 0) continue;
    if (pacer.due()) await pacer.breathe();
    const resolved = await inputs.resolveSecrets(resource);
    const from = movedFromHeld(resource, inputs.store);
    const stored = resources[from ?? resource.address];
    for (const [field, { value, origin }] of Object.entries(resolved)) {
      const fingerprint = inputs.fingerprinter.fingerprint(resource.address, field, value);
      const under = new Map([[resource.address, fingerprint]]);
      for (const address of [from, stored?.secrets[field]?.keyed_as]) {
        if (address !== undefined && !under.has(address))
          under.set(address, inputs.fingerprinter.fingerprint(address, field, value));
      }
      result.push({ resource, field, fingerprint, origin, under, ...(from === undefined ? {} : { movedFrom: from }) });
    }
  }
  return result;
}

/** The old address (`metadata.moved_from`) the state holds for a resource it does not hold yet under its own. */
function movedFromHeld(resource: DesiredResource, store: LedgerStore): string | undefined {
  if (!resource.movedFrom || store.ledger.resources[resource.address]) return undefined;
  return resource.movedFrom.find((old) => store.ledger.resources[old] !== undefined);
}

function compareSecrets(
  inputs: PrepareInputs,
  secrets: readonly FingerprintedSecret[],
): { states: Map<string, Record<string, SecretState>>; fingerprints: Record<string, string> } {
  const states = new Map<string, Record<string, SecretState>>();
  const fingerprints: Record<string, string> = {};
  for (const { resource, field, fingerprint, origin, movedFrom, under } of secrets) {
    const own = inputs.store.ledger.resources[resource.address];
    // A move not yet recorded compares with the entry at the old address, as apply will carry it.
    const storedAt =
      !own && movedFrom !== undefined && inputs.store.ledger.resources[movedFrom] ? movedFrom : resource.address;
    const stored = inputs.store.ledger.resources[storedAt]?.secrets[field];
    const fresh = under.get(keyedAs(stored, storedAt));
    // Settling may have recorded an entry keyed under an address not fingerprinted above: it cannot be verified.
    const state: SecretState = {
      value: fresh ? inputs.fingerprinter.compareFingerprints(stored, fresh) : 'unverifiable',
    };
    const source = resource.secretSources[field];
    // A ledger written before sources were recorded has none to compare: not a change.
    if (stored?.source && source && !sameSecretRef(stored.source, source)) state.source_before = stored.source;
    let fieldStates = states.get(resource.address);
    if (!fieldStates) states.set(resource.address, (fieldStates = {}));
    fieldStates[field] = state;
    fingerprints[`${resource.address}#${field}`] = `secret:${fingerprint.hmac}:${origin}`;
  }
  return { states, fingerprints };
}
