import { isDatabaseUrl } from '../util/database-url.js';
import { FileBackend } from '../state/backends/file.js';
import type { StateBackend } from '../state/backend.js';
import { LedgerStore, type OpenStateOptions } from '../state/ledger-store.js';
import type { Environment, GlobalOptions } from './context.js';

/**
 * Where a command's ledger lives: `--state` (else `TELFORM_STATE`, else `telform.state.json`) is a
 * path or a `postgres://`/`postgresql://` URL; a database holds one ledger per `--workspace` (else
 * `TELFORM_WORKSPACE`, else `default`). Only this module picks the backend; the engine sees the
 * interface.
 */
export const defaultStateFile = 'telform.state.json';
export const defaultWorkspace = 'default';

export interface StateLocation {
  state: string;
  workspace: string;
}

export function stateLocation(globals: GlobalOptions, env: Environment): StateLocation {
  return {
    state: globals.state ?? (env.TELFORM_STATE || defaultStateFile),
    workspace: globals.workspace ?? (env.TELFORM_WORKSPACE || defaultWorkspace),
  };
}

export async function openStateBackend(location: StateLocation, env: Environment): Promise<StateBackend> {
  if (isDatabaseUrl(location.state)) {
    // Loaded only for a database state: the driver costs every file-state command ~40 ms of start-up.
    const { PostgresBackend } = await import('../state/backends/postgres.js');
    return PostgresBackend.open(location.state, location.workspace, env);
  }
  return new FileBackend(location.state);
}

/** Opens the ledger the global options name, with `--lock-timeout` for a locking command. */
export async function openState(
  globals: GlobalOptions,
  env: Environment,
  options: Omit<OpenStateOptions, 'lockWaitMs'>,
): Promise<LedgerStore> {
  const backend = await openStateBackend(stateLocation(globals, env), env);
  return LedgerStore.open(backend, {
    notify: (line) => process.stderr.write(`${line}\n`),
    ...options,
    lockWaitMs: globals.lockTimeout ?? 0,
    ...(globals.reopenRetired ? { reopenRetired: true } : {}),
  });
}
