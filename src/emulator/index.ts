/**
 * The emulator's public entry: what the CLI and tests start and configure. Nothing but the CLI (and
 * tests) imports the emulator.
 */
export { startEmulator, type EmulatorInternals, type RunningEmulator } from './start.js';
export {
  defaultAccount,
  resolvePort,
  type EmulatorAccount,
  type EmulatorConfig,
  type EmulatorOptions,
  type SeedInput,
} from './options.js';
export { EmulatorStartError, type EmulatorStartErrorCode } from './start-error.js';
export { startEmbeddedEmulator, type EmbeddedEmulator, type EmbeddedEmulatorOptions } from './embedded.js';
export type { Controls } from './controls.js';
export { isLoopbackHost } from './loopback.js';
export { parseFaultSpec } from './faults.js';
export { resolveRateLimit } from './rate-limit.js';
