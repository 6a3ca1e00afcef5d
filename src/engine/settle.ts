import { sameValue } from '../resources/collection-crud.js';
import type { LiveObject } from '../resources/live-side.js';
import type { UncertainOperation } from '../state/journal.js';
import type { Ledger, LedgerEntry } from '../state/ledger.js';
import type { LiveModel, PlannerKind } from './model.js';

/**
 * Settling the operations an earlier run left uncertain (an intent journaled, no result): before
 * anything is planned, each is decided from what the account holds now, whether or not the
 * manifests still want the resource — so an object a killed apply created is owned (and deleted
 * like any owned resource the manifests dropped) instead of leaking out of ownership.
 *
 * - A create is looked for among the objects nobody owns: its natural key, every non-secret field
 *   it sent, and — where the API tells when an object was made — created after the intent was
 *   written (less `clockSkewMs`). Exactly one such object is claimed; none means the create did not
 *   happen; several is an error naming them, never a silent pick.
 * - An update or delete is decided by re-reading its object by id: a delete whose object is gone
 *   happened (the entry is forgotten); an update happened when the object holds every field it
 *   sent. Secrets an uncertain write sent are left unverifiable (the account never shows them), so
 *   the plan sets them again.
 *
 * Pure: the caller reads the lists and re-reads objects, then records the outcomes.
 */

/** A field's value as text, to tell whether a read shows it: `""`, null and absent are none. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return value === undefined || value === null ? undefined : JSON.stringify(value);
}

/** How far the API's clock may be behind ours, and its whole-second timestamps, when comparing creation times. */
export const clockSkewMs = 60_000;

export interface Settlement {
  address: string;
  action: UncertainOperation['action'];
  outcome:
    'claimed' | 'not_found' | 'ambiguous' | 'applied' | 'not_applied' | 'deleted' | 'not_deleted' | 'gone' | 'unknown';
  /** `ambiguous`: the objects that might be the one the create made; its change is blocked, never sent again. */
  candidates?: string[];
  /** The ledger entry to record (`null`: forget it; undefined: keep it as it is). */
  entry: LedgerEntry | null | undefined;
  /** One sentence for the plan: what was found and why. */
  note: string;
}

export interface SettleInputs {
  kinds: ReadonlyMap<string, PlannerKind>;
  uncertain: readonly UncertainOperation[];
  ledger: Ledger;
  live: LiveModel;
  /** Objects of uncertain updates and deletes, re-read by id: the object, or null when gone. Keyed by intent seq. */
  reread: ReadonlyMap<number, LiveObject | null>;
  now: Date;
}

/** Ids that an update or delete intent needs re-read (by intent seq). */
export function idsToReread(
  uncertain: readonly UncertainOperation[],
): Array<{ seq: number; kind: string; id: string }> {
  return uncertain.flatMap((intent) =>
    intent.action !== 'create' && intent.id ? [{ seq: intent.seq, kind: intent.kind, id: intent.id }] : [],
  );
}

/** Decides every uncertain operation, oldest first (each sees the entries the earlier ones settled). */
export function settleOperations(inputs: SettleInputs): Settlement[] {
  const entries = new Map(Object.entries(inputs.ledger.resources));
  const claimed = new Set<string>();
  const settlements: Settlement[] = [];
  for (const intent of inputs.uncertain) {
    const kind = inputs.kinds.get(intent.kind);
    const entry = entries.get(intent.address);
    let settlement: Settlement;
    if (!kind) {
      settlement = outcome(
        intent,
        'unknown',
        undefined,
        `${intent.kind} is not a kind this telform knows, so it cannot be looked up`,
      );
    } else if (intent.action === 'create') {
      settlement = settleCreate(intent, kind, entry, entries, claimed, inputs);
    } else {
      const object = inputs.reread.get(intent.seq);
      settlement =
        intent.action === 'update' ? settleUpdate(intent, kind, entry, object) : settleDelete(intent, entry, object);
    }
    if (settlement.entry === null) entries.delete(intent.address);
    else if (settlement.entry) entries.set(intent.address, settlement.entry);
    settlements.push(settlement);
  }
  return settlements;
}

function outcome(
  intent: UncertainOperation,
  result: Settlement['outcome'],
  entry: LedgerEntry | null | undefined,
  why: string,
): Settlement {
  const verb = intent.action === 'create' ? 'creating' : intent.action === 'update' ? 'updating' : 'deleting';
  return {
    address: intent.address,
    action: intent.action,
    outcome: result,
    entry,
    note: `an earlier apply stopped while ${verb} it (${intent.at}): ${why}`,
  };
}

function settleCreate(
  intent: UncertainOperation,
  kind: PlannerKind,
  entry: LedgerEntry | undefined,
  entries: ReadonlyMap<string, LedgerEntry>,
  claimed: Set<string>,
  inputs: SettleInputs,
): Settlement {
  const sent = intent.fields;
  const key = sent && kind.live.naturalKey(sent);
  if (!sent || key === undefined)
    return outcome(intent, 'unknown', undefined, 'the journal does not say what it sent, so it cannot be looked up');
  const owned = new Set(
    [...entries.values()]
      .filter((item) => item.kind === kind.kind)
      .flatMap((item) => [item.id, ...(item.superseded ?? [])]),
  );
  const compared = comparedFields(kind, sent);
  const earliest = Date.parse(intent.at) - clockSkewMs;
  // A read that leaves out the name (list rows without an alias) or a field neither proves nor refutes:
  // such an object stays a candidate, and only what the read does show must match.
  const candidates = (inputs.live.get(kind.kind) ?? []).filter((object) => {
    if (owned.has(object.id) || claimed.has(object.id)) return false;
    const liveKey = kind.live.naturalKey(object.spec);
    if (liveKey !== undefined && liveKey !== key) return false;
    const unread = object.unread ?? [];
    return (
      compared.every((field) => unread.includes(field) || sameValue(object.spec[field], sent[field])) &&
      (object.createdAt === undefined || Date.parse(object.createdAt) >= earliest)
    );
  });
  const [only] = candidates;
  if (candidates.length === 0)
    return outcome(
      intent,
      'not_found',
      undefined,
      `no ${kind.kind} named "${key}" with the fields it sent exists, so it did not happen`,
    );
  // One candidate is the one it made when its name shows, or when the account dates it after the create
  // began and it shows a field the create sent; anything less cannot tell, and the create is never sent again blind.
  const named = only !== undefined && kind.live.naturalKey(only.spec) === key;
  const dated =
    only !== undefined &&
    only.createdAt !== undefined &&
    compared.some((field) => !(only.unread ?? []).includes(field) && text(only.spec[field]) !== undefined);
  if (candidates.length > 1 || !(named || dated)) {
    const ids = candidates.map((object) => object.id);
    const why =
      candidates.length > 1
        ? `${ids.length} objects nobody owns could be the one it made (${ids.join(', ')}), and the account's reads cannot tell them apart`
        : `${ids[0]} might be the one it made, but the account's reads show neither its name nor when it was made`;
    return {
      ...outcome(
        intent,
        'ambiguous',
        undefined,
        `${why}; it is not created again (that could make a second ${kind.kind}${kind.live.billableUpdateUsd > 0 || kind.live.irreversibleDelete ? ', billed or irreversible' : ''}): adopt the right one with \`telform import\` or delete the ones that are not, then run again`,
      ),
      candidates: ids,
    };
  }
  const found = only as LiveObject;
  claimed.add(found.id);
  const superseded = [
    ...(entry?.superseded ?? []),
    ...(intent.replace && entry && entry.id !== found.id ? [entry.id] : []),
  ];
  const claimedEntry: LedgerEntry = {
    kind: kind.kind,
    name: intent.address.slice(kind.kind.length + 1),
    id: found.id,
    applied_spec: { ...(intent.spec ?? {}) },
    // The secrets it sent are re-sent: nothing in the account shows which ones it holds.
    secrets: {},
    ...(superseded.length > 0 ? { superseded } : {}),
    updated_at: inputs.now.toISOString(),
  };
  const when = found.createdAt ? `, created ${found.createdAt}` : '';
  return outcome(
    intent,
    'claimed',
    claimedEntry,
    named
      ? `claimed ${kind.kind} ${found.id}, the only object nobody owns named "${key}" with every field that create sent${when}`
      : `claimed ${kind.kind} ${found.id}, the only object nobody owns made since with every field that create sent the account shows (its name is not read back)${when}`,
  );
}

function settleUpdate(
  intent: UncertainOperation,
  kind: PlannerKind,
  entry: LedgerEntry | undefined,
  object: LiveObject | null | undefined,
): Settlement {
  if (!entry) return outcome(intent, 'unknown', undefined, 'it is no longer in the state');
  if (object === undefined)
    return outcome(intent, 'unknown', undefined, 'the journal does not say which object it was sent to');
  if (!object) return outcome(intent, 'gone', undefined, `re-read: ${intent.id ?? entry.id} is gone from the account`);
  const secrets = { ...entry.secrets };
  for (const field of intent.secret_fields ?? []) delete secrets[field];
  const sent = intent.fields ?? {};
  const compared = comparedFields(kind, sent);
  // A field the read left out proves nothing either way; the fields it returned decide.
  const shown = compared.filter((field) => !(object.unread ?? []).includes(field));
  const applied =
    intent.spec !== undefined && shown.length > 0 && shown.every((field) => sameValue(object.spec[field], sent[field]));
  const next: LedgerEntry = { ...entry, secrets, ...(applied ? { applied_spec: { ...intent.spec } } : {}) };
  return applied
    ? outcome(intent, 'applied', next, 're-read: the account holds what it sent, so it happened')
    : outcome(
        intent,
        'not_applied',
        next,
        're-read: the account does not hold all it sent, so it is planned again from what the account holds',
      );
}

function settleDelete(
  intent: UncertainOperation,
  entry: LedgerEntry | undefined,
  object: LiveObject | null | undefined,
): Settlement {
  if (object === undefined)
    return outcome(intent, 'unknown', undefined, 'the journal does not say which object it was sent to');
  if (object)
    return outcome(intent, 'not_deleted', undefined, `re-read: ${object.id} still exists, so it is planned again`);
  if (!entry) return outcome(intent, 'deleted', null, 're-read: it is gone, so it happened');
  if (entry.id === intent.id) return outcome(intent, 'deleted', null, `re-read: ${intent.id} is gone, so it happened`);
  const superseded = (entry.superseded ?? []).filter((id) => id !== intent.id);
  const next: LedgerEntry = { ...entry };
  if (superseded.length > 0) next.superseded = superseded;
  else delete next.superseded;
  return outcome(
    intent,
    'deleted',
    next,
    `re-read: the replaced ${intent.id ?? 'object'} is gone, so its delete happened`,
  );
}

/** The fields the account shows back: what was sent, less secrets and create-only inputs a read does not return. */
function comparedFields(kind: PlannerKind, sent: Record<string, unknown>): string[] {
  return Object.keys(sent).filter(
    (field) => !kind.secretFields.includes(field) && !kind.live.fields.unreadable.includes(field),
  );
}
