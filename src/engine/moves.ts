// Moves written in the manifests (`metadata.moved_from`, docs/manifests.md): the state's entry at an
// old address becomes the resource's at its new one, so a rename plans no create and no delete.
// Pure: the planner sees the moved state; apply records the move (apply-moves.ts).
import { TelformError } from '../util/errors.js';
import type { LiveObject } from '../resources/live-side.js';
import type { Ledger } from '../state/ledger.js';
import type { DesiredResource } from './model.js';

export interface FollowedMoves {
  /** The ledger as it is once the moves are made: the old entries under their new addresses. */
  ledger: Ledger;
  /** Objects fetched by id, keyed as `ledger` is. */
  fetchedById: ReadonlyMap<string, LiveObject | null>;
  /** New address → the old one, for each move still to record. */
  moves: ReadonlyMap<string, string>;
  /** Moves with nothing left to do (already recorded, or nothing at either address): notes, not errors. */
  notes: string[];
}

/**
 * Follows each desired resource's `movedFrom` through the ledger. A move whose old address the
 * state no longer holds is done (or never had anything to move) and is a note; the state holding
 * two of a resource's addresses with different objects is an error naming the resource's place,
 * as is a move across kinds. Both addresses holding the same object is an interrupted move
 * (apply records the new address first): it is finished.
 */
export function followMoves(
  desired: readonly DesiredResource[],
  ledger: Ledger,
  fetchedById: ReadonlyMap<string, LiveObject | null>,
): FollowedMoves {
  const moves = new Map<string, string>();
  const notes: string[] = [];
  const declared = new Set(desired.map((resource) => resource.address));
  let resources: Ledger['resources'] | undefined;
  for (const resource of desired) {
    const olds = resource.movedFrom ?? [];
    if (olds.length === 0) continue;
    const held = olds.filter((old) => ledger.resources[old] !== undefined);
    const current = ledger.resources[resource.address];
    const fail = (message: string): never => {
      throw new TelformError('move_conflict', `${resource.address}: ${message}`, {
        place: { address: resource.address, ...(resource.source ? { source: resource.source } : {}) },
      });
    };
    if (held.length === 0) {
      notes.push(
        current
          ? `${resource.address}: the move from ${olds.join(', ')} is recorded in the state; metadata.moved_from can be removed`
          : `${resource.address}: the state holds none of ${olds.join(', ')}, so metadata.moved_from moves nothing`,
      );
      continue;
    }
    if (held.length > 1)
      fail(
        `moves from ${held.join(' and ')}, and the state holds both; keep in moved_from the one that is this resource`,
      );
    const old = held[0] as string;
    const entry = ledger.resources[old];
    if (!entry) continue;
    if (declared.has(old)) fail(`moves from ${old}, which the manifests still declare`);
    if (entry.kind !== resource.kind) fail(`moves from ${old}, a ${entry.kind} in the state; a move keeps the kind`);
    if (current && current.id !== entry.id) {
      fail(
        `moves from ${old}, but the state already holds ${resource.address} (id ${current.id}, not ${entry.id}); remove moved_from, or forget one with telform state rm`,
      );
    }
    resources ??= { ...ledger.resources };
    delete resources[old];
    resources[resource.address] = current ?? { ...entry, name: resource.name };
    moves.set(resource.address, old);
  }
  if (!resources) return { ledger, fetchedById, moves, notes };
  return { ledger: { ...ledger, resources }, fetchedById: rekeyFetched(fetchedById, moves), moves, notes };
}

/** Objects fetched under an old address (or its superseded ids) now belong to the new one. */
function rekeyFetched(
  fetched: ReadonlyMap<string, LiveObject | null>,
  moves: ReadonlyMap<string, string>,
): Map<string, LiveObject | null> {
  const newOf = new Map([...moves].map(([to, from]) => [from, to]));
  const result = new Map<string, LiveObject | null>();
  for (const [key, object] of fetched) {
    const hash = key.indexOf('#');
    const address = hash < 0 ? key : key.slice(0, hash);
    const moved = newOf.get(address);
    result.set(moved === undefined ? key : `${moved}${key.slice(address.length)}`, object);
  }
  return result;
}
