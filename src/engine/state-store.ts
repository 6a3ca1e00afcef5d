import { mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, basename, join } from 'node:path';
import { TelformError } from '../errors.js';
import { replayJournal, type IntentInput, type JournalRecord, type UncertainOperation } from './journal.js';
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
 * fsynced) before the request, the result after (what the records mean: `journal.ts`). A crash
 * loses nothing: the next run replays the journal over the ledger, and the intents without a result
 * are settled before anything is planned (`settle.ts`). Compaction writes the ledger atomically
 * (temp file, fsync, rename) and rewrites the journal with only the intents still open.
 */

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
  private dirty = false;

  private constructor(
    readonly file: string,
    readonly ledger: Ledger,
    private open: UncertainOperation[],
    /** Whether a state file existed before this run. */
    readonly existed: boolean,
    private readonly locked: boolean,
    replayed: boolean,
    private seq: number,
  ) {
    this.dirty = replayed;
  }

  /** Operations whose intent was journaled but whose result was not (yet), oldest first. */
  get uncertain(): readonly UncertainOperation[] {
    return this.open;
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
      const { uncertain, replayed, lastSeq } = replayJournal(ledger, parseJournal(await readOptional(journalPath(file))));
      return new StateStore(file, ledger, uncertain, text !== undefined, options.lock, replayed, lastSeq);
    } catch (error) {
      if (options.lock) await releaseLock(file);
      throw error;
    }
  }

  /** Records, durably, that an operation is about to be sent. */
  recordIntent(intent: IntentInput): Promise<void> {
    const record: UncertainOperation = { type: 'intent', ...intent, seq: ++this.seq, at: new Date().toISOString() };
    // Open until its result: a request that fails, or a run that stops, leaves it for the next run to settle.
    this.open.push(record);
    return this.append(record);
  }

  /** Records, durably, the ledger entry after an operation (`null`: no longer managed). */
  recordResult(address: string, entry: LedgerEntry | null): Promise<void> {
    this.setEntry(address, entry);
    return this.append({ type: 'result', seq: ++this.seq, address, entry, at: new Date().toISOString() });
  }

  /**
   * Closes the open intents of `address` with what settling them found: the entry to record
   * (`null`: no longer managed; undefined: the entry stays as it is). Durable when the store is
   * locked (apply); in memory only for a read-only run (plan, drift), so that its plan shows the
   * settlement the next apply will record.
   */
  async settle(address: string, entry: LedgerEntry | null | undefined): Promise<void> {
    const next = entry === undefined ? (this.ledger.resources[address] ?? null) : entry;
    if (this.locked) await this.recordResult(address, next);
    else this.setEntry(address, next);
  }

  private setEntry(address: string, entry: LedgerEntry | null): void {
    if (entry) this.ledger.resources[address] = entry;
    else delete this.ledger.resources[address];
    this.open = this.open.filter((intent) => intent.address !== address);
    this.dirty = true;
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
    // Intents nobody settled yet (e.g. `telform state` edits run no settlement) must survive.
    if (this.open.length > 0) await writeAtomically(journalPath(this.file), this.open.map((intent) => `${JSON.stringify(intent)}\n`).join(''));
    else await rm(journalPath(this.file), { force: true });
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

/** The journal file's records; a torn last line (a crash mid-append) is ignored. */
function parseJournal(text: string | undefined): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch {
      continue;
    }
  }
  return records;
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
