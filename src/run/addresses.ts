// The addresses shell completion offers: those of the manifests given and those of the state. It
// reads no secret and sends no request; what cannot be read is left out, since a completion that
// fails must not print errors into the line being typed.
import { loadManifests } from '../manifest/load.js';
import type { Environment, GlobalOptions } from './context.js';
import { openState } from './state-location.js';

export async function listAddresses(
  paths: readonly string[],
  globals: GlobalOptions,
  env: Environment,
  cwd: string,
): Promise<string[]> {
  const addresses = new Set<string>();
  if (paths.length > 0) {
    const loaded = await loadManifests(paths, { cwd, env: {} }).catch(() => undefined);
    for (const resource of loaded?.model.resources ?? []) addresses.add(resource.address);
  }
  try {
    const store = await openState(globals, env, { lock: false });
    try {
      for (const address of Object.keys(store.ledger.resources)) addresses.add(address);
    } finally {
      await store.close();
    }
  } catch {
    // No state (or one that cannot be read): the manifests' addresses are all there is to offer.
  }
  return [...addresses].sort();
}
