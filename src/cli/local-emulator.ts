// An emulator started in this process on 127.0.0.1 (port 0), serving one account with a token of its
// own, and a client for it: what a rehearsal's replica and a `telform test` run each stand on. Only the
// CLI starts emulators (the emulator shares no code with the reconciler), so run/ is handed these.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../api/client.js';
import { Limiter } from '../api/limiter.js';
import { systemClock } from '../util/clock.js';

interface LocalEmulatorOptions {
  account: string;
  /** A snapshot to load (kept in memory, never written back); a new account without it. */
  dataFile?: string;
  /** How long the registry keeps a submission under review. */
  registryDelayMs: number;
}

interface LocalEmulator {
  url: string;
  authToken: string;
  client: ApiClient;
  close(): Promise<void>;
}

export async function startLocalEmulator(options: LocalEmulatorOptions): Promise<LocalEmulator> {
  const [{ startEmulator }, { asCliError }] = await Promise.all([
    import('../emulator/index.js'),
    import('./emulator.js'),
  ]);
  const authToken = randomBytes(24).toString('hex');
  let started;
  try {
    started = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      accounts: [{ authId: options.account, authToken }],
      registryDelayMs: options.registryDelayMs,
      ...(options.dataFile === undefined ? {} : { dataFile: options.dataFile }),
    });
  } catch (error) {
    throw asCliError(error);
  }
  const emulator = started;
  // No rate limit of its own beyond the emulator's: it serves this run alone.
  const client = new ApiClient({
    baseUrl: emulator.url,
    credentials: { authId: options.account, authToken },
    limiter: new Limiter({ concurrency: 8, requests: 10_000, periodMs: 1_000 }, systemClock),
  });
  return {
    url: emulator.url,
    authToken,
    client,
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
}
