import { mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, basename, join } from 'node:path';
import { TelformError } from '../errors.js';
import {
  assertLedgerBinding,
  emptyLedger,
  parseLedger,
  serializeLedger,
  type Ledger,
  type LedgerEntry,
} from './ledger.js';

/**
 * The ledger on disk: `telform.state.json`, an append-only journal beside it
 * (`….journal`, one JSON record a line) and a lock file (`….lock`).
 *
 * Every operation of an apply is made durable as it completes: an intent is appended (and
 * fsynced) before the request, the result after. A crash loses nothing: the next run replays the
 * journal over the ledger, and an intent without a result names an operation that may or may not
 * have happened (for a create, the planner then looks the natural key up before creating again).
 * Compaction writes the ledger atomically (temp file, fsync, rename) and empties the journal.
 */

export type JournalRecord =
  | { type: 'intent'; seq: number; address: string; action: string; at: string }
  | { type: 'result'; seq: number; address: string; entry: LedgerEntry | null; at: string };

export interface UncertainOperation {
  address: string;
  action: string;
  at: string;
}

export interface OpenStateOptions {
  /**
   * The endpoint and account of this run; the ledger must belong to them. Omitted only by
   * commands that edit the ledger itself (`telform state`), which then need an existing file.
   */
  binding?: { endpoint: string; account: string };
  /** Take the lock (apply, state edits); plan and drift only read. */
  lock: boolean;
}

export class StateStore {
  private journal: FileHandle | undefined;
  private writes: Promise<void> = Promise.resolve();
  private seq = 0;
  private dirty = false;

  private constructor(
    readonly file: string,
    readonly ledger: Ledger,
    /** Operations whose intent was journaled but whose result was not. */
    readonly uncertain: UncertainOperation[],
    /** Whether a state file existed before this run. */
    readonly existed: boolean,
    private readonly locked: boolean,
    replayed: boolean,
  ) {
    this.dirty = replayed;
  }

  static async open(file: string, options: OpenStateOptions): Promise<StateStore> {
    // A state path may name a folder that does not exist yet (`states/{account}.json`): a locking run creates it.
    if (options.lock) await mkdir(dirname(file), { recursive: true });
    if (options.lock) await acquireLock(file);
    try {
      const text = await readOptional(file);
      if (text === undefined && !options.binding) {
        throw new TelformError('no_state', `there is no state file at ${file} (use --state to name it)`);
      }
      const ledger =
        text === undefined && options.binding ? emptyLedger(options.binding.endpoint, options.binding.account) : parseLedger(text ?? '', file);
      if (options.binding) assertLedgerBinding(ledger, options.binding.endpoint, options.binding.account, file);
      const { uncertain, replayed } = replayJournal(ledger, await readOptional(journalPath(file)));
      return new StateStore(file, ledger, uncertain, text !== undefined, options.lock, replayed);
    } catch (error) {
      if (options.lock) await releaseLock(file);
      throw error;
    }
  }

  /** Records, durably, that an operation is about to be sent. */
  recordIntent(address: string, action: string): Promise<void> {
    return this.append({ type: 'intent', seq: ++this.seq, address, action, at: new Date().toISOString() });
  }

  /** Records, durably, the ledger entry after an operation (`null`: no longer managed). */
  recordResult(address: string, entry: LedgerEntry | null): Promise<void> {
    if (entry) this.ledger.resources[address] = entry;
    else delete this.ledger.resources[address];
    this.dirty = true;
    return this.append({ type: 'result', seq: ++this.seq, address, entry, at: new Date().toISOString() });
  }

  /** Writes the ledger atomically (serial + 1 when anything changed) and empties the journal. */
  async compact(): Promise<void> {
    await this.writes;
    if (!this.dirty) return;
    this.assertLocked();
    this.ledger.serial += 1;
    await writeAtomically(this.file, serializeLedger(this.ledger));
    await this.journal?.close();
    this.journal = undefined;
    await rm(journalPath(this.file), { force: true });
    this.dirty = false;
  }

  /**
   * Writes a copy of the ledger as it is now beside the state file (before `state rm`/`mv` edit it)
   * and returns its path.
   */
  async backup(): Promise<string> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = `${this.file}.${stamp}.backup`;
    await writeAtomically(path, serializeLedger(this.ledger));
    return path;
  }

  /** Compacts and releases the lock; safe to call more than once. */
  async close(): Promise<void> {
    try {
      if (this.locked) await this.compact();
    } finally {
      await this.journal?.close();
      this.journal = undefined;
      if (this.locked) await releaseLock(this.file);
    }
  }

  private append(record: JournalRecord): Promise<void> {
    this.assertLocked();
    const next = this.writes.then(async () => {
      this.journal ??= await open(journalPath(this.file), 'a');
      await this.journal.appendFile(`${JSON.stringify(record)}\n`);
      await this.journal.sync();
    });
    this.writes = next.catch(() => undefined);
    return next;
  }

  private assertLocked(): void {
    if (!this.locked) throw new Error('state store opened read-only');
  }
}

export function journalPath(file: string): string {
  return `${file}.journal`;
}

export function lockPath(file: string): string {
  return `${file}.lock`;
}

/** Applies journal results over the ledger; a torn last line (a crash mid-append) is ignored. */
function replayJournal(ledger: Ledger, text: string | undefined): { uncertain: UncertainOperation[]; replayed: boolean } {
  if (!text) return { uncertain: [], replayed: false };
  const open = new Map<string, UncertainOperation>();
  let replayed = false;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch {
      continue;
    }
    if (record.type === 'intent') {
      open.set(record.address, { address: record.address, action: record.action, at: record.at });
    } else if (record.type === 'result') {
      open.delete(record.address);
      if (record.entry) ledger.resources[record.address] = record.entry;
      else delete ledger.resources[record.address];
      replayed = true;
    }
  }
  return { uncertain: [...open.values()], replayed };
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes a file so that a crash leaves either the old or the new content, never a mix. */
export async function writeAtomically(file: string, content: string): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const directory = await open(dirname(file), 'r');
  try {
    await directory.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await directory.close();
  }
}

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

async function acquireLock(file: string): Promise<void> {
  const path = lockPath(file);
  const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readLockOwner(path);
    if (holder && holder.host === owner.host && !processAlive(holder.pid)) {
      // The holder died (e.g. SIGKILL) without releasing: the lock is stale.
      await rm(path, { force: true });
      continue;
    }
    const who = holder ? `process ${holder.pid} on ${holder.host} since ${holder.started_at}` : 'another process';
    throw new TelformError(
      'state_locked',
      `the state file ${file} is locked by ${who}; wait for it to finish, or remove ${path} if it is no longer running`,
    );
  }
  throw new TelformError('state_locked', `could not lock the state file ${file}`);
}

async function readLockOwner(path: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseLock(file: string): Promise<void> {
  await rm(lockPath(file), { force: true });
}
