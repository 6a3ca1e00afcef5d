import type { GlobalOptions } from '../run/context.js';

/** What a command reads and writes besides the account: its streams, environment and directory. */
export interface CommandIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(line: string): void;
  isTty: boolean;
}

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

/** A status line redrawn in place on a terminal's stderr (undefined clears it); nothing elsewhere. */
export function terminalStatus(): { status?: (text: string | undefined) => void } {
  if (!process.stderr.isTTY) return {};
  return {
    status: (text) => {
      const width = process.stderr.columns ?? 80;
      process.stderr.write(`\r\u001b[K${text === undefined ? '' : text.slice(0, Math.max(10, width - 1))}`);
    },
  };
}
