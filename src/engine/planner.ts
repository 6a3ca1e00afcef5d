import { untimed, type StageTimer } from '../util/stage-timer.js';
import type { ChangeImpact, LiveObject } from '../resources/live-side.js';
import { changedFieldsOf, comparableChanged, diffComparable } from './diff.js';
import { SpecForms } from './spec-forms.js';
import type { Ledger, LedgerEntry } from '../state/ledger.js';
import { pendingWarnings, summarize } from './summary.js';
import { matchResources, type Match } from './match.js';
import { isReference, type DesiredResource, type LiveModel, type PlannerKind, type PlannerKinds } from './model.js';
import { orderChanges } from './order.js';
import { estimateRequests } from './request-estimate.js';
import { sensitiveLabel } from './secret-source.js';
import { planFormatVersion } from './plan-format.js';
import type { ChangeFlags, Plan, PlanApprovals, PlanSummary, SecretChange, UnmanagedObject } from './plan-types.js';
import { ReferenceIndex, UsageIndex, referencedNames } from './references.js';
import type { Settlement } from './settle.js';
import { TargetIndex, judgeTargets, type TargetVerdict } from './reference-targets.js';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { finishChange, type ChangeDraft } from './change-draft.js';
import { followMoves } from './moves.js';
import { measureBlastRadius } from './blast-radius.js';
import { UnknownFields, assumedUnknowns } from './unread.js';
import { blockDependents, unknownObject, unreadableOf } from './unknown-objects.js';

/** A secret compared with what the ledger recorded: its value (through the HMAC) and its source. */
export type SecretState = SecretChange;

export interface PlanInputs {
  kinds: PlannerKinds;
  desired: readonly DesiredResource[];
  live: LiveModel;
  /** Ledger ids missing from the lists, fetched by id: the object or null when gone. */
  fetchedById: ReadonlyMap<string, LiveObject | null>;
  /**
   * Ledger objects whose read by id failed, by `unreadableKey(kind, id)`, with why: unknown, so
   * nothing is planned for them or for what refers to them; the rest of the plan goes on.
   */
  unreadable?: ReadonlyMap<string, string>;
  ledger: Ledger;
  /** Per address and secret field, compared through the ledger's fingerprints. */
  secretStates: ReadonlyMap<string, Readonly<Record<string, SecretState>>>;
  /** What settling the operations an interrupted apply left uncertain found (already in `ledger`). */
  settled: readonly Settlement[];
  endpoint: string;
  account: string;
  approvals: PlanApprovals;
  now: Date;
  /** Measures ordering apart from matching and diffing (the benchmarks); untimed by default. */
  timer?: StageTimer;
  /** Requests reading the account sent (apply sends them again before it writes); 0 when not known. */
  readRequests?: number;
  /** The desired, recorded and live specs' comparable forms and the live fingerprints, made while the account was read; made here otherwise. */
  forms?: SpecForms;
  /**
   * The account as the gates read it, whatever the state's scope (blast radius, deletes something
   * still uses): every kind's objects, not only the scope's. Absent: `live` with `kinds` (no scope).
   */
  whole?: { kinds: PlannerKinds; live: LiveModel };
}

const noFlags: ChangeFlags = {
  billable_usd: 0,
  irreversible: false,
  breaks_auth: false,
  breaks_calls: false,
  needs_unassign: false,
};

/**
 * The pure planner: `(desired, live, ledger, options) → Plan`. It decides one action
 * per resource (docs/commands.md, plan), with reasons, flags and an RFC 6902 patch, and orders the
 * changes for apply. It sends nothing and prints nothing.
 */
export function buildPlan(given: PlanInputs): Plan {
  // Moves first: the rest of planning sees each moved entry under its new address.
  const followed = followMoves(given.desired, given.ledger, given.fetchedById);
  const inputs: PlanInputs = { ...given, ledger: followed.ledger, fetchedById: followed.fetchedById };
  const kinds = inputs.kinds;
  const matches = matchResources(inputs);
  const references = new ReferenceIndex(matches);
  // What uses an object, read from the whole account: a scope narrows what is planned, not what is judged.
  const usage = new UsageIndex((inputs.whole?.kinds ?? kinds).values(), inputs.whole?.live ?? inputs.live);
  const desiredByAddress = new Map(inputs.desired.map((resource) => [resource.address, resource]));
  const deletedInPlan = new Set<string>();
  for (const match of matches) {
    if (match.type === 'orphaned' && match.live) deletedInPlan.add(match.live.id);
    if (match.type === 'unmanaged' && inputs.approvals.prune_unmanaged.includes(match.kind))
      deletedInPlan.add(match.live.id);
  }
  const targets = new TargetIndex(matches, inputs.live);
  const renamed = new Map([...followed.moves].map(([to, from]) => [from, to.slice(to.indexOf('/') + 1)]));
  const forms = inputs.forms ?? new SpecForms();
  const context: DecideContext = {
    kinds,
    references,
    usage,
    inputs,
    desiredByAddress,
    matches,
    deletedInPlan,
    targets,
    unknown: new UnknownFields(),
    renamed,
    forms,
  };

  const drafts: ChangeDraft[] = [];
  const unknownAddresses = new Set<string>();
  const unmanaged: UnmanagedObject[] = [];
  const basis: Record<string, string> = {};
  for (const match of matches) {
    const kind = kinds.get(
      match.type === 'orphaned' || match.type === 'superseded'
        ? match.entry.kind
        : match.type === 'unmanaged'
          ? match.kind
          : match.desired.kind,
    );
    if (!kind) continue;
    const unknown = unreadableOf(match, inputs.unreadable);
    if (unknown) {
      drafts.push(unknownObject(unknown, baseChange(unknown.address, kind, unknown.name)));
      unknownAddresses.add(unknown.address);
      continue;
    }
    switch (match.type) {
      case 'matched':
        drafts.push(decideMatched(match, kind, context));
        basis[match.desired.address] = forms.fingerprint(match.live);
        break;
      case 'missing':
        drafts.push(decideMissing(match, kind, context));
        basis[match.desired.address] = `absent:${kind.live.naturalKey(match.desired.spec) ?? ''}`;
        break;
      case 'orphaned':
        drafts.push(decideOrphaned(match, kind, context));
        if (match.live) basis[match.address] = forms.fingerprint(match.live);
        break;
      case 'superseded': {
        const address = `${match.address}#old:${match.id}`;
        const change = match.live
          ? deleteChange(
              address,
              kind,
              match.live,
              [`replaced by ${match.address}; the old one is still to be deleted`],
              context,
              match.entry.name,
              match.entry,
            )
          : {
              ...baseChange(address, kind, match.entry.name),
              action: 'delete' as const,
              id: match.id,
              reasons: ['replaced, and already gone from the account; it is only forgotten'],
            };
        change.superseded_of = match.address;
        drafts.push(change);
        if (match.live) basis[address] = forms.fingerprint(match.live);
        break;
      }
      case 'unmanaged': {
        if (kind.live.idle?.(match.live)) break;
        const name = displayName(kind, match.live);
        let prune = false;
        if (inputs.approvals.prune_unmanaged.includes(kind.kind)) {
          const address = `${kind.kind}/#${match.live.id}`;
          const change = deleteChange(
            address,
            kind,
            match.live,
            ['not in the manifests or the state; --prune-unmanaged deletes it'],
            context,
          );
          drafts.push(change);
          basis[address] = forms.fingerprint(match.live);
          // Only a delete that is planned is one: a refused one (the primary profile) is a blocked change, with its reason.
          prune = change.action === 'delete';
        }
        unmanaged.push({ kind: kind.kind, id: match.live.id, name, prune });
        break;
      }
      default: {
        const unreachable: never = match;
        throw new Error(`unhandled match ${String(unreachable)}`);
      }
    }
  }
  addRepointing(drafts, context);
  // A create an interrupted apply may have made, which the account's reads cannot tell apart from others:
  // never sent again blind (settle.ts), so blocked until a person says which object it is.
  for (const settlement of inputs.settled) {
    if (settlement.outcome !== 'ambiguous') continue;
    const draft = drafts.find((item) => item.address === settlement.address);
    if (!draft || (draft.action !== 'create' && draft.action !== 'replace')) continue;
    draft.action = 'blocked';
    unknownAddresses.add(draft.address);
  }
  blockDependents(drafts, unknownAddresses, kinds, context.desiredByAddress);
  for (const draft of drafts) {
    const old = followed.moves.get(draft.address);
    if (old === undefined) continue;
    draft.moved_from = old;
    draft.reasons.unshift(`moved from ${old} (metadata.moved_from); the state follows it`);
  }
  measureBlastRadius({
    changes: drafts,
    live: inputs.whole?.live ?? inputs.live,
    kinds: inputs.whole?.kinds ?? kinds,
    desiredByAddress: context.desiredByAddress,
    references,
  });
  const changes = drafts.map(finishChange);
  for (const change of changes) {
    const kind = kinds.get(change.kind);
    if (kind) change.api_requests = estimateRequests(change, kind);
  }
  const settledWarnings = explainSettlements(changes, inputs.settled);
  const ordered = (inputs.timer ?? untimed).time('order', () => orderChanges(changes, kinds, context.desiredByAddress));
  return {
    format_version: planFormatVersion,
    created_at: inputs.now.toISOString(),
    endpoint: inputs.endpoint,
    account: inputs.account,
    changes: ordered,
    unmanaged,
    summary: summarize(ordered, inputs.readRequests ?? 0),
    warnings: [
      ...followed.notes,
      ...settledWarnings,
      ...context.unknown.warnings(ordered),
      ...pendingWarnings(ordered.filter((change) => change.action !== 'noop')),
    ],
    // A converged plan prints no warning: the registry's word on objects left as they are is a note.
    ...notesOf(pendingWarnings(ordered.filter((change) => change.action === 'noop'))),
    approvals: inputs.approvals,
    basis: { ledger_lineage: inputs.ledger.lineage, ledger_serial: inputs.ledger.serial, objects: basis },
  };
}

interface DecideContext {
  kinds: PlannerKinds;
  references: ReferenceIndex;
  usage: UsageIndex;
  inputs: PlanInputs;
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  matches: readonly Match[];
  /** Ids of the live objects this plan deletes (they no longer hold anything back). */
  deletedInPlan: ReadonlySet<string>;
  targets: TargetIndex;
  /** Fields reads left out of managed objects, for the plan's note per kind. */
  unknown: UnknownFields;
  /** `Kind/old-name` → new name, for each move: a recorded `{ ref: old-name }` names the moved resource. */
  renamed: ReadonlyMap<string, string>;
  forms: SpecForms;
}

function baseChange(address: string, kind: PlannerKind, name: string): ChangeDraft {
  return {
    address,
    kind: kind.kind,
    name,
    action: 'noop',
    reasons: [],
    flags: { ...noFlags },
    patch: [],
    depends_on: [],
    api_requests: 0,
  };
}

/**
 * The live spec as the diff sees it: canonical refs, unreadable inputs taken from the ledger (or the
 * manifest); `fields` are those that may differ from the live object's own spec.
 */
function liveView(
  kind: PlannerKind,
  live: LiveObject,
  entry: LedgerEntry | undefined,
  desired: DesiredResource | undefined,
  context: DecideContext,
) {
  const spec = context.references.canonical(kind, live.spec);
  let assumedFields: string[] | undefined;
  const assume = (field: string, known: unknown): void => {
    (assumedFields ??= [...referenceFieldsOf(kind)]).push(field);
    if (known === undefined) delete spec[field];
    else spec[field] = known;
  };
  for (const field of kind.live.fields.unreadable) assume(field, entry?.applied_spec[field] ?? desired?.spec[field]);
  // An object the account holds without a name (an omitted alias): the name metadata.name fills in is no change to it.
  const nameField = kind.nameField;
  const unnamed =
    nameField !== undefined &&
    desired?.nameDefaulted === true &&
    (spec[nameField] === undefined || spec[nameField] === null);
  if (unnamed) assume(nameField, desired.spec[nameField]);
  // Most objects' reads leave nothing out.
  if (live.unread === undefined || live.unread.length === 0)
    return { spec, fields: assumedFields ?? referenceFieldsOf(kind), unknown: [] };
  const assumed = assumedUnknowns(kind, live, entry, desired);
  // A name left unread is the one metadata.name fills in, as above: never what the state lacks.
  for (const [field, known] of assumed)
    if (!(unnamed && field === nameField)) assume(field, context.references.canonical(kind, { [field]: known })[field]);
  return {
    spec,
    fields: assumedFields ?? referenceFieldsOf(kind),
    unknown: assumed
      .filter(([, known]) => known !== undefined && known !== null && known !== '')
      .map(([field]) => field),
  };
}

const referenceFieldsByKind = new WeakMap<PlannerKind, readonly string[]>();

/** The kind's reference fields, listed once per kind. */
function referenceFieldsOf(kind: PlannerKind): readonly string[] {
  let fields = referenceFieldsByKind.get(kind);
  if (!fields) referenceFieldsByKind.set(kind, (fields = kind.references.map((reference) => reference.field)));
  return fields;
}

/**
 * A recorded spec with its references to moved resources under their new names: the state recorded
 * `{ ref: office }` before `office` was renamed, and the live object it points at is now the
 * renamed resource's, which is no change made outside telform.
 */
function followRenames(
  kind: PlannerKind,
  spec: Readonly<Record<string, unknown>>,
  renamed: ReadonlyMap<string, string>,
): Readonly<Record<string, unknown>> {
  if (renamed.size === 0) return spec;
  const out: Record<string, unknown> = { ...spec };
  for (const { field, target } of kind.references) {
    const value = out[field];
    const to = isReference(value) ? renamed.get(`${target}/${value.ref}`) : undefined;
    if (to !== undefined) out[field] = { ref: to };
  }
  return out;
}

function decideMatched(
  match: Extract<Match, { type: 'matched' }>,
  kind: PlannerKind,
  context: DecideContext,
): ChangeDraft {
  const { desired, live, entry } = match;
  const change = baseChange(desired.address, kind, desired.name);
  change.id = live.id;
  if (desired.source) change.source = desired.source;
  if (live.registry) change.registry = live.registry;
  const refused = refusalFields(live.registry, desired);
  if (refused) change.refusal_fields = refused;
  const { spec: before, fields: viewed, unknown } = liveView(kind, live, entry, desired, context);
  const after = context.references.canonical(kind, desired.spec);
  // The live object's own form, made as its list landed, with the fields the view changed made again.
  const liveForm = comparableChanged(context.forms.of(live.spec, kind), before, viewed, kind);
  // The desired and recorded forms likewise: references are the only fields made canonical.
  const referenceFields = referenceFieldsOf(kind);
  const diff = diffComparable(
    liveForm,
    comparableChanged(context.forms.of(desired.spec, kind), after, referenceFields, kind),
  );
  const secrets = secretsToSend(context.inputs.secretStates.get(desired.address));
  change.before = before;
  change.after = withSensitive(after, desired);
  if (unknown.length > 0) {
    context.unknown.note(kind.kind, unknown, change.address);
    change.reasons.push(
      `the API did not read back ${unknown.join(', ')}: unknown, so ${entry ? 'compared with the values telform last applied' : 'taken as the manifest says'}`,
    );
  }
  describeDesired(change, desired);
  change.patch = diff.patch;
  if (Object.keys(secrets).length > 0) change.secrets = secrets;
  if (entry) {
    const applied = context.references.canonical(kind, followRenames(kind, entry.applied_spec, context.renamed));
    if (
      changedFieldsOf(
        liveForm,
        comparableChanged(context.forms.of(entry.applied_spec, kind), applied, referenceFields, kind),
      ).length > 0
    )
      change.drifted = true;
  }
  if (match.adopted)
    change.reasons.push(
      `exists in the account with the same ${kind.live.naturalKeyWord ?? 'name'}; telform takes it over`,
    );

  if (diff.changedFields.length === 0 && Object.keys(secrets).length === 0) {
    change.action = match.adopted ? 'adopt' : 'noop';
    return change;
  }
  const keyChange = changedKey(kind, live, desired, diff.changedFields);
  if (keyChange) {
    change.action = 'blocked';
    change.reasons.push(keyChange);
    return change;
  }
  const fields = kind.live.fields;
  const immutable = diff.changedFields.filter((field) => fields.immutable.includes(field));
  const replacing = diff.changedFields.filter((field) => fields.replaceOn.includes(field));
  if (immutable.length > 0) {
    change.action = 'blocked';
    change.reasons.push(
      `${immutable.join(', ')} cannot be changed on an existing ${kind.kind} (the API has no update for it); delete it or revert the manifest`,
    );
    return change;
  }
  const oldUndeletable = replacing.length > 0 ? kind.live.deleteRefusal?.(live, context.deletedInPlan) : undefined;
  if (oldUndeletable) {
    // Creating the new one would leave an unmanaged twin behind when the old delete is refused.
    change.action = 'blocked';
    change.reasons.push(
      `${replacing.join(', ')} can only change by replacing it, and the old one cannot be deleted now: ${oldUndeletable}`,
    );
    return change;
  }
  if (replacing.length > 0) {
    change.action = 'replace';
    change.replace_strategy = kind.live.replaceStrategy;
    change.reasons.push(
      `${replacing.join(', ')} cannot be updated in place, so a new ${kind.kind} is created and the old one deleted`,
    );
    change.flags.irreversible = kind.live.irreversibleDelete;
    addDeleteFlags(change, kind, live, context, { replacing: true });
    return change;
  }
  const refusal = kind.live.updateRefusal?.(live, after, diff.changedFields);
  if (refusal) {
    change.action = 'blocked';
    change.reasons.push(refusal);
    return change;
  }
  const changedReferences = diff.changedFields.filter((field) =>
    kind.references.some((reference) => reference.field === field),
  );
  change.action = 'update';
  const verdicts = judgeTargets(kind, after, context.kinds, context.targets, changedReferences);
  applyVerdicts(change, verdicts);
  if (verdicts.some((verdict) => verdict.action === 'blocked')) return change;
  addImpact(change, kind.live.impact?.(live, after));
  change.flags.billable_usd = diff.changedFields.length > 0 ? kind.live.billableUpdateUsd : 0;
  if (Object.values(secrets).some((secret) => secret.value === 'unverifiable')) {
    change.reasons.push(
      'the secret cannot be compared with the account (never applied by telform with this token), so it will be set',
    );
  }
  return change;
}

/** Why a document pointed at another of the account's objects is blocked (`LiveSide.keyField`); undefined when it is not. */
function changedKey(
  kind: PlannerKind,
  live: LiveObject,
  desired: DesiredResource,
  changedFields: readonly string[],
): string | undefined {
  const keyField = kind.live.keyField;
  if (!keyField || !changedFields.includes(keyField.field)) return undefined;
  const from = kind.live.naturalKey(live.spec);
  const to = kind.live.naturalKey(desired.spec);
  return from === undefined || to === undefined || from === to
    ? undefined
    : `${keyField.field} ${keyField.reason(from, to)}`;
}

function decideMissing(
  match: Extract<Match, { type: 'missing' }>,
  kind: PlannerKind,
  context: DecideContext,
): ChangeDraft {
  const { desired } = match;
  if (kind.live.absentError) {
    const place = { address: desired.address, ...(desired.source ? { source: desired.source } : {}) };
    throw new TelformError('not_in_account', `${desired.address}: ${kind.live.absentError(desired.spec)}`, { place });
  }
  const change = baseChange(desired.address, kind, desired.name);
  if (desired.source) change.source = desired.source;
  const after = context.references.canonical(kind, desired.spec);
  change.after = withSensitive(after, desired);
  describeDesired(change, desired);
  change.action = 'create';
  if (match.vanished) {
    change.drifted = true;
    // Not billed: the API bills the vetting review of an update, not a registration (docs/state-and-safety.md).
    change.reasons.push(`was deleted outside telform (id ${match.entry?.id ?? '?'} is gone); it will be created again`);
  }
  applyVerdicts(change, judgeTargets(kind, after, context.kinds, context.targets));
  return change;
}

/** Sets `wait` or `blocked` (blocked wins) with the verdicts' reasons. */
function applyVerdicts(change: ChangeDraft, verdicts: readonly TargetVerdict[]): void {
  for (const verdict of verdicts) {
    if (change.action !== 'blocked') change.action = verdict.action;
    change.reasons.push(verdict.reason);
  }
}

function addImpact(change: ChangeDraft, impact: ChangeImpact | undefined): void {
  if (!impact) return;
  change.flags[impact.flag] = true;
  change.reasons.push(impact.reason);
}

/** Why a resource the state manages but no manifest declares is deleted (a teardown words it its own way). */
export const orphanReason = 'removed from the manifests';
export const orphanForgottenReason =
  'removed from the manifests and already gone from the account; it is only forgotten';

function decideOrphaned(
  match: Extract<Match, { type: 'orphaned' }>,
  kind: PlannerKind,
  context: DecideContext,
): ChangeDraft {
  if (!match.live) {
    const change = baseChange(match.address, kind, match.entry.name);
    change.action = 'delete';
    change.id = match.entry.id;
    change.reasons.push(orphanForgottenReason);
    return change;
  }
  return deleteChange(match.address, kind, match.live, [orphanReason], context, match.entry.name, match.entry);
}

function deleteChange(
  address: string,
  kind: PlannerKind,
  live: LiveObject,
  reasons: string[],
  context: DecideContext,
  name = `#${live.id}`,
  entry?: LedgerEntry,
): ChangeDraft {
  const change = baseChange(address, kind, name);
  change.action = 'delete';
  change.id = live.id;
  change.reasons.push(...reasons);
  // The fields the read left out are as telform last applied them, as for any other change: the
  // history keeps this spec, and `revert` registers a deleted campaign again from it.
  change.before = liveView(kind, live, entry, undefined, context).spec;
  if (live.registry) change.registry = live.registry;
  change.flags.irreversible = kind.live.irreversibleDelete;
  const deletedFirst = new Set([...context.deletedInPlan].filter((id) => id !== live.id));
  const refusal = kind.live.deleteRefusal?.(live, deletedFirst);
  if (refusal) {
    change.action = 'blocked';
    change.reasons.push(refusal);
    return change;
  }
  addDeleteFlags(change, kind, live, context, { replacing: false });
  return change;
}

/**
 * Flags of deleting `live` (or replacing it): who still uses it after this plan. A referrer that
 * telform manages and re-points or deletes in this plan does not count; an assignment telform does
 * not manage blocks a SipAuth delete, with an explanation (docs/commands.md, plan).
 */
function addDeleteFlags(
  change: ChangeDraft,
  kind: PlannerKind,
  live: LiveObject,
  context: DecideContext,
  options: { replacing: boolean },
): void {
  const remaining = context.usage.of(kind.kind, live).filter((referrer) => {
    const referrerName = context.references.nameOf(referrer.kind, referrer.id);
    if (referrerName === undefined) return true;
    const desired = context.desiredByAddress.get(`${referrer.kind}/${referrerName}`);
    if (!desired) return false; // the referrer itself is deleted in this plan
    if (options.replacing) return false; // re-pointed to the new object by this plan
    // Still used after the plan only if the manifest keeps pointing at this object.
    const value = desired.spec[referrer.field];
    return value === live.id || (isReference(value) && value.ref === change.name);
  });
  const unmanagedUsers = remaining.filter(
    (referrer) => context.references.nameOf(referrer.kind, referrer.id) === undefined,
  );
  if (remaining.length > 0 && kind.live.whenInUse) {
    const users = remaining.map((referrer) => `${referrer.kind} ${referrer.id}`).join(', ');
    if (kind.live.whenInUse === 'needs_unassign') {
      change.flags.needs_unassign = true;
      if (unmanagedUsers.length > 0) {
        change.action = 'blocked';
        change.reasons.push(
          `assigned to ${unmanagedUsers.map((referrer) => `${referrer.kind} ${referrer.id}`).join(', ')}, which telform does not manage; clear its sip_auth_type first (the API refuses the delete until then)`,
        );
      }
    } else {
      change.flags[kind.live.whenInUse] = true;
      change.reasons.push(`still used by ${users}`);
    }
  }
  if (!options.replacing) addImpact(change, kind.live.impact?.(live, undefined));
}

/**
 * A replaced object gets a new id: every managed resource that refers to it must be re-pointed
 * (an update after the new object exists, before the old one is deleted).
 */
function addRepointing(changes: ChangeDraft[], context: DecideContext): void {
  // By address, in plan order: a resource referring to several replaced ones names the first.
  const replaced = new Map<string, number>();
  for (const change of changes)
    if (change.action === 'replace' && !replaced.has(change.address)) replaced.set(change.address, replaced.size);
  if (replaced.size === 0) return;
  for (const change of changes) {
    if (change.action !== 'noop' && change.action !== 'adopt') continue;
    const kind = context.kinds.get(change.kind);
    const desired = context.desiredByAddress.get(change.address);
    if (!kind || !desired) continue;
    let first: string | undefined;
    for (const reference of referencedNames(kind, desired.spec)) {
      const address = `${reference.target}/${reference.name}`;
      const rank = replaced.get(address);
      if (rank !== undefined && (first === undefined || rank < (replaced.get(first) as number))) first = address;
    }
    if (first === undefined) continue;
    change.action = 'update';
    change.reasons.push(`re-pointed to the new ${first}`);
  }
}

/**
 * Says in the plan what settling an interrupted apply's operations found: as a reason of the
 * resource's change, and as a warning where that change shows nothing (a noop, or no change).
 */
function explainSettlements(changes: readonly ChangeDraft[], settled: readonly Settlement[]): string[] {
  const warnings: string[] = [];
  for (const settlement of settled) {
    const change = changes.find((item) => item.address === settlement.address);
    if (change) change.reasons.push(settlement.note);
    if (!change || change.action === 'noop') warnings.push(`${settlement.address}: ${settlement.note}`);
  }
  return warnings;
}

/** A secret is sent when its value differs (or cannot be compared) or its source changed. */
function secretsToSend(states: Readonly<Record<string, SecretState>> | undefined): Record<string, SecretChange> {
  const out: Record<string, SecretChange> = {};
  for (const [field, state] of Object.entries(states ?? {}))
    if (state.value !== 'same' || state.source_before) out[field] = { ...state };
  return out;
}

/** Sources and protection of the desired resource, for the plan (and a saved plan's apply). */
function describeDesired(change: ChangeDraft, desired: DesiredResource): void {
  if (Object.keys(desired.secretSources).length > 0) change.secret_sources = { ...desired.secretSources };
  if (desired.protect) change.protect = true;
}

/**
 * The spec fields a registry refusal names (as a word in a declined reason or the error reason),
 * with where the manifest writes each; undefined when it names none or the resource has no places.
 */
function refusalFields(
  registry: LiveObject['registry'],
  desired: DesiredResource,
): Record<string, SourcePlace> | undefined {
  if (!registry || registry.registration_status.toUpperCase() !== 'FAILED' || !desired.placeOfField) return undefined;
  const text = [...(registry.declined_reasons ?? []).map((reason) => reason.message), registry.error_reason ?? ''].join(
    '\n',
  );
  const fields = Object.keys(desired.spec).filter((field) =>
    new RegExp(`(?:^|[^A-Za-z0-9_])${field}(?:$|[^A-Za-z0-9_])`).test(text),
  );
  if (fields.length === 0) return undefined;
  const places: Record<string, SourcePlace> = {};
  for (const field of fields) {
    const place = desired.placeOfField(field);
    places[field] = { file: place.file, line: place.line, column: place.column };
  }
  return places;
}

/** The desired spec for display: each secret as its source, `(sensitive, from env PBX_PW)`, never its value. */
function withSensitive(spec: Record<string, unknown>, desired: DesiredResource): Record<string, unknown> {
  // The spec given is the planner's own copy: without secrets there is nothing to put in it.
  if (Object.keys(desired.secretSources).length === 0) return spec;
  const out = { ...spec };
  for (const [field, source] of Object.entries(desired.secretSources)) out[field] = sensitiveLabel(source);
  return out;
}

/** What names a live object for a reader: its API name field (a brand's alias, not its profile), else its natural key; never the id again. */
function displayName(kind: PlannerKind, live: LiveObject): string {
  const named = kind.nameField === undefined ? undefined : live.spec[kind.nameField];
  if (typeof named === 'string' && named !== '') return named;
  const key = kind.live.naturalKey(live.spec);
  return key === undefined || key === live.id ? '' : key;
}

/** `notes` when there are any: a plan without them reads as before. */
function notesOf(notes: string[]): { notes?: string[] } {
  return notes.length > 0 ? { notes } : {};
}
