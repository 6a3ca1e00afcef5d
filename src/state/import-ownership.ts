import { TelformError } from '../util/errors.js';
import type { Ledger } from './ledger.js';

/** An address already managed under another id would make an import lie about ownership. */
export function assertImportOwnership(imported: readonly { address: string; id: string }[], ledger: Ledger): void {
  const conflicts = imported.filter((resource) => {
    const entry = ledger.resources[resource.address];
    return entry !== undefined && entry.id !== resource.id;
  });
  if (conflicts.length > 0) {
    throw new TelformError(
      'import_conflict',
      `the state already manages ${conflicts.map((resource) => resource.address).join(', ')} under other ids; import into a new --state file or remove those entries with telform state rm`,
    );
  }
}
