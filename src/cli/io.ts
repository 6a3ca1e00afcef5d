import type { CommandIo } from './reconcile.js';
import type { GlobalOptions } from './session.js';

/** The process's streams and environment as commands see them (tests drive the built CLI instead). */
export function processIo(): CommandIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (line) => process.stderr.write(`${line}\n`),
    isTty: Boolean(process.stdout.isTTY),
  };
}

/** Colour only on a terminal, never with `--no-color` or `NO_COLOR` (https://no-color.org). */
export function useColor(globals: GlobalOptions, io: CommandIo): boolean {
  return io.isTty && globals.color !== false && (io.env.NO_COLOR === undefined || io.env.NO_COLOR === '');
}
