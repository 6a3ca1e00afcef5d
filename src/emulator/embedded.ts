import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startEmulator } from './start.js';
import { defaultAccount, type EmulatorOptions } from './options.js';
import { EmulatorStartError } from './start-error.js';

/**
 * The embedded emulator (`--endpoint local`): run in-process on 127.0.0.1 for as
 * long as one telform command runs, its state kept in `<directory>/emulator.json` so that it carries
 * over from one command to the next. The data file is locked while a command uses it; a second command
 * on the same directory at the same time is refused with a clear message rather than allowed to race.
 */
export interface EmbeddedEmulatorOptions {
  /** Default `.telform` under the current directory; created if needed. */
  directory?: string;
  /** Passed on to the emulator (e.g. `registryDelayMs`); the host, port, account and data file are fixed. */
  emulator?: Omit<EmulatorOptions, 'host' | 'port' | 'accounts' | 'dataFile'>;
}

export interface EmbeddedEmulator {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  authId: string;
  authToken: string;
  /** The absolute path of the data file. */
  dataFile: string;
  /** Stops the emulator and releases the directory; every acknowledged write is already saved. */
  close(): Promise<void>;
}

export const embeddedDirectoryName = '.telform';
export const embeddedDataFileName = 'emulator.json';

export async function startEmbeddedEmulator(options: EmbeddedEmulatorOptions = {}): Promise<EmbeddedEmulator> {
  const directory = resolve(options.directory ?? embeddedDirectoryName);
  await prepareDirectory(directory);
  const dataFile = join(directory, embeddedDataFileName);
  try {
    const emulator = await startEmulator({
      ...options.emulator,
      host: '127.0.0.1',
      port: 0,
      accounts: [defaultAccount],
      dataFile,
    });
    return {
      url: emulator.url,
      authId: defaultAccount.authId,
      authToken: defaultAccount.authToken,
      dataFile,
      close: () => emulator.close(),
    };
  } catch (error) {
    if (error instanceof EmulatorStartError && error.code === 'data_file_locked') {
      throw new EmulatorStartError(
        'data_file_locked',
        `Another telform command is using the local emulator in ${directory}; wait for it to finish and run this one again.`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Creates the directory with a `.gitignore` of `*` on first use (the emulator's data is scratch state,
 * like a build cache, and should not end up in a commit by accident).
 */
async function prepareDirectory(directory: string): Promise<void> {
  const existing = await stat(directory).catch(() => undefined);
  if (existing && !existing.isDirectory()) {
    throw new EmulatorStartError(
      'data_file_unreadable',
      `${directory} exists and is not a directory, so the local emulator cannot keep its data there.`,
    );
  }
  if (existing) return;
  try {
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, '.gitignore'), '# Created by telform: local emulator data.\n*\n', {
      flag: 'wx',
    }).catch(() => undefined);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new EmulatorStartError(
      'data_file_unreadable',
      `Cannot create the directory ${directory} for the local emulator: ${code}.`,
      { cause: error },
    );
  }
}
