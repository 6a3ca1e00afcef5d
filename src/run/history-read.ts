// The history operations that only read or set it (`telform history`, `history verify`, `history
// retain`, `history --accounts`): a state's records are read from its backend without the lock (the
// history is append-only, so a read never sees half a record); setting the retention takes the lock
// and is itself recorded.
import { loadAccountsFile } from '../manifest/accounts-file.js';
import { openStateBackend } from '../state/backends/registry.js';
import {
  defaultHistoryKeep,
  parseHistory,
  recordsOf,
  verifyHistory,
  type HistoryAnchor,
  type HistoryRecord,
  type HistoryVerdict,
} from '../state/history.js';
import { parseLedger } from '../state/ledger.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { runOrigin } from './history-origin.js';
import { openState, stateLocation } from './state-location.js';

export interface StateHistory {
  /** The state, as messages name it (never a password). */
  location: string;
  /** Oldest first, as stored; a damaged line is left out (`verify` names it). */
  records: HistoryRecord[];
  /** Lines that are not records (damage): `history verify` says which. */
  unreadable: number;
}

/** The records `telform history` shows: those that concern `address` (all without one), the last `limit` of them. */
export function shownRecords(
  records: readonly HistoryRecord[],
  address: string | undefined,
  limit: number | undefined,
): HistoryRecord[] {
  const concerned = address === undefined ? [...records] : recordsOf(records, address);
  return limit === undefined ? concerned : concerned.slice(-limit);
}

/** The records of the state the options name. */
export async function readStateHistory(globals: GlobalOptions, context: Pick<RunContext, 'io'>): Promise<StateHistory> {
  const lines = await historyLines(stateLocation(globals, context.io.env), context);
  const records = parseHistory(lines.lines);
  return { location: lines.location, records, unreadable: lines.lines.length - records.length };
}

/** The chain check of the state's history (`history verify`). */
export async function verifyStateHistory(
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<{ location: string; verdict: HistoryVerdict }> {
  const { location, lines, anchor } = await historyLines(stateLocation(globals, context.io.env), context);
  return { location, verdict: verifyHistory(lines, anchor) };
}

/**
 * Sets how many records the state keeps (`history retain N`): written in the ledger, recorded as an
 * edit of the state, and applied at once (the oldest beyond N are dropped).
 */
export async function setHistoryRetention(
  keep: number,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<{ location: string; previous: number; dropped: number }> {
  const store = await openState(globals, context.io.env, { lock: true, notify: context.io.stderr });
  try {
    const previous = store.ledger.history_keep ?? defaultHistoryKeep;
    const before = (await store.readHistory()).length;
    store.setHistoryKeep(keep);
    await store.compact();
    await store.appendHistory({
      type: 'state_edit',
      command: `history retain ${keep}`,
      edits: [],
      origin: await runOrigin(context.io.env, context.io.cwd, []),
    });
    const after = (await store.readHistory()).length;
    return { location: store.file, previous, dropped: Math.max(0, before + 1 - after) };
  } finally {
    await store.close();
  }
}

export interface AccountHistory {
  name: string;
  location: string;
  records: HistoryRecord[];
  /** The history could not be read (the state's database is down): one sentence. */
  error?: string;
}

/** `history --accounts FILE`: each account's history, read from its own state (`only`: these accounts). */
export async function readAccountsHistory(
  file: string,
  only: readonly string[],
  context: Pick<RunContext, 'io'>,
): Promise<AccountHistory[]> {
  const accounts = await loadAccountsFile(file, context.io.cwd);
  const unknown = only.filter((name) => !accounts.some((account) => account.name === name));
  if (unknown.length > 0)
    throw new TelformError(
      'bad_option',
      `--only ${unknown.join(', ')}: not in ${file} (accounts: ${accounts.map((account) => account.name).join(', ')})`,
    );
  const selected = accounts.filter((account) => only.length === 0 || only.includes(account.name));
  return Promise.all(
    selected.map(async (account): Promise<AccountHistory> => {
      try {
        const { location, lines } = await historyLines({ state: account.state, workspace: account.workspace }, context);
        return { name: account.name, location, records: parseHistory(lines) };
      } catch (error) {
        if (!(error instanceof TelformError)) throw error;
        return { name: account.name, location: account.state, records: [], error: error.message };
      }
    }),
  );
}

/**
 * The history's lines and what the ledger anchors of it. The ledger is read first: a record appended
 * meanwhile is then past the anchor, which verifies, where the other order could see an end removed.
 */
async function historyLines(
  location: { state: string; workspace: string },
  context: Pick<RunContext, 'io'>,
): Promise<{ location: string; lines: string[]; anchor?: HistoryAnchor }> {
  const backend = await openStateBackend(location, context.io.env);
  try {
    const stored = await backend.read();
    const ledger = stored.ledger === undefined ? undefined : parseLedger(stored.ledger, backend.location);
    return {
      location: backend.location,
      lines: await backend.readHistory(),
      ...(ledger ? { anchor: { head: ledger.history_head, serial: ledger.serial } } : {}),
    };
  } finally {
    await backend.close();
  }
}
