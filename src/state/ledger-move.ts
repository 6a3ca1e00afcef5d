// The one way a ledger entry changes address: `telform state mv` and the moves an apply records
// for `metadata.moved_from` both call `moveEntry`. The new address is written before the old one is
// forgotten, so a crash between the two leaves both addresses holding one object, which the next
// plan recognises as the move half done.
import type { LedgerEntry } from './ledger.js';
import type { LedgerStore } from './ledger-store.js';

export interface MoveOptions {
  /**
   * The live object's name to record (`live_name`): `state mv` keeps the live name so a manifest
   * that leaves the API's name field out plans no rename. Absent: the entry's own is kept.
   */
  liveName?: string;
}

/**
 * Moves the entry at `from` to `to` (same kind; `to`'s name part becomes the entry's name). Secret
 * fingerprints mix in the address they were made under, and a move has no secret to make them again:
 * each keeps the address it was made under (`keyed_as`), so it still verifies at the new address and
 * the next plan sends no unchanged secret. Returns the entry as recorded.
 */
export async function moveEntry(
  store: LedgerStore,
  from: string,
  to: string,
  name: string,
  options: MoveOptions = {},
): Promise<LedgerEntry> {
  const entry = store.ledger.resources[from];
  if (!entry) throw new Error(`moveEntry: ${from} is not in the state`);
  const secrets: LedgerEntry['secrets'] = {};
  for (const [field, stored] of Object.entries(entry.secrets))
    secrets[field] = { ...stored, keyed_as: stored.keyed_as ?? from };
  const liveName = options.liveName ?? entry.live_name;
  const moved: LedgerEntry = {
    ...entry,
    name,
    secrets,
    ...(liveName === undefined ? {} : { live_name: liveName }),
    updated_at: store.timestamp(),
  };
  await store.recordResult(to, moved);
  await store.recordResult(from, null);
  return moved;
}
