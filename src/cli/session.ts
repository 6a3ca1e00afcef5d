import { ApiClient } from '../api/client.js';
import { resolveConnection } from '../api/connection.js';
import { Limiter, defaultLimiterOptions, parseRateLimit } from '../api/limiter.js';
import type { EndpointPools } from '../api/pools.js';
import { systemClock } from '../util/clock.js';
import { parseDuration } from '../util/duration.js';
import { printable } from '../util/printable.js';
import { TelformError } from '../util/errors.js';
import type { Connect, GlobalOptions, RunContext, Session } from '../run/context.js';
import { terminalStatus, type CommandIo } from './io.js';
import { commandTimer } from './timings.js';

export interface SessionIo {
  env: Readonly<Record<string, string | undefined>>;
  /** Notes for the user (stderr), e.g. that the embedded emulator is used. */
  note(line: string): void;
  /** `--log-http` lines (stderr). */
  logHttp(line: string): void;
  /** On a terminal: a status line of what an unanswered request waits for (undefined clears it). */
  status?: (text: string | undefined) => void;
  /** Connection pools shared with the process's other sessions (serve); the session's own otherwise. */
  pools?: EndpointPools;
}

/**
 * Resolves endpoint and credentials (docs/commands.md, connecting to the API), starts the embedded emulator when that is
 * where the run goes (the only place besides `telform emulator` that knows the emulator), and
 * builds the client with the run's one shared limiter.
 */
export async function openSession(options: GlobalOptions, io: SessionIo): Promise<Session> {
  const target = resolveConnection({ endpointFlag: options.endpoint, env: io.env });
  const rate = options.rateLimit === undefined ? defaultLimiterOptions : parseRateLimit(options.rateLimit);
  if (!rate) throw new TelformError('bad_option', `--rate-limit "${options.rateLimit}" is not N/PERIOD (e.g. 300/5s)`);
  const limiter = new Limiter(
    {
      concurrency: options.parallelism ?? defaultLimiterOptions.concurrency,
      requests: rate.requests,
      periodMs: rate.periodMs,
    },
    systemClock,
  );
  const logHttp = options.logHttp ? io.logHttp : undefined;
  const watch = io.status && !options.quiet ? { onSlow: io.status } : {};

  if (target.kind === 'local') {
    // The emulator is loaded only when the run goes there: a run against an endpoint would pay
    // ~80 ms of start-up for it.
    const [{ startEmbeddedEmulator }, { asCliError }] = await Promise.all([
      import('../emulator/embedded.js'),
      import('./emulator.js'),
    ]);
    let embedded: Awaited<ReturnType<typeof startEmbeddedEmulator>>;
    try {
      embedded = await startEmbeddedEmulator({ emulator: embeddedEmulatorOptions(io.env) });
    } catch (error) {
      throw asCliError(error);
    }
    io.note(
      target.reason === 'requested'
        ? `using the embedded emulator (state in ${embedded.dataFile})`
        : `no API credentials set: using the embedded emulator (state in ${embedded.dataFile}); set TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN for a real account`,
    );
    const client = new ApiClient({
      baseUrl: embedded.url,
      credentials: { authId: embedded.authId, authToken: embedded.authToken },
      limiter,
      ...(logHttp ? { logHttp } : {}),
      ...watch,
    });
    return {
      client,
      endpointLabel: 'local',
      account: embedded.authId,
      authToken: embedded.authToken,
      close: async () => {
        await client.close();
        await embedded.close();
      },
    };
  }
  const pools = io.pools ? { pools: io.pools } : {};
  const client = new ApiClient({
    baseUrl: target.baseUrl,
    credentials: target.credentials,
    limiter,
    ...pools,
    ...(logHttp ? { logHttp } : {}),
    ...watch,
  });
  return {
    client,
    endpointLabel: target.baseUrl,
    account: target.credentials.authId,
    authToken: target.credentials.authToken,
    close: () => client.close(),
  };
}

/**
 * What the environment asks of the embedded emulator (it has no flags of its own):
 * `TELFORM_EMULATOR_REGISTRY_DELAY`, how long its registry keeps a submission under review (a duration,
 * default 5s), so a demo or a docs example need not wait.
 */
export function embeddedEmulatorOptions(env: Readonly<Record<string, string | undefined>>): {
  registryDelayMs?: number;
} {
  const delay = env.TELFORM_EMULATOR_REGISTRY_DELAY;
  if (delay === undefined || delay === '') return {};
  const ms = delay === '0' ? 0 : parseDuration(delay);
  if (ms === undefined)
    throw new TelformError(
      'bad_option',
      `TELFORM_EMULATOR_REGISTRY_DELAY "${printable(delay)}" is not a duration (e.g. 0s, 500ms, 5s)`,
    );
  return { registryDelayMs: ms };
}

/** How the CLI's operations connect: notes and `--log-http` on stderr, a status line on a terminal. */
export const connectCli: Connect = (globals, io) =>
  openSession(globals, { env: io.env, note: io.stderr, logHttp: io.stderr, ...terminalStatus() });

/** What the CLI hands every operation. */
export function cliContext(io: CommandIo): RunContext {
  return { io, connect: connectCli, timer: commandTimer };
}
