import { resolveOptions, type EmulatorConfig, type EmulatorOptions } from './options.js';
import { accountInitializers } from './routes/index.js';
import { Runtime } from './runtime.js';
import { EmulatorServer } from './server.js';
import { createEmulatorState } from './state.js';

export { defaultAccount, type EmulatorAccount, type EmulatorOptions } from './options.js';

export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  host: string;
  port: number;
  config: EmulatorConfig;
  /** For in-process tests: direct access to the clock, the state and the request log. */
  runtime: Runtime;
  /** Stops accepting requests, closes every connection and resolves when done. */
  close(): Promise<void>;
}

/** Starts an emulator of the API (spec/api.md) and resolves once it is listening. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const config = resolveOptions(options);
  const runtime = new Runtime(config, createEmulatorState(), accountInitializers);
  for (const account of config.accounts) runtime.ensureAccount(account.authId, account.authToken);
  const server = new EmulatorServer(runtime);
  const address = await server.listen(config.host, config.port);
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    host: address.address,
    port: address.port,
    config,
    runtime,
    close: () => server.close(),
  };
}
