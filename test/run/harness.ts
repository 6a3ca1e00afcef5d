// In-process harness for the operations of src/run: an emulator on 127.0.0.1 serving three accounts,
// a temporary folder for manifests, accounts files and states, and a `connect` that builds a client
// as the CLI would (endpoint from the options, credentials from the run's environment).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { Limiter } from '../../src/api/limiter.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import type { Connect, RunContext } from '../../src/run/context.js';
import { openState } from '../../src/run/state-location.js';
import type { LedgerEntry } from '../../src/state/ledger.js';
import { systemClock } from '../../src/util/clock.js';

export const accounts = [
  { authId: 'MAOPSONE000000000001', authToken: 'ops-token-one-00000000000000000000' },
  { authId: 'MAOPSTWO000000000002', authToken: 'ops-token-two-00000000000000000000' },
  // For a test whose state is a third one: an account has one owning state.
  { authId: 'MAOPSTHREE0000000003', authToken: 'ops-token-three-000000000000000000' },
] as const;

export interface Harness {
  emulator: RunningEmulator;
  folder: string;
  /** The environment of a run as the given account (index into `accounts`). */
  envOf(index: number): Record<string, string>;
  /** The context of a run in `folder` with `env`; `notes` collects what it writes to stderr. */
  context(env: Record<string, string>, notes?: string[]): RunContext;
  write(file: string, text: string): Promise<string>;
  /** The ledger entry of `address` in the state file `state` (relative to `folder`). */
  entry(state: string, address: string): Promise<LedgerEntry | undefined>;
  close(): Promise<void>;
}

export const connect: Connect = async (globals, io) => {
  const authId = io.env.TELFORM_AUTH_ID;
  const authToken = io.env.TELFORM_AUTH_TOKEN;
  if (!globals.endpoint || !authId || !authToken)
    throw new Error('the harness connects only with an endpoint and credentials');
  const client = new ApiClient({
    baseUrl: globals.endpoint,
    credentials: { authId, authToken },
    limiter: new Limiter({ concurrency: 8, requests: 300, periodMs: 5_000 }, systemClock),
  });
  return { client, endpointLabel: globals.endpoint, account: authId, authToken, close: () => client.close() };
};

/** `options`: the emulator's, beside its accounts (a short registry delay for a test that waits on it). */
export async function startHarness(options: Omit<EmulatorOptions, 'accounts'> = {}): Promise<Harness> {
  const emulator = await startEmulator({ ...options, accounts: accounts.map((account) => ({ ...account })) });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-run-'));
  return {
    emulator,
    folder,
    envOf: (index) => ({
      TELFORM_AUTH_ID: accounts[index]?.authId ?? '',
      TELFORM_AUTH_TOKEN: accounts[index]?.authToken ?? '',
    }),
    context: (env, notes = []) => ({ io: { cwd: folder, env, stderr: (line) => notes.push(line) }, connect }),
    write: async (file, text) => {
      await writeFile(path.join(folder, file), text);
      return file;
    },
    entry: async (state, address) => {
      const store = await openState({ state: path.join(folder, state) }, {}, { lock: false });
      try {
        return store.ledger.resources[address];
      } finally {
        await store.close();
      }
    },
    close: async () => {
      await emulator.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** One manifest document as YAML-compatible JSON. */
export function documentOf(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name, ...metadata }, spec });
}
