import { TelformError } from '../util/errors.js';
import type { LiveObject } from '../resources/live-side.js';
import type { Ledger, LedgerEntry } from '../state/ledger.js';
import { isReference, type DesiredResource, type LiveModel, type PlannerKind, type PlannerKinds } from './model.js';

/**
 * Matching manifest resources to live objects (docs/state-and-safety.md): by the id the ledger recorded,
 * then by natural key among objects nobody owns. Two live objects matching one resource is an
 * error naming both ids, never a silent pick.
 */

export type Match =
  /** In the manifests and in the account (`adopted`: found by natural key, not yet in the ledger). */
  | { type: 'matched'; desired: DesiredResource; live: LiveObject; entry: LedgerEntry | undefined; adopted: boolean }
  /** In the manifests only (`vanished`: the ledger owned it, but it was deleted outside telform). */
  | { type: 'missing'; desired: DesiredResource; entry: LedgerEntry | undefined; vanished: boolean }
  /** In the ledger, no longer in the manifests; `live` undefined when it is gone already. */
  | { type: 'orphaned'; address: string; entry: LedgerEntry; live: LiveObject | undefined }
  /** An object a replace superseded whose delete was not confirmed (`live` undefined: gone since). */
  | { type: 'superseded'; address: string; entry: LedgerEntry; id: string; live: LiveObject | undefined }
  /** In the account only. */
  | { type: 'unmanaged'; kind: string; live: LiveObject };

export interface MatchInputs {
  kinds: PlannerKinds;
  desired: readonly DesiredResource[];
  live: LiveModel;
  ledger: Ledger;
  /**
   * Ledger ids missing from the lists, fetched one by one before planning (lists shift while
   * paged): the object, or null when it is really gone. Keyed by address.
   */
  fetchedById: ReadonlyMap<string, LiveObject | null>;
}

export function matchResources(inputs: MatchInputs): Match[] {
  const matches: Match[] = [];
  // Grouped once: filtering every list for every kind would cost kinds × resources.
  const ledgerByKind = groupBy(Object.entries(inputs.ledger.resources), ([, entry]) => entry.kind);
  const desiredByKind = groupBy(inputs.desired, (resource) => resource.kind);
  // The live id each manifest resource matched so far: kinds come in dependency order, so a natural
  // key that is a reference (a brand's profile) is known by the time its kind is matched.
  const matchedIds = new Map<string, string>();
  for (const kind of inputs.kinds.values()) {
    const liveObjects = inputs.live.get(kind.kind) ?? [];
    const byId = new Map(liveObjects.map((object) => [object.id, object]));
    const ledgerEntries = ledgerByKind.get(kind.kind) ?? [];
    const ownedIds = new Set<string>();
    for (const [, entry] of ledgerEntries) {
      ownedIds.add(entry.id);
      for (const id of entry.superseded ?? []) ownedIds.add(id);
    }
    const claimed = new Set<string>();
    const findOwned = (address: string, entry: LedgerEntry): LiveObject | undefined =>
      byId.get(entry.id) ?? inputs.fetchedById.get(address) ?? undefined;
    // Objects nobody owns by natural key, in list order: a lookup each instead of a scan of the list.
    const unownedByKey = groupBy(
      liveObjects.filter((object) => !ownedIds.has(object.id)),
      (object) => kind.live.naturalKey(object.spec),
    );

    const desiredOfKind = desiredByKind.get(kind.kind) ?? [];
    const desiredAddresses = new Set(desiredOfKind.map((resource) => resource.address));
    for (const desired of desiredOfKind) {
      const entry = inputs.ledger.resources[desired.address];
      if (entry && entry.kind === kind.kind) {
        const live = findOwned(desired.address, entry);
        if (live) {
          claimed.add(live.id);
          matchedIds.set(desired.address, live.id);
          matches.push({ type: 'matched', desired, live, entry, adopted: false });
        } else {
          matches.push({ type: 'missing', desired, entry, vanished: true });
        }
        continue;
      }
      const key = kind.live.naturalKey(withMatchedReferences(kind, desired.spec, matchedIds));
      const candidates =
        key === undefined ? [] : (unownedByKey.get(key) ?? []).filter((object) => !claimed.has(object.id));
      if (candidates.length > 1) {
        throw new TelformError(
          'ambiguous_match',
          `${candidates.length} live objects match ${desired.address} by name (${candidates.map((object) => object.id).join(', ')}); delete or rename all but one, or record the right one with \`telform state\``,
          { place: { address: desired.address, ...(desired.source ? { source: desired.source } : {}) } },
        );
      }
      const [candidate] = candidates;
      if (candidate) {
        claimed.add(candidate.id);
        matchedIds.set(desired.address, candidate.id);
        matches.push({ type: 'matched', desired, live: candidate, entry: undefined, adopted: true });
      } else {
        matches.push({ type: 'missing', desired, entry: undefined, vanished: false });
      }
    }

    for (const [address, entry] of ledgerEntries) {
      for (const id of entry.superseded ?? []) {
        const live = byId.get(id) ?? inputs.fetchedById.get(supersededKey(address, id)) ?? undefined;
        if (live) claimed.add(live.id);
        matches.push({ type: 'superseded', address, entry, id, live });
      }
      if (desiredAddresses.has(address)) continue;
      const live = findOwned(address, entry);
      if (live) claimed.add(live.id);
      matches.push({ type: 'orphaned', address, entry, live });
    }

    for (const object of liveObjects) {
      if (!claimed.has(object.id) && !ownedIds.has(object.id))
        matches.push({ type: 'unmanaged', kind: kind.kind, live: object });
    }
  }
  return matches;
}

/**
 * The spec with each `{ ref }` whose target was matched replaced by that live object's id, for the
 * natural key only: a brand whose profile is adopted in the same plan is found by that profile's id.
 */
function withMatchedReferences(
  kind: PlannerKind,
  spec: Record<string, unknown>,
  matchedIds: ReadonlyMap<string, string>,
): Record<string, unknown> {
  let resolved: Record<string, unknown> | undefined;
  for (const { field, target } of kind.references) {
    const value = spec[field];
    if (!isReference(value)) continue;
    const id = matchedIds.get(`${target}/${value.ref}`);
    if (id === undefined) continue;
    resolved ??= { ...spec };
    resolved[field] = id;
  }
  return resolved ?? spec;
}

/** Ledger entries whose id is absent from its kind's list: to be fetched by id before planning. */
export function ledgerIdsToFetch(
  ledger: Ledger,
  live: LiveModel,
): Array<{ address: string; kind: string; id: string }> {
  const result: Array<{ address: string; kind: string; id: string }> = [];
  const listedIds = new Map<string, Set<string>>();
  for (const [address, entry] of Object.entries(ledger.resources)) {
    const listed = live.get(entry.kind);
    if (!listed) continue;
    let ids = listedIds.get(entry.kind);
    if (!ids) {
      ids = new Set(listed.map((object) => object.id));
      listedIds.set(entry.kind, ids);
    }
    if (!ids.has(entry.id)) result.push({ address, kind: entry.kind, id: entry.id });
    for (const id of entry.superseded ?? []) {
      if (!ids.has(id)) result.push({ address: supersededKey(address, id), kind: entry.kind, id });
    }
  }
  return result;
}

/** The items by `keyOf`, each group in the items' order; items whose key is undefined are left out. */
function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K | undefined): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** The key under which a superseded object fetched by id is passed to matching. */
export function supersededKey(address: string, id: string): string {
  return `${address}#superseded:${id}`;
}
