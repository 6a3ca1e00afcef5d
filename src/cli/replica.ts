// The replica a rehearsal applies to: an emulator started in this process from a snapshot file, serving
// the account's id (the copied state is bound to it) with a token of its own, its registry deciding in
// a fraction of a second. Only the CLI starts emulators, so the rehearsal operation is handed this.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../api/client.js';
import { Limiter } from '../api/limiter.js';
import { systemClock } from '../util/clock.js';
import type { Replica, StartReplica } from '../run/rehearse.js';

/** How long a rehearsal waits for the replica's registry, which decides within a second. */
export const rehearsalWaitMs = 60_000;

/** How fast the replica's registry decides: the rehearsal waits for it, not the real registry's days. */
const replicaRegistryDelayMs = 200;

export const startReplica: StartReplica = async (snapshotFile, account) => {
  const [{ startEmulator }, { asCliError }] = await Promise.all([import('../emulator/index.js'), import('./emulator.js')]);
  const authToken = randomBytes(24).toString('hex');
  let emulator;
  try {
    emulator = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      accounts: [{ authId: account, authToken }],
      dataFile: snapshotFile,
      registryDelayMs: replicaRegistryDelayMs,
    });
  } catch (error) {
    throw asCliError(error);
  }
  const running = emulator;
  // No rate limit of its own beyond the emulator's: the replica is this run's alone.
  const client = new ApiClient({
    baseUrl: running.url,
    credentials: { authId: account, authToken },
    limiter: new Limiter({ concurrency: 8, requests: 10_000, periodMs: 1_000 }, systemClock),
  });
  const replica: Replica = {
    client,
    close: async () => {
      await client.close();
      await running.close();
    },
  };
  return replica;
};
