// Where a command's ledger lives: `--state` (else `TELFORM_STATE`, else `telform.state.json`) is a
// path or a URL the backend registry recognises (`postgres://…`); a database holds one ledger per
// `--workspace` (else `TELFORM_WORKSPACE`, else `default`). The registry picks the backend; the
// engine sees only the ledger store.
import { openStateBackend, type StateLocation } from '../state/backends/registry.js';
import { LedgerStore, type OpenStateOptions } from '../state/ledger-store.js';
import type { Environment, GlobalOptions } from './context.js';

export const defaultStateFile = 'telform.state.json';
export const defaultWorkspace = 'default';

export function stateLocation(globals: GlobalOptions, env: Environment): StateLocation {
  return {
    state: globals.state ?? (env.TELFORM_STATE || defaultStateFile),
    workspace: globals.workspace ?? (env.TELFORM_WORKSPACE || defaultWorkspace),
  };
}

/**
 * Opens the ledger the global options name, with `--lock-timeout` for a locking command. `notify`
 * hears what the store says on the way (a stale lock taken over), stderr unless given.
 */
export async function openState(
  globals: GlobalOptions,
  env: Environment,
  options: Omit<OpenStateOptions, 'lockWaitMs'>,
): Promise<LedgerStore> {
  const backend = await openStateBackend(stateLocation(globals, env), env);
  return LedgerStore.open(backend, {
    // The CLI's `state` commands print what opening did on stderr; operations pass their own channel.
    notify: (line) => process.stderr.write(`${line}\n`),
    ...options,
    lockWaitMs: globals.lockTimeout ?? 0,
    ...(globals.reopenRetired ? { reopenRetired: true } : {}),
  });
}
