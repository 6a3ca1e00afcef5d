// The replica a rehearsal applies to: an emulator started in this process from a snapshot file, serving
// the account's id (the copied state is bound to it) with a token of its own, its registry deciding in
// a fraction of a second. Only the CLI starts emulators, so the rehearsal operation is handed this.
import type { Replica, StartReplica } from '../run/rehearse.js';
import { startLocalEmulator } from './local-emulator.js';

/** How long a rehearsal waits for the replica's registry, which decides within a second. */
export const rehearsalWaitMs = 60_000;

/** How fast the replica's registry decides: the rehearsal waits for it, not the real registry's days. */
const replicaRegistryDelayMs = 200;

export const startReplica: StartReplica = async (snapshotFile, account) => {
  const { client, close } = await startLocalEmulator({
    account,
    dataFile: snapshotFile,
    registryDelayMs: replicaRegistryDelayMs,
  });
  const replica: Replica = { client, close };
  return replica;
};
