// Every file telform writes for its user (`plan -o`, `revert -o`, `snapshot --out`, `test --junit`,
// the manifests of `import --out`) goes through this guard. A typo in an output path must not cost
// data: it never writes over the state, its journal, history, lock or backups (every file beside the
// state file that starts with its name), never over a manifest or another file the run reads, never
// through a symbolic link (a link is replaced by a rename, and a link's target may lie anywhere), and
// never over something that is not a regular file (`/dev/stdout`, a pipe, a socket). A folder, or a
// folder that does not exist, is a one-line user error, and the temporary file of the atomic write is
// removed on every exit but SIGKILL.
import { lstat, readFile, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from '../util/atomic-file.js';
import { TelformError } from '../util/errors.js';
import { removeOnExit } from '../util/exit-cleanup.js';
import { backendFor } from '../state/backends/registry.js';
import { resolveStatePath } from '../state/backends/file.js';
import type { Environment, GlobalOptions } from './context.js';
import { stateLocation } from './state-location.js';

export interface OutputGuard {
  /** The option as the user wrote it (`--junit`, `-o`): every message starts with it and the path given. */
  option: string;
  cwd: string;
  /** Files and folders the run reads (manifests, test files, policies, values): never written over. */
  inputs?: readonly string[];
  /** What to add when the path is not a regular file (`/dev/stdout`): how to print instead. */
  instead?: string;
  /**
   * What an existing file must be to be replaced (a saved plan, a snapshot, a JUnit report): any other
   * file — a manifest, a key, notes — is left as it is. Absent: any regular file the rest allows.
   */
  replaces?: { what: string; test: (text: string) => boolean };
  /** The run's state location (`--state`): when a file, neither it nor any file beside it is written over. */
  state?: string;
}

/** The guard of a command's output option: its state (`--state`, `TELFORM_STATE` or the default) and the inputs it reads. */
export function outputGuard(
  option: string,
  inputs: readonly string[],
  globals: GlobalOptions,
  context: { io: { cwd: string; env: Environment } },
): OutputGuard {
  return { option, cwd: context.io.cwd, inputs, state: stateLocation(globals, context.io.env).state };
}

/** The extensions of files a folder input holds that a later run reads: manifests are YAML (a saved plan beside them is not). */
const readInFolders = /\.ya?ml$/i;

/** `-o x is …` or `-o x: …`, as the reason reads. */
function refuse(guard: OutputGuard, given: string, reason: string): TelformError {
  return new TelformError(
    'output_file',
    `${guard.option} ${given}${/^(is|exists) /.test(reason) ? ' ' : ': '}${reason}`,
  );
}

interface Identity {
  dev: number;
  ino: number;
}

async function identityOf(file: string): Promise<Identity | undefined> {
  const found = await stat(file).catch(() => undefined);
  return found ? { dev: found.dev, ino: found.ino } : undefined;
}

async function realOrResolved(file: string): Promise<string> {
  return realpath(file).catch(() => path.resolve(file));
}

/**
 * Checks where `given` (relative to `cwd`) may be written and returns the absolute path to write, its
 * folder's links resolved. Throws an `output_file` error naming the option and the path otherwise.
 */
export async function checkOutputFile(given: string, guard: OutputGuard): Promise<string> {
  const asked = path.resolve(guard.cwd, given);
  if (given.endsWith('/') || given.endsWith(path.sep)) throw refuse(guard, given, 'is a folder; name a file in it');
  const folder = path.dirname(asked);
  let realFolder: string;
  try {
    realFolder = await realpath(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw refuse(
        guard,
        given,
        `the folder ${path.dirname(given)} does not exist; create it first, or write elsewhere`,
      );
    if (code === 'ENOTDIR') throw refuse(guard, given, `${path.dirname(given)} is not a folder`);
    throw refuse(guard, given, `cannot be written (${code ?? (error as Error).message})`);
  }
  if (!(await stat(realFolder)).isDirectory()) throw refuse(guard, given, `${path.dirname(given)} is not a folder`);
  const target = path.join(realFolder, path.basename(asked));
  const existing = await lstat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw refuse(guard, given, `cannot be written (${error.code ?? error.message})`);
  });
  const notRegular = `is not a regular file (a device, a pipe or a socket)${guard.instead ? `; ${guard.instead}` : '; name a file of its own'}`;
  if (existing?.isSymbolicLink()) {
    const pointed = await stat(target).catch(() => undefined);
    if (pointed && !pointed.isFile() && !pointed.isDirectory()) throw refuse(guard, given, notRegular);
    const to = await readlink(target).catch(() => '?');
    throw refuse(
      guard,
      given,
      `is a symbolic link (to ${to}); telform writes a file only where it is named, never through a link: name the file itself`,
    );
  }
  if (existing?.isDirectory()) throw refuse(guard, given, 'is a folder; name a file in it');
  if (existing && !existing.isFile()) throw refuse(guard, given, notRegular);
  const identity = existing ? { dev: existing.dev, ino: existing.ino } : undefined;
  const same = async (file: string): Promise<boolean> => {
    if ((await realOrResolved(file)) === target) return true;
    if (!identity) return false;
    const other = await identityOf(file);
    return other !== undefined && other.dev === identity.dev && other.ino === identity.ino;
  };
  if (guard.state !== undefined && backendFor(guard.state).name === 'file') {
    const stateFile = await resolveStatePath(path.resolve(guard.cwd, guard.state)).catch(() =>
      path.resolve(guard.cwd, guard.state as string),
    );
    const beside = [stateFile, `${stateFile}.journal`, `${stateFile}.history`, `${stateFile}.lock`];
    if (target.startsWith(`${stateFile}.`) || (await anyOf(beside, same)))
      throw refuse(
        guard,
        given,
        `is the state ${guard.state} or a file kept beside it (journal, history, lock, backups); choose another file`,
      );
  }
  for (const input of guard.inputs ?? []) {
    const resolved = path.resolve(guard.cwd, input);
    const kind = await stat(resolved).catch(() => undefined);
    if (kind?.isDirectory()) {
      const real = await realOrResolved(resolved);
      if (target.startsWith(`${real}${path.sep}`) && readInFolders.test(target))
        throw refuse(
          guard,
          given,
          `lies in ${input}, a folder this run reads, and would be read from there as an input next time; write it elsewhere`,
        );
    } else if (await same(resolved)) {
      throw refuse(guard, given, `is ${input}, a file this run reads; write to a file of its own`);
    }
  }
  if (existing && guard.replaces) {
    const replaces = guard.replaces;
    // Read only now that it is known to be a regular file: reading /dev/stdout of a pipeline would wait for ever.
    const text = await readFile(target, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw refuse(
        guard,
        given,
        `cannot be read to check that it is ${replaces.what} (${error.code ?? error.message})`,
      );
    });
    if (!replaces.test(text))
      throw refuse(
        guard,
        given,
        `exists and is not ${replaces.what}; it was left as it is (remove it, or choose another file)`,
      );
  }
  return target;
}

/**
 * A folder an output is written into (`import --out`): made when missing, but never a file, a link to
 * a file, or a device. Returns its absolute path.
 */
export async function checkOutputFolder(given: string, guard: OutputGuard): Promise<string> {
  const asked = path.resolve(guard.cwd, given);
  const found = await stat(asked).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    if (error.code === 'ENOTDIR') throw refuse(guard, given, 'lies under a file, not a folder');
    throw refuse(guard, given, `cannot be written (${error.code ?? error.message})`);
  });
  if (found && !found.isDirectory())
    throw refuse(
      guard,
      given,
      `is ${found.isFile() ? 'a file' : 'not a folder'}; ${guard.option} names a folder to write into`,
    );
  return asked;
}

async function anyOf(files: readonly string[], test: (file: string) => Promise<boolean>): Promise<boolean> {
  for (const file of files) if (await test(file)) return true;
  return false;
}

/**
 * Writes `content` to `given` after checking it again (the file system may have changed since the
 * first check), atomically, its temporary file removed on any exit. A failure of the write itself (a
 * full disk, no permission) is an `output_file` error naming the option and the path.
 */
export async function writeOutputFile(given: string, guard: OutputGuard, content: string, mode = 0o644): Promise<void> {
  const target = await checkOutputFile(given, guard);
  try {
    await writeAtomically(target, content, mode, removeOnExit);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    throw refuse(guard, given, `cannot be written (${code})`);
  }
}
