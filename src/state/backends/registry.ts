// Where a ledger can live, by the location it is named with (`--state`, an accounts file's `state`):
// one entry per backend, tried in order, the file last (it takes any path). Everything that needs to
// know which backend a location names asks here: opening a state, an accounts file resolving its
// paths, `state migrate` saying which flags name the new place. A new backend is its file plus one
// line in `stateBackends`.
import type { StateBackend, StateBackendKind, StateLocation } from '../backend.js';
import { fileBackendKind } from './file.js';
import { postgresBackendKind } from './postgres-kind.js';

export type { StateBackendKind, StateLocation } from '../backend.js';

export const stateBackends: readonly StateBackendKind[] = [postgresBackendKind, fileBackendKind];

/** The backend a location names (the file's, when no other claims it). */
export function backendFor(state: string): StateBackendKind {
  return stateBackends.find((kind) => kind.matches(state)) ?? fileBackendKind;
}

export function openStateBackend(
  location: StateLocation,
  env: Readonly<Record<string, string | undefined>>,
): Promise<StateBackend> {
  return backendFor(location.state).open(location, env);
}
