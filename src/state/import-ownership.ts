import { TelformError } from '../util/errors.js';
import type { Ledger } from './ledger.js';

/**
 * What an import may record in a ledger that already manages part of the account: never an object
 * the ledger owns (under a second address), never over an existing entry.
 */

/** The ledger's live ids by kind, each with the `metadata.name` it is recorded under (superseded ids too). */
export function ownedIdsByKind(ledger: Ledger): Map<string, Map<string, string>> {
  const owned = new Map<string, Map<string, string>>();
  for (const entry of Object.values(ledger.resources)) {
    let ids = owned.get(entry.kind);
    if (!ids) owned.set(entry.kind, (ids = new Map()));
    for (const id of [entry.id, ...(entry.superseded ?? [])]) ids.set(id, entry.name);
  }
  return owned;
}

/** The objects of `live` the ledger owns already, as `Kind/name (id …)`: what an import skips. */
export function ownedAmong(live: ReadonlyMap<string, readonly { id: string }[]>, ledger: Ledger): string[] {
  const owned = ownedIdsByKind(ledger);
  const skipped: string[] = [];
  for (const [kind, objects] of live) {
    for (const object of objects) {
      const name = owned.get(kind)?.get(object.id);
      if (name !== undefined) skipped.push(`${kind}/${name}`);
    }
  }
  return [...new Set(skipped)].sort();
}

/**
 * The guard behind the import: an address the ledger holds, or an id it owns, would make the import
 * lie about ownership (two addresses for one object, or an entry and its secret fingerprints lost).
 */
export function assertImportOwnership(
  imported: readonly { kind: string; address: string; id: string }[],
  ledger: Ledger,
): void {
  const owned = ownedIdsByKind(ledger);
  const conflicts = imported.filter(
    (resource) => ledger.resources[resource.address] !== undefined || owned.get(resource.kind)?.has(resource.id),
  );
  if (conflicts.length > 0) {
    throw new TelformError(
      'import_conflict',
      `the state already manages ${conflicts.map((resource) => resource.address).join(', ')} (that address, or that object under another address); nothing was recorded`,
    );
  }
}
