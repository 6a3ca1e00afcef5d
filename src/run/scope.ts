// A run within the part of the account its state owns (docs/state-and-safety.md, scopes): the
// scope is known before the manifests are checked, the planner sees only the scope's objects, a
// `{ ref }` into another scope is looked up in the account (read, never written), and ledger
// entries another state took over are let go instead of being planned as deletes.
import type { DesiredResource, PlannerKind, PlannerKinds } from '../engine/model.js';
import { isReference } from '../engine/model.js';
import { memoised, type LiveContext, type LiveObject } from '../resources/live-side.js';
import {
  describeScope,
  everything,
  isEverything,
  sameScope,
  scopeHasKind,
  scopeHolds,
  type Scope,
} from '../resources/ownership-scope.js';
import type { OwnershipMarker } from '../resources/ownership-marker.js';
import { openStateBackend } from '../state/backends/registry.js';
import { parseLedger, type Ledger } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { ledgerScope } from '../state/ownership.js';
import { TelformError } from '../util/errors.js';
import type { Environment, GlobalOptions } from './context.js';
import { stateLocation } from './state-location.js';

/** The state as read before the run opens it: its scope, and its ledger (and the text it was parsed from) when it has one. */
export interface PeekedState {
  scope: Scope;
  ledger?: Ledger;
  text?: string;
}

/**
 * The scope the state records, and the ledger it was read from, read before the manifests are
 * checked (they are checked against the scope; plan and drift start reading the kinds the ledger
 * names meanwhile). A state that cannot be read yet owns everything here, with no ledger: opening it
 * for the run reports what is wrong with it.
 */
export async function peekState(globals: GlobalOptions, env: Environment): Promise<PeekedState> {
  try {
    const backend = await openStateBackend(stateLocation(globals, env), env);
    try {
      const stored = await backend.read();
      if (stored.ledger === undefined) return { scope: everything };
      const ledger = parseLedger(stored.ledger, backend.location);
      return { scope: ledgerScope(ledger), ledger, text: stored.ledger };
    } finally {
      await backend.close();
    }
  } catch {
    return { scope: everything };
  }
}

/**
 * The scope a run works in: the state's, unless the account's marker of this state says less
 * (another state took part of it over with `state claim --take-over`): the account's record wins,
 * and `notify` says so.
 */
export function effectiveScope(
  store: LedgerStore,
  markers: readonly OwnershipMarker[],
  notify: (line: string) => void,
): Scope {
  const recorded = ledgerScope(store.ledger);
  const mine = markers.filter((marker) => marker.lineage === store.ledger.lineage);
  if (mine.length !== 1 || sameScope((mine[0] as OwnershipMarker).scope, recorded)) return recorded;
  const marked = (mine[0] as OwnershipMarker).scope;
  notify(
    `note: the account's marker of the state ${store.file} claims ${describeScope(marked)}, less than the state records (${describeScope(recorded)}): another state took the rest over; this run works within ${describeScope(marked)}`,
  );
  return marked;
}

/**
 * The kinds as a run within `scope` sees them: a kind outside it lists nothing (no request), and a
 * prefix leaves out the objects whose API name does not start with it. Objects of other scopes
 * are so neither adopted nor reported unmanaged.
 */
export function scopedKinds(kinds: PlannerKinds, scope: Scope): PlannerKinds {
  if (isEverything(scope)) return kinds;
  return new Map(
    [...kinds].map(([name, kind]) => {
      const list = async (context: LiveContext): Promise<LiveObject[]> => {
        if (!scopeHasKind(scope, name)) return [];
        const objects = await wholeList(kind, context);
        return objects.filter((object) => scopeHolds(scope, name, apiName(kind.nameField, object)));
      };
      return [name, { ...kind, live: { ...kind.live, list } }] as const;
    }),
  );
}

/**
 * The kinds as the gates of a scoped run read them: every object of the account (read, never
 * written), each list read once per run with the scope's view of it.
 */
export function wholeAccountKinds(kinds: PlannerKinds): PlannerKinds {
  return new Map(
    [...kinds].map(([name, kind]) => [
      name,
      { ...kind, live: { ...kind.live, list: (context: LiveContext) => wholeList(kind, context) } },
    ]),
  );
}

/** A kind's whole list, read once per run (the scope's view and the gates' share it). */
function wholeList(kind: PlannerKind, context: LiveContext): Promise<LiveObject[]> {
  return memoised(context, `whole-list:${kind.kind}`, () => kind.live.list(context));
}

function apiName(nameField: string | undefined, object: LiveObject): string | undefined {
  const value = nameField === undefined ? undefined : object.spec[nameField];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Ledger entries outside the scope (another state took them over) are let go: forgotten in
 * memory by a run that only reads, and in the state by one that holds its lock. Never deleted.
 */
export async function releaseOutOfScope(
  store: LedgerStore,
  kinds: PlannerKinds,
  scope: Scope,
  locked: boolean,
  notify: (line: string) => void,
): Promise<void> {
  if (isEverything(scope)) return;
  const outside = Object.entries(store.ledger.resources).filter(([, entry]) => {
    const kind = kinds.get(entry.kind);
    const name = kind?.nameField === undefined ? undefined : entry.applied_spec[kind.nameField];
    return !scopeHolds(scope, entry.kind, typeof name === 'string' ? name : undefined);
  });
  if (outside.length === 0) return;
  const addresses = outside.map(([address]) => address).sort();
  for (const address of addresses) {
    if (locked) await store.recordResult(address, null);
    else delete store.ledger.resources[address];
  }
  notify(
    `note: the state ${locked ? 'forgets' : 'would forget'} ${addresses.join(', ')}: outside its scope (${describeScope(scope)}), owned by another state now; the objects stay in the account`,
  );
}

/**
 * Each `{ ref }` that names an object outside the scope (and no document of these manifests) is
 * looked up in the account by the target kind's natural key and replaced by its id: the other
 * state's object is read, never written. None, or several, is an error naming the reference.
 */
export async function resolveForeignRefs(
  resources: readonly DesiredResource[],
  kinds: PlannerKinds,
  scope: Scope,
  live: LiveContext,
): Promise<DesiredResource[]> {
  if (isEverything(scope)) return [...resources];
  const addresses = new Set(resources.map((resource) => resource.address));
  const lists = new Map<string, Promise<LiveObject[]>>();
  const listOf = (target: string): Promise<LiveObject[]> => {
    let list = lists.get(target);
    if (!list) lists.set(target, (list = kinds.get(target)?.live.list(live) ?? Promise.resolve([])));
    return list;
  };
  return Promise.all(
    resources.map(async (resource) => {
      const kind = kinds.get(resource.kind);
      let spec = resource.spec;
      for (const { field, target } of kind?.references ?? []) {
        const value = spec[field];
        if (!isReference(value) || addresses.has(`${target}/${value.ref}`) || scopeHolds(scope, target, value.ref))
          continue;
        const targetKind = kinds.get(target);
        const found = (await listOf(target)).filter((object) => targetKind?.live.naturalKey(object.spec) === value.ref);
        const where = resource.placeOfField?.(field);
        const at = where ? `${where.file}:${where.line}:${where.column}: ` : '';
        if (found.length !== 1) {
          throw new TelformError(
            'out_of_scope',
            found.length === 0
              ? `${at}${resource.address} spec.${field}: { ref: ${value.ref} } names ${target} ${JSON.stringify(value.ref)} outside this state's scope (${describeScope(scope)}), and the account holds none: the state that owns it must create it first (a reference into another scope is only read)`
              : `${at}${resource.address} spec.${field}: { ref: ${value.ref} } names ${target} ${JSON.stringify(value.ref)} outside this state's scope, and the account holds ${found.length} of that name (${found.map((object) => object.id).join(', ')}); write the id instead`,
          );
        }
        spec = { ...spec, [field]: (found[0] as LiveObject).id };
      }
      return spec === resource.spec ? resource : { ...resource, spec };
    }),
  );
}

/** Refuses documents outside a scope narrowed after the manifests were checked (by another state's take-over). */
export function assertDesiredInScope(resources: readonly DesiredResource[], kinds: PlannerKinds, scope: Scope): void {
  const outside = resources.filter((resource) => {
    const nameField = kinds.get(resource.kind)?.nameField;
    const name = nameField === undefined ? undefined : resource.spec[nameField];
    return !scopeHolds(scope, resource.kind, typeof name === 'string' ? name : undefined);
  });
  if (outside.length === 0) return;
  const listed = outside.map((resource) =>
    resource.source
      ? `${resource.address} (${resource.source.file}:${resource.source.line}:${resource.source.column})`
      : resource.address,
  );
  throw new TelformError(
    'out_of_scope',
    `${listed.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the scope this state owns now (${describeScope(scope)}); another state owns ${outside.length === 1 ? 'it' : 'them'}: move the documents to that state's manifests`,
  );
}

/** `--prune-unmanaged KIND` for a kind outside the scope would delete another state's objects: refused. */
export function assertPruneInScope(kinds: readonly string[], scope: Scope): void {
  const outside = kinds.filter((kind) => !scopeHasKind(scope, kind));
  if (outside.length > 0) {
    throw new TelformError(
      'out_of_scope',
      `--prune-unmanaged ${outside.join(', ')}: outside the scope this state owns (${describeScope(scope)}); another state's objects are never pruned from here`,
    );
  }
}
