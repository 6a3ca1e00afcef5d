import { constants } from 'node:fs';
import { link, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EmulatorStartError } from './start-error.js';
import { createAccountState, createEmulatorState, type AccountState, type EmulatorState } from './state.js';

/**
 * Persistence of the emulator's state to `--data FILE`. Every write is durable before it is
 * acknowledged: the server calls `save()` after a write route's handler succeeds and before it sends
 * the response. A save writes a full snapshot atomically (temporary file, fsync, rename, fsync of the
 * directory), so after a crash at any moment the file holds either the previous or the next complete
 * snapshot, never a torn one. Saves are serialised, and the callers waiting while one is in flight are
 * covered together by the next one (group commit), which keeps concurrent writers fast.
 *
 * The encoding is generic: the state is plain JSON-safe data whose collections are `Map`s, written as
 * `{"$map": [[key, value], …]}`, so collections added later persist with no change here.
 */

const formatName = 'telform-emulator-state';
const formatVersion = 1;

interface SnapshotFile {
  format: typeof formatName;
  version: number;
  saved_at: string;
  state: unknown;
}

export function serialiseState(state: EmulatorState, savedAt: string): string {
  return wrapState(encodeState(state), savedAt);
}

/** The state alone as JSON (what a save writes, without the header), also used to tell whether it changed. */
function encodeState(state: EmulatorState): string {
  return JSON.stringify(state, encodeValue);
}

function wrapState(stateJson: string, savedAt: string): string {
  const header: Omit<SnapshotFile, 'state'> = { format: formatName, version: formatVersion, saved_at: savedAt };
  return `${JSON.stringify(header).slice(0, -1)},"state":${stateJson}}\n`;
}

function encodeValue(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value.values()] };
  return value;
}

function decodeValue(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$map' && Array.isArray((value as { $map: unknown }).$map)) {
      return new Map((value as { $map: Array<[unknown, unknown]> }).$map);
    }
    if (keys.length === 1 && keys[0] === '$set' && Array.isArray((value as { $set: unknown }).$set)) {
      return new Set((value as { $set: unknown[] }).$set);
    }
  }
  return value;
}

/**
 * Reads a snapshot back. Collections missing from an older file start empty (the defaults of
 * `createAccountState`), so a file written before a collection existed still loads.
 */
export function deserialiseState(text: string, file: string): EmulatorState {
  const fail = (why: string): EmulatorStartError =>
    new EmulatorStartError(
      'data_file_unreadable',
      `The emulator data file ${file} ${why}; move it away to start fresh.`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, decodeValue);
  } catch {
    throw fail('is not valid JSON');
  }
  const snapshot = parsed as Partial<SnapshotFile> | null;
  if (snapshot === null || typeof snapshot !== 'object' || snapshot.format !== formatName) {
    throw fail('is not an emulator state file');
  }
  if (snapshot.version !== formatVersion)
    throw fail(`has format version ${String(snapshot.version)}, which this telform cannot read`);
  const raw = snapshot.state as { clockOffsetMs?: unknown; accounts?: unknown } | null;
  if (raw === null || typeof raw !== 'object' || !(raw.accounts instanceof Map)) throw fail('holds no accounts');
  // Top-level fields other than these two are kept as they are, for the same reason as collections.
  const state: EmulatorState = {
    ...createEmulatorState(),
    ...(raw as Partial<EmulatorState>),
    clockOffsetMs: typeof raw.clockOffsetMs === 'number' && Number.isFinite(raw.clockOffsetMs) ? raw.clockOffsetMs : 0,
    accounts: new Map(),
  };
  for (const [authId, stored] of raw.accounts as Map<unknown, unknown>) {
    const account = stored as Partial<AccountState> | null;
    if (typeof authId !== 'string' || !account || typeof account.authToken !== 'string') {
      throw fail('holds an account without an auth id and token');
    }
    state.accounts.set(authId, { ...createAccountState(authId, account.authToken), ...account, authId });
  }
  return state;
}

/** Loads the state of `file`; a missing file means a fresh emulator (`undefined`). */
export async function loadState(file: string): Promise<EmulatorState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EmulatorStartError(
      'data_file_unreadable',
      `Cannot read the emulator data file ${file}: ${describe(error)}.`,
      {
        cause: error,
      },
    );
  }
  return deserialiseState(text, file);
}

/** Writes `text` to `file` so that a crash leaves either the old or the new content (see above). */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  await syncDirectory(dirname(file));
}

/** Makes the rename itself durable. Some platforms (Windows) cannot open a directory; they need not. */
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, constants.O_RDONLY);
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR' && code !== 'EBADF') throw error;
  } finally {
    await handle.close();
  }
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Saves the state of one emulator to its data file; one per running emulator. */
export class DataFileWriter {
  private inFlight: Promise<void> | null = null;
  private waiting: Waiter[] = [];
  private closed = false;
  /** The state as last written, to skip saves that would change nothing. */
  private lastSaved: string | undefined;

  constructor(
    readonly file: string,
    private readonly state: EmulatorState,
    private readonly now: () => string,
  ) {}

  /**
   * Resolves once a snapshot taken after this call is durable on disk; rejects if writing it failed
   * (the caller then answers 500 and the change is not acknowledged) or the store is closed.
   */
  save(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the emulator is shutting down'));
    const promise = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (!this.inFlight) this.startWrite();
    return promise;
  }

  /**
   * Saves if the state differs from the last save, for changes made outside write routes (the
   * registry's callback bookkeeping on reads and timers); the emulator calls it periodically.
   * Resolves true when it saved. Never rejects: a failure is reported on stderr and retried next time.
   */
  async saveIfChanged(): Promise<boolean> {
    if (this.closed || this.inFlight || encodeState(this.state) === this.lastSaved) return false;
    try {
      await this.save();
      return true;
    } catch (error) {
      if (!this.closed)
        process.stderr.write(`emulator: could not save the state to ${this.file}: ${describe(error)}\n`);
      return false;
    }
  }

  /** Waits for every save already requested, saves any change not yet saved; later saves are refused. */
  async close(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    await this.saveIfChanged();
    this.closed = true;
    while (this.inFlight) await this.inFlight;
  }

  private startWrite(): void {
    const batch = this.waiting;
    this.waiting = [];
    // The snapshot is taken now, synchronously: after every change its waiters made.
    const stateJson = encodeState(this.state);
    this.inFlight = writeFileAtomically(this.file, wrapState(stateJson, this.now())).then(
      () => {
        this.lastSaved = stateJson;
        for (const waiter of batch) waiter.resolve();
      },
      (error: unknown) => {
        for (const waiter of batch) waiter.reject(error);
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = null;
      if (this.waiting.length > 0) this.startWrite();
    });
  }
}

/**
 * An exclusive lock on a data file, `FILE.lock` holding the owner's pid, so two emulators (or two
 * telform commands sharing `.telform/`) never write one file. A lock left by a process that no longer
 * runs (killed) is taken over.
 */
/** Lock files held by this process (several emulators can run in one process, e.g. in tests). */
const heldLocks = new Set<string>();

export class DataFileLock {
  private constructor(readonly path: string) {}

  static async acquire(file: string): Promise<DataFileLock> {
    const path = `${file}.lock`;
    await mkdir(dirname(file), { recursive: true }).catch((error: unknown) => {
      throw new EmulatorStartError(
        'data_file_unreadable',
        `Cannot create the directory of the data file ${file}: ${describe(error)}.`,
        {
          cause: error,
        },
      );
    });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      // The pid is written to a private file first and hard-linked into place, so the lock appears
      // atomically with its owner in it (a half-written lock would look stale to another starter).
      const draft = `${path}.${process.pid}`;
      try {
        await writeFile(draft, `${process.pid}\n`, { encoding: 'utf8', mode: 0o600 });
        await link(draft, path);
        heldLocks.add(path);
        return new DataFileLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new EmulatorStartError(
            'data_file_unreadable',
            `Cannot create the lock file ${path}: ${describe(error)}.`,
            {
              cause: error,
            },
          );
        }
      } finally {
        await unlink(draft).catch(() => undefined);
      }
      const owner = await readOwner(path);
      // Our own pid in a lock we do not hold is a leftover of an earlier process that had our pid
      // (containers reuse low pids after a restart); another emulator of this process holds its path.
      const held = owner === process.pid ? heldLocks.has(path) : owner !== undefined && isRunning(owner);
      if (held) {
        throw new EmulatorStartError(
          'data_file_locked',
          `The emulator data file ${file} is in use by another process (pid ${owner}); wait for it to finish or use another data file.`,
        );
      }
      // Stale: its owner is gone. Re-read just before removing, in case another starter replaced it.
      if ((await readOwner(path)) === owner) await unlink(path).catch(() => undefined);
    }
    throw new EmulatorStartError(
      'data_file_locked',
      `Cannot take the lock file ${path}; another process keeps replacing it.`,
    );
  }

  async release(): Promise<void> {
    if (!heldLocks.delete(this.path)) return;
    if ((await readOwner(this.path)) === process.pid) await unlink(this.path).catch(() => undefined);
  }
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? code : error instanceof Error ? error.message : String(error);
}
