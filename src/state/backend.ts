import type { Clock } from '../util/clock.js';

/**
 * Where the ledger lives (docs/state-and-safety.md): one small interface, so the engine never knows
 * whether it is a file, a PostgreSQL workspace or anything else that offers the same four
 * guarantees — a lock for the run, a read with its serial, a compare-and-swap write, and a durable
 * append-only journal that a write compacts. What the journal's records mean (intent before a
 * request, result after) is the engine's business: a backend stores them as opaque lines.
 */

export interface LockHolder {
  host: string;
  pid: number;
  started_at: string;
}

export interface StoredState {
  /** The ledger document (JSON text), or undefined when there is none yet. */
  ledger: string | undefined;
  /** Journal records in the order they were appended (a file's last line may be torn by a crash). */
  journal: string[];
}

export interface LedgerCommit {
  /** The new ledger document (JSON text). */
  ledger: string;
  /** Its serial, as stored beside it. */
  serial: number;
  /** The serial read before this change; undefined: there was no ledger, and there must still be none. */
  expectedSerial: number | undefined;
  /** What the journal holds after the write (records still open), usually nothing. */
  journal: string[];
}

export interface StateBackend {
  /** Where the ledger lives, for messages: a path, or a database URL without its password and the workspace. */
  readonly location: string;
  /**
   * Takes the lock for this run. Refuses at once naming the holder, or with `waitMs` > 0 waits up
   * to that long for it to be released, on `clock` (the system's by default). A lock it takes over
   * (its holder is known to be gone) is said through `notify`.
   */
  lock(waitMs: number, clock?: Clock, notify?: (line: string) => void): Promise<void>;
  read(): Promise<StoredState>;
  /**
   * Durably appends journal records, in order, before it returns (the caller holds the lock). The
   * records of one call become durable together: the store gathers those of operations running at
   * once into one call, so that one sync serves them all.
   */
  append(records: readonly string[]): Promise<void>;
  /**
   * Replaces the ledger and the journal if the stored serial is still the one read (refuses with
   * `state_conflict` otherwise, so a stale writer cannot overwrite a newer ledger).
   */
  commit(change: LedgerCommit): Promise<void>;
  /** Keeps a copy of a ledger document beside the ledger; says where. */
  backup(ledger: string): Promise<string>;
  /**
   * The history's records (history.ts says what they mean), oldest first, as stored: opaque lines
   * here. Read without the lock; a file's torn last line (a crash mid-append) is left out.
   */
  readHistory(): Promise<string[]>;
  /**
   * Durably appends one history record (the caller holds the lock, so records are chained in
   * order), then drops the oldest beyond the `keep` newest: retention is the only removal.
   */
  appendHistory(record: string, keep: number): Promise<void>;
  /** Releases the lock and any connection; safe to call more than once. */
  close(): Promise<void>;
}

/** A ledger's place: the state (`--state`) and, for a backend that holds several, the workspace. */
export interface StateLocation {
  state: string;
  workspace: string;
}

export interface StateBackendKind {
  readonly name: string;
  /** Whether `state` (a path or URL as the user wrote it) names a ledger of this backend. */
  matches(state: string): boolean;
  /** Opens the ledger's backend; nothing is locked or read yet. A failure is one sentence with no secret. */
  open(location: StateLocation, env: Readonly<Record<string, string | undefined>>): Promise<StateBackend>;
  /** The location as messages name it, without its secrets (a path; a URL and its workspace). */
  describe(location: StateLocation): string;
  /** The flags that name this location, for advice (never a secret): `--state … [--workspace …]`. */
  flags(location: StateLocation): string;
  /**
   * A place for another document next to the ledger `state` names (a rollout's progress): a file
   * beside the state file, a reserved workspace of the same database. `name` starts with a letter.
   */
  beside(state: string, name: string): StateLocation;
  /** `state` as written in a file of `folder` (an accounts file): a path is relative to that folder. */
  resolveFrom(folder: string, state: string): string;
}

export const stateConflictAdvice =
  'another run changed it since it was read; nothing was overwritten, run the command again';
