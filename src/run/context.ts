// What every operation is handed by its caller (the CLI, a service loop, a test): the run's options,
// where it reads and writes besides the account, and how it opens a connection to the account.
// Operations never open a connection themselves: only the CLI knows the embedded emulator, so it
// passes `connect` in, and a test passes one that talks to the emulator it started.
import type { ApiClient } from '../api/client.js';
import { untimed, type StageTimer } from '../util/stage-timer.js';

/** Options every API command accepts (the program-level flags, and per-account overrides of them). */
export interface GlobalOptions {
  endpoint?: string;
  state?: string;
  /** The ledger's workspace in a database state (`--workspace`). */
  workspace?: string;
  /** How long a locking command waits for a lock another run holds, in ms (`--lock-timeout`). */
  lockTimeout?: number;
  /** Use a state `state migrate` retired (`--reopen-retired`). */
  reopenRetired?: boolean;
  color?: boolean;
  quiet?: boolean;
  logHttp?: boolean;
  debug?: boolean;
  parallelism?: number;
  rateLimit?: string;
}

/** What a run talks to: the client, and how the ledger names the endpoint and account. */
export interface Session {
  client: ApiClient;
  /** `local` for the embedded emulator, else the base URL (the ledger is bound to it). */
  endpointLabel: string;
  account: string;
  /** Keys the secret fingerprints and saved-plan seals (never printed). */
  authToken: string;
  close(): Promise<void>;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** Where an operation reads files and variables, and where its notes go (never its results). */
export interface RunIo {
  cwd: string;
  env: Environment;
  /** A note for the user: a line on stderr in the CLI. */
  stderr(line: string): void;
}

/**
 * Opens the session a run talks to, from the run's options and environment. The session is the
 * caller's to build (endpoint resolution, embedded emulator, rate limiter) and the operation's to
 * close.
 */
export type Connect = (globals: GlobalOptions, io: RunIo) => Promise<Session>;

/** What an operation is given besides its own inputs. */
export interface RunContext {
  io: RunIo;
  connect: Connect;
  /** Measures the run's stages (the benchmarks read them); `untimed` by default. */
  timer?: StageTimer;
}

export function timerOf(context: RunContext): StageTimer {
  return context.timer ?? untimed;
}
