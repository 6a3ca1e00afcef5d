import type { Ledger, LedgerEntry } from './ledger.js';

/**
 * What the journal means, whatever stores it (a file beside the state, a database table): records
 * appended in order, an intent before each write request and a result after it.
 *
 * An intent carries what the next run needs to settle the operation if no result follows (the
 * process was killed, the machine lost power): which object it was about, and — for a create,
 * whose new id only the lost answer held — what only that create could have made: the non-secret
 * fields it sent (references resolved to ids) and the time it was written. It never holds a secret,
 * only the names of the write-only fields the request sends.
 *
 * A result closes every open intent of its address and sets (or, with `null`, removes) that
 * address's ledger entry. Replaying the records in order over the last compacted ledger gives the
 * ledger as the last run left it, and the intents whose outcome is unknown.
 */

export type IntentAction = 'create' | 'update' | 'delete';

/** What the engine records before a write request. */
export interface IntentInput {
  /** `Kind/name`: the ledger entry the operation is about. */
  address: string;
  kind: string;
  action: IntentAction;
  /**
   * The object an update or delete is sent to; for the create of a replace, the object it replaces.
   */
  id?: string;
  /** Part of a replace: the new object's create, or the old object's delete. */
  replace?: true;
  /**
   * Create and update: the non-secret fields sent, references resolved to live ids, to be compared
   * with what the account holds.
   */
  fields?: Record<string, unknown>;
  /** Create and update: the manifest spec the ledger records once the write is known to have happened. */
  spec?: Record<string, unknown>;
  /** Write-only fields the request sends (names, never values): an unknown outcome makes them unverifiable. */
  secret_fields?: string[];
}

export interface JournalIntent extends IntentInput {
  type: 'intent';
  seq: number;
  /** When the intent was written (before the request was sent), ISO 8601. */
  at: string;
}

export interface JournalResult {
  type: 'result';
  seq: number;
  address: string;
  /** The address's ledger entry after the operation; `null`: no longer managed. */
  entry: LedgerEntry | null;
  at: string;
}

export type JournalRecord = JournalIntent | JournalResult;

/** An operation whose intent was journaled but whose result was not: it may or may not have happened. */
export type UncertainOperation = JournalIntent;

export interface Replay {
  /** Open intents, in the order they were written. */
  uncertain: UncertainOperation[];
  /** Whether any result changed the ledger (it must be compacted). */
  replayed: boolean;
  /** The highest sequence number seen, so new records continue after it. */
  lastSeq: number;
}

/** Applies journal records, in order, over `ledger` (mutated) and returns the intents left open. */
export function replayJournal(ledger: Ledger, records: Iterable<JournalRecord>): Replay {
  const open = new Map<number, UncertainOperation>();
  let replayed = false;
  let lastSeq = 0;
  for (const record of records) {
    lastSeq = Math.max(lastSeq, record.seq);
    if (record.type === 'intent') {
      open.set(record.seq, { ...record, kind: record.kind ?? record.address.split('/')[0] ?? '' });
      continue;
    }
    for (const [seq, intent] of open) if (intent.address === record.address) open.delete(seq);
    if (record.entry) ledger.resources[record.address] = record.entry;
    else delete ledger.resources[record.address];
    replayed = true;
  }
  return { uncertain: [...open.values()].sort((a, b) => a.seq - b.seq), replayed, lastSeq };
}
