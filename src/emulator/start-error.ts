/**
 * A user-facing failure of the emulator's configuration or start: a bad option value, an unreadable
 * data or seed file, a data file held by another process. The message is one sentence naming the
 * place; the CLI prints it as is (without a stack) and exits 1. Anything else thrown while starting is
 * a bug. The emulator shares no code with the reconciler, so this is its own type.
 */
export type EmulatorStartErrorCode =
  'invalid_option' | 'data_file_unreadable' | 'data_file_locked' | 'seed_file_invalid' | 'listen_failed';

export class EmulatorStartError extends Error {
  constructor(
    readonly code: EmulatorStartErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EmulatorStartError';
  }
}

/** Shorthand for the many option checks: an `invalid_option` error. */
export function invalidOption(message: string): EmulatorStartError {
  return new EmulatorStartError('invalid_option', message);
}
