import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { cliPath } from './cli.js';

/**
 * `telform serve` from the built CLI in a child process, for end-to-end tests: its events (stdout)
 * and log (stderr) parsed line by line as they come, waits on them, and a stop by signal.
 */

export type Line = Record<string, unknown> & { receivedAt: number };

export interface ServeProcess {
  url: string;
  events: Line[];
  logs: Line[];
  /** Resolves with the first event (from `from` on) matching; rejects after `timeoutMs` with what came. */
  waitForEvent(match: (event: Line) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<Line>;
  waitForLog(match: (line: Line) => boolean, options?: { timeoutMs?: number }): Promise<Line>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderrText(): string;
}

/** A port free right now on 127.0.0.1 (for a callback URL that must be known before serve starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startServeCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<ServeProcess> {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: end-to-end tests drive the built CLI');
  const child = spawn(process.execPath, [cliPath, 'serve', ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Line[] = [];
  const logs: Line[] = [];
  let stderr = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const splitter = (target: Line[], raw: (text: string) => void) => {
    let partial = '';
    return (chunk: Buffer) => {
      const text = chunk.toString();
      raw(text);
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        try {
          target.push({ ...(JSON.parse(line) as Record<string, unknown>), receivedAt: Date.now() });
        } catch {
          target.push({ unparsed: line, receivedAt: Date.now() });
        }
      }
      notify();
    };
  };
  child.stdout.on(
    'data',
    splitter(events, () => undefined),
  );
  child.stderr.on(
    'data',
    splitter(logs, (text) => (stderr += text)),
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  exited.then(notify, notify);
  let ended = false;
  exited.then(
    () => (ended = true),
    () => (ended = true),
  );

  const waitIn = (list: Line[], match: (line: Line) => boolean, from: number, timeoutMs: number, what: string) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const found = list.slice(from).find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (ended) {
          cleanup();
          reject(new Error(`serve ended before the ${what} came; stderr:\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `no matching ${what} within ${timeoutMs} ms; events:\n${events.map((line) => JSON.stringify(line)).join('\n')}\nlog:\n${stderr}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const started: ServeProcess = {
    url: '',
    events,
    logs,
    waitForEvent: (match, { from = 0, timeoutMs = 30_000 } = {}) => waitIn(events, match, from, timeoutMs, 'event'),
    waitForLog: (match, { timeoutMs = 30_000 } = {}) => waitIn(logs, match, 0, timeoutMs, 'log line'),
    stop: async (signal = 'SIGTERM') => {
      if (!ended) child.kill(signal);
      return exited;
    },
    stderrText: () => stderr,
  };
  const listening = await started.waitForLog((line) => line.msg === 'listening', { timeoutMs: 20_000 });
  started.url = listening.url as string;
  return started;
}
