import type { Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { ApiRequestError } from '../api/errors.js';
import type { LiveContext, LiveObject } from '../resources/live-side.js';
import type { LedgerEntry, SecretFingerprinter } from '../state/ledger.js';
import { isReference, type DesiredResource, type LiveModel, type PlannerKind, type ResolvedSecret } from './model.js';
import type { CreateChange, Plan, PlannedChange, ReplaceChange, UpdateChange, WaitChange } from './plan-types.js';
import { liveIdOf } from './change-fields.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { followReadiness, waitForTargets, type WaitOptions } from './apply-waits.js';
import { recordMoves } from './apply-moves.js';
import { StepRunner, type ChangeOutcome, type Step } from './step-runner.js';

export type { ChangeOutcome } from './step-runner.js';

/**
 * The applier: runs a plan's changes in dependency waves with bounded parallelism. A failure stops
 * only the changes that depend on it; everything else completes. Each operation is journaled
 * (intent before the request, result after), so an interrupted apply converges on the next run.
 */

export type ApplyEvent =
  | { type: 'started'; change: PlannedChange }
  /** `oldDeleted`: the second step of a create-before-delete replace, deleting the old object. */
  | { type: 'finished'; change: PlannedChange; outcome: ChangeOutcome; oldDeleted?: boolean }
  | { type: 'waiting'; change: PlannedChange; on: string; status: string; elapsedMs: number };

export interface ApplyOptions {
  /** Requests in flight at once: the client's limiter holds to it (`--parallelism`). */
  parallelism: number;
  /** How long to wait for registry approvals (`--wait`); 0: do not wait. */
  waitMs: number;
  clock: Clock;
  onEvent?: (event: ApplyEvent) => void;
}

export interface ApplyInputs {
  plan: Plan;
  kinds: ReadonlyMap<string, PlannerKind>;
  /** Desired resources by address (from the manifests, or rebuilt from a saved plan). */
  desired: ReadonlyMap<string, DesiredResource>;
  store: LedgerStore;
  live: LiveContext;
  fingerprinter: SecretFingerprinter;
  /** Resolves a resource's secrets to their values (never logged). */
  resolveSecrets(resource: DesiredResource): Promise<Record<string, ResolvedSecret>>;
  /**
   * The account as this run read it to make the plan (every kind's list, moments before the apply):
   * an update is computed from the object found there. Absent, or without the object, it is read.
   */
  read?: LiveModel;
}

export interface ApplyResult {
  outcomes: Map<string, ChangeOutcome>;
  failed: number;
  pending: number;
  blocked: number;
}

export async function applyPlan(inputs: ApplyInputs, options: ApplyOptions): Promise<ApplyResult> {
  await recordMoves(inputs);
  const ids = new Map<string, string>();
  for (const [address, entry] of Object.entries(inputs.store.ledger.resources)) ids.set(address, entry.id);
  for (const change of inputs.plan.changes) {
    const id = liveIdOf(change);
    if (id && change.action !== 'delete') ids.set(change.address, id);
  }

  const known = indexById(inputs.read);
  const outcomes = new Map<string, ChangeOutcome>();
  const steps: Step[] = [];
  for (const change of inputs.plan.changes) {
    if (change.action === 'blocked')
      outcomes.set(change.address, { status: 'blocked', reason: change.reasons.join('; ') });
    else if (change.action === 'noop') await refreshLedger(change, inputs);
    else steps.push({ change, part: 'main', after: change.depends_on, weight: stepWeight(change, inputs.kinds) });
    if (change.action === 'replace' && change.replace_strategy === 'create_before_delete') {
      steps.push({
        change,
        part: 'replace-delete',
        after: [change.address, ...(change.delete_after ?? [])],
        weight: 1,
      });
    }
  }

  const runner = new StepRunner(steps, outcomes, {
    // Twice as many operations as requests: while `parallelism` requests are in flight, as many
    // next operations journal their intents (the sync a request must wait for) and queue at the
    // client's limiter, which still lets only `parallelism` requests out at once. A freed request
    // slot goes to an operation ready to send, instead of waiting for a sync first.
    parallelism: options.parallelism * 2,
    execute: (step) =>
      step.part === 'replace-delete'
        ? deleteOld(step.change, inputs)
        : runChange(step.change, inputs, ids, options, known),
    started: (step) => options.onEvent?.({ type: 'started', change: step.change }),
    finished: (step, outcome) =>
      options.onEvent?.({
        type: 'finished',
        change: step.change,
        outcome,
        ...(step.part === 'replace-delete' ? { oldDeleted: true } : {}),
      }),
  });
  await runner.run();
  await inputs.store.compact();

  let failed = 0;
  let pending = 0;
  let blocked = 0;
  for (const outcome of outcomes.values()) {
    if (outcome.status === 'failed' || outcome.status === 'skipped') failed += 1;
    if (outcome.status === 'pending') pending += 1;
    if (outcome.status === 'blocked') blocked += 1;
  }
  return { outcomes, failed, pending, blocked };
}

/**
 * The requests a step sends, as the plan estimates them (at least one), and for a change that waits
 * for the registry the read of each target it polls first: what puts a campaign waiting for its
 * brand ahead of changes with nothing after them.
 */
function stepWeight(change: PlannedChange, kinds: ReadonlyMap<string, PlannerKind>): number {
  const own = Math.max(1, change.api_requests);
  if (change.action !== 'wait') return own;
  const polls = (kinds.get(change.kind)?.references ?? []).reduce((sum, { target }) => {
    const targetKind = kinds.get(target);
    return targetKind?.live.readiness ? sum + (targetKind.live.requests?.read ?? 1) : sum;
  }, 0);
  return own + polls;
}

/** The objects of a read of the account by kind and id. */
type KnownObjects = ReadonlyMap<string, ReadonlyMap<string, LiveObject>>;

function indexById(read: LiveModel | undefined): KnownObjects {
  const index = new Map<string, Map<string, LiveObject>>();
  for (const [kind, objects] of read ?? []) index.set(kind, new Map(objects.map((object) => [object.id, object])));
  return index;
}

async function runChange(
  change: PlannedChange,
  inputs: ApplyInputs,
  ids: Map<string, string>,
  options: ApplyOptions,
  known: KnownObjects,
): Promise<ChangeOutcome> {
  const kind = requireKind(inputs, change);
  switch (change.action) {
    case 'create':
      return createResource(change, kind, inputs, ids);
    case 'wait': {
      const waited = await waitForTargets(
        kind,
        requireDesired(inputs, change),
        inputs.kinds,
        ids,
        inputs.live,
        waitOptions(change, options),
      );
      if (waited) return waited;
      // A resource that exists waited to be updated (a number to be linked); the others to be created.
      return change.id
        ? updateResource(change, kind, inputs, ids, options, undefined)
        : createResource(change, kind, inputs, ids);
    }
    case 'adopt':
      journalResult(recordEntry(change, kind, inputs, requireId(change), {}));
      return { status: 'done', id: requireId(change) };
    case 'update':
      return updateResource(change, kind, inputs, ids, options, known.get(change.kind)?.get(change.id));
    case 'replace': {
      if (change.replace_strategy === 'delete_before_create') {
        const deleted = await deleteOld(change, inputs);
        if (deleted.status !== 'done') return deleted;
      }
      return createResource(change, kind, inputs, ids);
    }
    case 'delete': {
      const id = requireId(change);
      if (change.superseded_of) return deleteSuperseded(change.superseded_of, id, kind, inputs);
      await inputs.store.recordIntent({ address: change.address, kind: change.kind, action: 'delete', id });
      await kind.live.delete(inputs.live, id, undefined);
      journalResult(inputs.store.recordResult(change.address, null));
      return { status: 'done' };
    }
    case 'blocked':
    case 'noop':
      return { status: 'done' };
    default: {
      const unreachable: never = change;
      throw new Error(`unhandled change ${JSON.stringify(unreachable)}`);
    }
  }
}

async function updateResource(
  change: UpdateChange | WaitChange,
  kind: PlannerKind,
  inputs: ApplyInputs,
  ids: Map<string, string>,
  options: ApplyOptions,
  /**
   * The object as this run's read of the account found it. The update is computed from it, not
   * from a read of its own: that read came moments before (a saved plan, however old, is applied
   * only after the account is read again and found unchanged), and what an update sends is the
   * plan's changed fields, which a second read would not change. Undefined after a wait for the
   * registry (minutes may have passed, and the registry changes objects meanwhile) or when the
   * lists did not show the object: then it is read now.
   */
  read: LiveObject | undefined,
): Promise<ChangeOutcome> {
  const desired = requireDesired(inputs, change);
  const id = requireId(change);
  const live = read ?? (await kind.live.read(inputs.live, id)) ?? missingObject(change);
  const resolved = resolveReferences(kind, desired, ids);
  const secrets = await secretValues(inputs, desired);
  const secretFields = Object.keys(change.secrets ?? {});
  await inputs.store.recordIntent({
    address: change.address,
    kind: change.kind,
    action: 'update',
    id,
    fields: resolved,
    spec: { ...desired.spec },
    ...(secretFields.length > 0 ? { secret_fields: secretFields } : {}),
  });
  await closedIfRefused(inputs, change.address, () =>
    kind.live.update(inputs.live, {
      id,
      desired: { ...resolved, ...secrets },
      live,
      changedFields: changedFieldsOf(change),
      secretFields,
    }),
  );
  journalResult(recordEntry(change, kind, inputs, id, secrets));
  return followReadiness(change, kind, id, inputs.live, waitOptions(change, options));
}

/**
 * Sends a journaled write; when the API refuses it outright (a 4xx answer other than a timeout: the
 * request was judged and not carried out), its intent is closed with the entry as it was, so the
 * next run does not settle it as "an earlier apply stopped while creating it". Any other failure
 * (no answer, a 5xx) leaves the intent open: the write may have happened.
 */
async function closedIfRefused<T>(inputs: ApplyInputs, address: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiRequestError && error.status >= 400 && error.status < 500 && error.status !== 408)
      await inputs.store.settle(address, undefined);
    throw error;
  }
}

async function createResource(
  change: CreateChange | ReplaceChange | WaitChange,
  kind: PlannerKind,
  inputs: ApplyInputs,
  ids: Map<string, string>,
): Promise<ChangeOutcome> {
  const desired = requireDesired(inputs, change);
  const resolved = resolveReferences(kind, desired, ids);
  const secrets = await secretValues(inputs, desired);
  const replacing = change.action === 'replace' && change.id ? { replace: true as const, id: change.id } : {};
  // What only this create could make (settle.ts looks for it if its answer is lost with the process).
  await inputs.store.recordIntent({
    address: change.address,
    kind: change.kind,
    action: 'create',
    fields: resolved,
    spec: { ...desired.spec },
    ...(Object.keys(secrets).length > 0 ? { secret_fields: Object.keys(secrets) } : {}),
    ...replacing,
  });
  const { id } = await closedIfRefused(inputs, change.address, () =>
    kind.live.create(inputs.live, { ...resolved, ...secrets }),
  );
  ids.set(change.address, id);
  const superseded =
    change.action === 'replace' && change.replace_strategy === 'create_before_delete' && change.id ? [change.id] : [];
  journalResult(recordEntry(change, kind, inputs, id, secrets, superseded));
  return { status: 'done', id };
}

/** Deletes the object a replace superseded (its old id). */
async function deleteOld(change: PlannedChange, inputs: ApplyInputs): Promise<ChangeOutcome> {
  return deleteSuperseded(change.address, requireId(change), requireKind(inputs, change), inputs);
}

/**
 * Deletes an object `owner` replaced. The ledger keeps its id (in `superseded`) from the moment the
 * new object exists until this delete is confirmed, so a failed or interrupted delete is retried by
 * the next apply instead of leaving an unmanaged twin.
 */
async function deleteSuperseded(
  owner: string,
  oldId: string,
  kind: PlannerKind,
  inputs: ApplyInputs,
): Promise<ChangeOutcome> {
  await inputs.store.recordIntent({ address: owner, kind: kind.kind, action: 'delete', id: oldId, replace: true });
  await kind.live.delete(inputs.live, oldId, undefined);
  const entry = inputs.store.ledger.resources[owner];
  if (entry?.superseded?.includes(oldId)) {
    const next: LedgerEntry = { ...entry, superseded: entry.superseded.filter((id) => id !== oldId) };
    if (next.superseded?.length === 0) delete next.superseded;
    journalResult(inputs.store.recordResult(owner, next));
  }
  return { status: 'done' };
}

/**
 * A step's result is journaled without the step waiting for it to be durable, so the next step
 * starts one sync sooner. Crash safety holds: the journal is appended in order, so the intent of
 * any later request (a dependent's among them) is durable only with this result before it; a
 * result lost with the process, or with a failed append, leaves its intent open for the next run
 * to settle from the account, as after any interruption; and the ledger in memory has the entry at
 * once, written whole when the apply ends (which waits for every record).
 */
function journalResult(recording: Promise<void>): void {
  recording.catch(() => undefined);
}

/** The spec to send: `{ ref }` replaced by the target's live id. */
function resolveReferences(
  kind: PlannerKind,
  desired: DesiredResource,
  ids: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const spec: Record<string, unknown> = { ...desired.spec };
  for (const { field, target } of kind.references) {
    const value = spec[field];
    if (!isReference(value)) continue;
    const id = ids.get(`${target}/${value.ref}`);
    if (!id)
      throw new TelformError(
        'unresolved_reference',
        `${desired.address}: ${field} refers to ${target}/${value.ref}, which has no id yet`,
      );
    spec[field] = id;
  }
  return spec;
}

async function secretValues(inputs: ApplyInputs, desired: DesiredResource): Promise<Record<string, string>> {
  const resolved = await inputs.resolveSecrets(desired);
  return Object.fromEntries(Object.entries(resolved).map(([field, secret]) => [field, secret.value]));
}

function recordEntry(
  change: PlannedChange,
  kind: PlannerKind,
  inputs: ApplyInputs,
  id: string,
  secrets: Record<string, string>,
  newlySuperseded: readonly string[] = [],
): Promise<void> {
  const desired = requireDesired(inputs, change);
  const previous = inputs.store.ledger.resources[change.address];
  const superseded = [...new Set([...(previous?.superseded ?? []), ...newlySuperseded])].filter((old) => old !== id);
  const fingerprints: LedgerEntry['secrets'] = { ...(previous?.secrets ?? {}) };
  for (const [field, value] of Object.entries(secrets)) {
    const source = desired.secretSources[field];
    fingerprints[field] = {
      ...inputs.fingerprinter.fingerprint(change.address, field, value),
      ...(source ? { source } : {}),
    };
  }
  for (const field of Object.keys(fingerprints)) if (!kind.secretFields.includes(field)) delete fingerprints[field];
  return inputs.store.recordResult(change.address, {
    kind: change.kind,
    name: change.name,
    id,
    applied_spec: { ...desired.spec },
    secrets: fingerprints,
    ...(superseded.length > 0 ? { superseded } : {}),
    ...(desired.protect ? { protect: true as const } : {}),
    ...(previous?.live_name !== undefined &&
    kind.nameField !== undefined &&
    desired.spec[kind.nameField] === previous.live_name
      ? { live_name: previous.live_name }
      : {}),
    updated_at: inputs.store.timestamp(),
  });
}

/**
 * A noop whose manifest differs from the ledger's last applied spec, or from its recorded
 * protection, only refreshes the ledger (no request is sent).
 */
async function refreshLedger(change: PlannedChange, inputs: ApplyInputs): Promise<void> {
  const entry = inputs.store.ledger.resources[change.address];
  const desired = inputs.desired.get(change.address);
  if (!entry || !desired || !needsRefresh(entry, desired)) return;
  const { protect: _recorded, ...rest } = entry;
  await inputs.store.recordResult(change.address, {
    ...rest,
    applied_spec: { ...desired.spec },
    ...(desired.protect ? { protect: true as const } : {}),
    updated_at: inputs.store.timestamp(),
  });
}

function needsRefresh(entry: LedgerEntry, desired: DesiredResource): boolean {
  return (
    JSON.stringify(entry.applied_spec) !== JSON.stringify(desired.spec) || (entry.protect === true) !== desired.protect
  );
}

/** Whether applying `plan` changes the ledger without sending a request (refreshed specs, protection). */
export function ledgerRefreshes(
  plan: Plan,
  store: LedgerStore,
  desired: ReadonlyMap<string, DesiredResource>,
): string[] {
  return plan.changes
    .filter((change) => change.action === 'noop')
    .filter((change) => {
      if (change.moved_from !== undefined) return true;
      const entry = store.ledger.resources[change.address];
      const resource = desired.get(change.address);
      return entry !== undefined && resource !== undefined && (entry.protect === true) !== resource.protect;
    })
    .map((change) => change.address);
}

function waitOptions(change: PlannedChange, options: ApplyOptions): WaitOptions {
  return {
    waitMs: options.waitMs,
    clock: options.clock,
    onWaiting: (on, status, elapsedMs) => options.onEvent?.({ type: 'waiting', change, on, status, elapsedMs }),
  };
}

function changedFieldsOf(change: PlannedChange): string[] {
  const fields = new Set<string>();
  for (const operation of change.patch) {
    const [first] = operation.path.split('/').slice(1);
    if (first) fields.add(first.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return [...fields].sort();
}

function requireKind(inputs: ApplyInputs, change: PlannedChange): PlannerKind {
  const kind = inputs.kinds.get(change.kind);
  if (!kind) throw new Error(`unknown kind ${change.kind}`);
  return kind;
}

function requireDesired(inputs: ApplyInputs, change: PlannedChange): DesiredResource {
  const desired = inputs.desired.get(change.address);
  if (!desired) throw new Error(`no desired resource for ${change.address}`);
  return desired;
}

function requireId(change: PlannedChange): string {
  const id = liveIdOf(change);
  if (!id) throw new Error(`no live id for ${change.address}`);
  return id;
}

function missingObject(change: PlannedChange): never {
  throw new TelformError(
    'vanished',
    `${change.address} (id ${liveIdOf(change) ?? '?'}) disappeared from the account during the apply; run plan again`,
  );
}
