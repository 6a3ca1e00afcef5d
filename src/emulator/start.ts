import { resolve } from 'node:path';
import { Controls, controlRoutes } from './controls.js';
import { resolveOptions, type EmulatorConfig, type EmulatorOptions } from './options.js';
import { DataFileLock, DataFileWriter, loadState } from './persistence.js';
import type { Route } from './router.js';
import { adminRoutes } from './routes/admin.js';
import { accountInitializers, accountRoutes } from './routes/index.js';
import { Runtime } from './runtime.js';
import { applySeed, checkSeedShape, locateInObject, readSeedFile } from './seed.js';
import { EmulatorServer } from './server.js';
import { isSnapshotFile } from './snapshot-file.js';
import { EmulatorStartError } from './start-error.js';
import { createEmulatorState } from './state.js';

export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  host: string;
  port: number;
  config: EmulatorConfig;
  /** For in-process tests: direct access to the clock, the state and the request log. */
  runtime: Runtime;
  /** The faults, latency and rate limit in force; changeable at run time (also via `/__emulator/faults/`). */
  controls: Controls;
  /** Set when the emulator serves a snapshot of an account (loaded from `--data` or `--seed`, kept in memory). */
  snapshot?: { takenAt: string | undefined; account: string | undefined; inMemory: boolean };
  /** Stops accepting requests, closes every connection, waits for pending saves, releases the data file; resolves when done. */
  close(): Promise<void>;
}

/** Internals replaceable by tests of the pipeline itself (the routes served). */
export interface EmulatorInternals {
  routes?: readonly Route[];
}

/**
 * Starts an emulator of the API (the API reference) and resolves once it is listening. With `dataFile`, the
 * state is loaded from it (a missing file is a fresh start) and the file is locked while running.
 * Bad options, an unreadable data or seed file and a locked data file reject with `EmulatorStartError`.
 */
export async function startEmulator(
  options: EmulatorOptions = {},
  internals: EmulatorInternals = {},
): Promise<RunningEmulator> {
  // A snapshot given as the data file is loaded like a seed and kept in memory (snapshot-file.ts).
  const snapshotFile =
    options.dataFile !== undefined && (await isSnapshotFile(options.dataFile))
      ? await readSeedFile(options.dataFile)
      : null;
  if (snapshotFile && options.seedFile !== undefined) {
    throw new EmulatorStartError(
      'seed_file_invalid',
      `${options.dataFile ?? ''} is a snapshot, which is the account's starting state: give it without --seed.`,
    );
  }
  const products = options.products ?? snapshotFile?.snapshot?.products;
  // A replica answers as production does (its reads, its lists), whatever the emulator's default shapes.
  const shapes = options.shapes ?? (snapshotFile ? 'production' : undefined);
  const config = resolveOptions({
    ...options,
    ...(snapshotFile ? { dataFile: undefined } : {}),
    ...(products ? { products } : {}),
    ...(shapes ? { shapes } : {}),
  });
  const routes = internals.routes ?? accountRoutes;
  const dataFile = config.dataFile === null ? null : resolve(config.dataFile);
  const seedFile = snapshotFile ?? (config.seedFile === null ? null : await readSeedFile(config.seedFile));
  if (config.seedData) checkSeedShape(config.seedData, locateInObject);

  const lock = dataFile === null ? null : await DataFileLock.acquire(dataFile);
  try {
    const loaded = dataFile === null ? undefined : await loadState(dataFile);
    const state = loaded ?? createEmulatorState();
    // A replica holds exactly what the account held: none of the objects every new account starts with.
    const runtime = new Runtime(config, state, snapshotFile ? [] : accountInitializers);
    const loadedAccounts = new Set(state.accounts.keys());
    // An account saved by an older emulator gets what every account has started with since.
    for (const account of state.accounts.values()) runtime.initialize(account);
    for (const account of config.accounts) {
      // The accounts served are those of the options: a token given now replaces the one saved.
      runtime.ensureAccount(account.authId, account.authToken).authToken = account.authToken;
    }
    const controls = new Controls(config);
    const allAdminRoutes = [...adminRoutes, ...controlRoutes(controls)];
    const seedContext = {
      runtime,
      routes,
      adminRoutes: allAdminRoutes,
      defaultAuthId: (config.accounts[0] ?? { authId: '' }).authId,
      loadedAccounts,
    };
    if (seedFile) await applySeed(seedFile.input, { ...seedContext, locate: seedFile.locate });
    if (config.seedData) await applySeed(config.seedData, { ...seedContext, locate: locateInObject });

    const store = dataFile === null ? null : new DataFileWriter(dataFile, state, () => runtime.nowIso());
    // The first save makes the file exist (and records the seed) before anything is served.
    if (store) {
      await store.save().catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new EmulatorStartError(
          'data_file_unreadable',
          `Cannot write the emulator data file ${store.file}: ${code}.`,
          { cause: error },
        );
      });
    }
    const server = new EmulatorServer(runtime, { routes, adminRoutes: allAdminRoutes, controls, store });
    const address = await server.listen(config.host, config.port).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new EmulatorStartError('listen_failed', `Cannot listen on ${config.host}:${config.port}: ${code}.`, {
        cause: error,
      });
    });
    // Changes made outside write routes (the registry's callback bookkeeping on reads and timers) are
    // saved within a second; unref'd, so it never keeps a process alive.
    const sweeper = store ? setInterval(() => void store.saveIfChanged(), 1_000) : undefined;
    sweeper?.unref();
    const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    let closed: Promise<void> | undefined;
    return {
      url: `http://${hostForUrl}:${address.port}`,
      host: address.address,
      port: address.port,
      config,
      runtime,
      controls,
      ...(seedFile?.snapshot
        ? {
            snapshot: {
              takenAt: seedFile.snapshot.takenAt,
              account: seedFile.snapshot.account,
              inMemory: dataFile === null,
            },
          }
        : {}),
      close: () => {
        closed ??= (async () => {
          clearInterval(sweeper);
          await server.close();
          await store?.close();
          await lock?.release();
        })();
        return closed;
      },
    };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}
