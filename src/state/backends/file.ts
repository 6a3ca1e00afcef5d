import { mkdir, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { systemClock, type Clock } from '../../util/clock.js';
import { TelformError } from '../../util/errors.js';
import { writeAtomically } from '../../util/atomic-file.js';
import { stateConflictAdvice, type LedgerCommit, type LockHolder, type StateBackend, type StoredState } from '../backend.js';

/**
 * The ledger in a file (the default, `telform.state.json`): the journal beside it (`….journal`, one
 * record a line, fsynced after each append of one or more records), and a lock file (`….lock`)
 * naming its holder. The lock file is seen only by processes that share the disk; a holder that
 * died on this host (SIGKILL)
 * leaves a lock that the next run recognises as stale by its pid. The ledger is written atomically
 * (temp file, fsync, rename) after checking that the file still has the serial read.
 */
export class FileBackend implements StateBackend {
  private journal: FileHandle | undefined;
  private locked = false;

  constructor(readonly location: string) {}

  async lock(waitMs: number, clock: Clock = systemClock): Promise<void> {
    // A state path may name a folder that does not exist yet (`states/{account}.json`): a locking run creates it.
    await mkdir(dirname(this.location), { recursive: true });
    const deadline = clock.now() + waitMs;
    for (;;) {
      const holder = await tryLock(this.location, new Date(clock.now()).toISOString());
      if (!holder) break;
      if (clock.now() >= deadline) {
        const who = 'pid' in holder ? `process ${holder.pid} on ${holder.host} since ${holder.started_at}` : 'another process';
        throw new TelformError(
          'state_locked',
          `the state file ${this.location} is locked by ${who}; wait for it to finish (or pass --lock-timeout), or remove ${lockPath(this.location)} if it is no longer running`,
        );
      }
      await clock.sleep(Math.min(250, Math.max(10, deadline - clock.now())));
    }
    this.locked = true;
  }

  async read(): Promise<StoredState> {
    const ledger = await readOptional(this.location);
    const journal = (await readOptional(journalPath(this.location))) ?? '';
    return { ledger, journal: journal.split('\n').filter((line) => line.trim() !== '') };
  }

  async append(records: readonly string[]): Promise<void> {
    if (records.length === 0) return;
    this.journal ??= await open(journalPath(this.location), 'a');
    await this.journal.appendFile(records.map((record) => `${record}\n`).join(''));
    await this.journal.sync();
  }

  async commit(change: LedgerCommit): Promise<void> {
    const now = currentSerial(await readOptional(this.location));
    if (now !== change.expectedSerial) {
      const read = change.expectedSerial === undefined ? 'absent' : `serial ${change.expectedSerial}`;
      const found = now === undefined ? 'absent' : `serial ${now}`;
      throw new TelformError('state_conflict', `the state file ${this.location} was ${read} when read and is ${found} now: ${stateConflictAdvice}`);
    }
    await writeAtomically(this.location, change.ledger);
    await this.journal?.close();
    this.journal = undefined;
    if (change.journal.length > 0) await writeAtomically(journalPath(this.location), change.journal.map((record) => `${record}\n`).join(''));
    else await rm(journalPath(this.location), { force: true });
  }

  async backup(ledger: string): Promise<string> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = `${this.location}.${stamp}.backup`;
    await writeAtomically(path, ledger);
    return path;
  }

  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = undefined;
    if (this.locked) await rm(lockPath(this.location), { force: true });
    this.locked = false;
  }
}

export function journalPath(file: string): string {
  return `${file}.journal`;
}

export function lockPath(file: string): string {
  return `${file}.lock`;
}

/** The serial of a ledger file's text; a file that does not parse has none (its read refused it already). */
function currentSerial(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    const serial = (JSON.parse(text) as { serial?: unknown }).serial;
    return typeof serial === 'number' ? serial : undefined;
  } catch {
    return undefined;
  }
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates the lock file; when it exists, returns its holder (or `{}` when unreadable), after clearing a stale one. */
async function tryLock(file: string, startedAt: string): Promise<LockHolder | Record<string, never> | undefined> {
  const path = lockPath(file);
  const owner: LockHolder = { pid: process.pid, host: hostname(), started_at: startedAt };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readLockOwner(path);
    if (holder && holder.host === owner.host && !processAlive(holder.pid)) {
      // The holder died (e.g. SIGKILL) without releasing: the lock is stale.
      await rm(path, { force: true });
      continue;
    }
    return holder ?? {};
  }
  return {};
}

async function readLockOwner(path: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockHolder;
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
