import {
  lstat,
  mkdir,
  open,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { systemClock, type Clock } from '../../util/clock.js';
import { TelformError } from '../../util/errors.js';
import { writeAtomically } from '../../util/atomic-file.js';
import {
  stateConflictAdvice,
  type LedgerCommit,
  type LockHolder,
  type StateBackend,
  type StateBackendKind,
  type StoredState,
} from '../backend.js';

/**
 * The ledger in a file (the default, `telform.state.json`): the journal beside it (`….journal`, one
 * record a line, fsynced after each append of one or more records), and a lock file (`….lock`)
 * naming its holder. The lock file is seen only by processes that share the disk; a holder that
 * died on this host (SIGKILL)
 * leaves a lock that the next run recognises as stale by its pid. The ledger is written atomically
 * (temp file, fsync, rename) after checking that the file still has the serial read.
 *
 * A path is an identity, not a string: a symbolic link (or a folder on the way that is one) is
 * resolved before anything is locked, read or written, so a ledger named by two paths — the file and
 * a link to it — has one lock, and a write replaces the file the link points to, never the link.
 */
export class FileBackend implements StateBackend {
  private journal: FileHandle | undefined;
  private locked = false;
  /** The file the path names once links are resolved; every read, write and lock uses it. */
  private resolved: string | undefined;

  constructor(readonly location: string) {}

  async lock(
    waitMs: number,
    clock: Clock = systemClock,
    notify: (line: string) => void = () => undefined,
  ): Promise<void> {
    // A state path may name a folder that does not exist yet (`states/{account}.json`): a locking run creates it.
    await mkdir(dirname(resolve(this.location)), { recursive: true }).catch(async (error: unknown) => {
      // EEXIST: the folder itself is a plain file; ENOTDIR: one above it is.
      const code = (error as NodeJS.ErrnoException).code;
      throw code === 'ENOTDIR' || code === 'EEXIST' ? await underPlainFile(this.location) : error;
    });
    const file = await this.file();
    const deadline = clock.now() + waitMs;
    for (;;) {
      const holder = await tryLock(file, new Date(clock.now()).toISOString(), notify);
      if (!holder) break;
      if (clock.now() >= deadline) {
        const who =
          'pid' in holder ? `process ${holder.pid} on ${holder.host} since ${holder.started_at}` : 'another process';
        throw new TelformError(
          'state_locked',
          `the state file ${this.location} is locked by ${who}; wait for it to finish (or pass --lock-timeout), or remove ${lockPath(file)} if it is no longer running`,
        );
      }
      await clock.sleep(Math.min(250, Math.max(10, deadline - clock.now())));
    }
    this.locked = true;
  }

  async read(): Promise<StoredState> {
    const file = await this.file();
    const ledger = await readOptional(file);
    const journal = (await readOptional(journalPath(file))) ?? '';
    return { ledger, journal: journal.split('\n').filter((line) => line.trim() !== '') };
  }

  async append(records: readonly string[]): Promise<void> {
    if (records.length === 0) return;
    this.journal ??= await openJournal(journalPath(await this.file()));
    await this.journal.appendFile(records.map((record) => `${record}\n`).join(''));
    await this.journal.sync();
  }

  async commit(change: LedgerCommit): Promise<void> {
    const file = await this.file();
    const now = currentSerial(await readOptional(file));
    if (now !== change.expectedSerial) {
      const read = change.expectedSerial === undefined ? 'absent' : `serial ${change.expectedSerial}`;
      const found = now === undefined ? 'absent' : `serial ${now}`;
      throw new TelformError(
        'state_conflict',
        `the state file ${this.location} was ${read} when read and is ${found} now: ${stateConflictAdvice}`,
      );
    }
    await writeAtomically(file, change.ledger);
    await this.journal?.close();
    this.journal = undefined;
    if (change.journal.length > 0)
      await writeAtomically(journalPath(file), change.journal.map((record) => `${record}\n`).join(''));
    else await rm(journalPath(file), { force: true });
  }

  async backup(ledger: string): Promise<string> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = `${await this.file()}.${stamp}.backup`;
    await writeAtomically(path, ledger);
    return path;
  }

  async readHistory(): Promise<string[]> {
    const text = (await readOptional(historyPath(await this.file()))) ?? '';
    // A last line without its newline was cut short by a crash: never durable, so not a record.
    const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    return complete.split('\n').filter((line) => line.trim() !== '');
  }

  async appendHistory(record: string, keep: number): Promise<void> {
    const path = historyPath(await this.file());
    const handle = await openJournal(path);
    try {
      await handle.appendFile(`${record}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const lines = await this.readHistory();
    if (lines.length > keep)
      await writeAtomically(
        path,
        lines
          .slice(lines.length - keep)
          .map((line) => `${line}\n`)
          .join(''),
      );
  }

  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = undefined;
    if (this.locked) await rm(lockPath(await this.file()), { force: true });
    this.locked = false;
  }

  /** The file this path names, links resolved (once: a link changed during the run is not followed). */
  private async file(): Promise<string> {
    this.resolved ??= await resolveStatePath(this.location);
    return this.resolved;
  }
}

/** A state path with a plain file where a folder should be (`--state notes.txt/telform.json`): a user error naming both. */
async function underPlainFile(path: string): Promise<TelformError> {
  let folder = dirname(path);
  // The nearest part of the path that exists is the plain file in the way.
  while (folder !== dirname(folder) && (await stat(folder).catch(() => undefined)) === undefined)
    folder = dirname(folder);
  return new TelformError(
    'state_path',
    `the state path ${path} is under ${folder}, which is a file, not a folder; --state names a state file in a folder`,
  );
}

/**
 * The file a state path names: every symbolic link resolved, in the folders on the way and in the
 * file itself, also when its target does not exist yet (a link made before the first apply).
 */
export async function resolveStatePath(path: string): Promise<string> {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops += 1) {
    let folder: string;
    try {
      folder = await realpath(dirname(current));
    } catch (error) {
      // A folder that does not exist yet holds no link: a locking run creates it as named.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw await underPlainFile(path);
      throw error;
    }
    current = join(folder, basename(current));
    try {
      const found = await lstat(current);
      if (found.isDirectory()) {
        throw new TelformError(
          'state_path',
          `the state path ${path} is a folder; --state names the state file, e.g. --state ${join(path, 'telform.json')}`,
        );
      }
      if (!found.isSymbolicLink()) return current;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw await underPlainFile(path);
      throw error;
    }
    current = resolve(folder, await readlink(current));
  }
  throw new TelformError(
    'state_path',
    `the state path ${path} is a chain of more than 40 symbolic links (a loop?); name the file itself`,
  );
}

/**
 * Opens the journal for appending. A record torn by a crash (no newline at its end) is cut off
 * first: it was never durable, and appending after it would glue the next record to it and turn a
 * harmless torn tail into damage in the middle of the journal.
 */
async function openJournal(path: string): Promise<FileHandle> {
  const text = await readOptional(path);
  if (text !== undefined && text !== '' && !text.endsWith('\n')) {
    const kept = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
    const handle = await open(path, 'r+');
    try {
      await handle.truncate(kept);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  return open(path, 'a');
}

export function journalPath(file: string): string {
  return `${file}.journal`;
}

/** The history beside the state file: one record a line, appended, trimmed only by retention. */
export function historyPath(file: string): string {
  return `${file}.history`;
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

/**
 * How old an empty or unreadable lock file must be before it is taken over. Its holder writes it
 * whole in one call right after creating it, so only a crash in between (or a damaged disk) leaves
 * it so for longer than a moment; the bound leaves a slow disk plenty of that moment.
 */
export const unreadableLockTakeoverMs = 10_000;

/** Creates the lock file; when it exists, returns its holder (or `{}` when unreadable), after clearing a stale one. */
async function tryLock(
  file: string,
  startedAt: string,
  notify: (line: string) => void,
): Promise<LockHolder | Record<string, never> | undefined> {
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
    if (!holder) {
      // The file system's time, not the run's clock: the lock's age is measured against its mtime.
      const age = await ageOf(path, Date.now());
      if (age !== undefined && age >= unreadableLockTakeoverMs) {
        notify(
          `took over the lock ${path}: it names no holder (empty or damaged) and is ${Math.round(age / 1000)} s old`,
        );
        await rm(path, { force: true });
        continue;
      }
    }
    return holder ?? {};
  }
  return {};
}

/** A lock file's holder, or undefined when it is empty, not JSON, or not a holder. */
async function readLockOwner(path: string): Promise<LockHolder | undefined> {
  try {
    const holder = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder> | null;
    if (
      holder === null ||
      typeof holder !== 'object' ||
      typeof holder.pid !== 'number' ||
      typeof holder.host !== 'string'
    )
      return undefined;
    return holder as LockHolder;
  } catch {
    return undefined;
  }
}

/** How long ago a file was last written, or undefined when it is gone. */
async function ageOf(path: string, now: number): Promise<number | undefined> {
  try {
    return now - (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's holder still runs. A process that exited but that nobody has reaped yet (a zombie:
 * its parent does not wait for it, as PID 1 of a container often does not) still answers signal 0, so
 * on Linux its state in `/proc/PID/stat` decides: `Z` (zombie) or `X` (dead) is not alive. Elsewhere,
 * or when that file cannot be read, signal 0 alone answers.
 */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !exitedUnreaped(pid);
}

/** Whether `/proc/PID/stat` says the process has exited (state Z or X) and only waits to be reaped. */
function exitedUnreaped(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // `PID (COMMAND) STATE …`: the command may hold spaces and parentheses, so the state follows the last `)`.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** The file backend as the registry sees it: any location no other backend claims is a path. */
export const fileBackendKind: StateBackendKind = {
  name: 'file',
  matches: () => true,
  open: async (location) => new FileBackend(location.state),
  describe: (location) => location.state,
  flags: (location) => `--state ${location.state}`,
  beside: (state, name) => ({ state: `${state}.${name}`, workspace: `_${name}` }),
  resolveFrom: (folder, state) => resolve(folder, state),
};
