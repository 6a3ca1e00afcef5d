// Runs a page's examples (test/docs/examples.ts) as a reader would: in order, in one shell, in a fresh
// folder holding a copy of examples/, with `telform` the built CLI and no credentials or CI in the
// environment; then compares each command's output and exit status with what the page shows.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareOutput, isAbridged, type DocPage, type ShownCommand } from './examples.js';

const repository = path.resolve(import.meta.dirname, '../..');

interface RunOptions {
  /** The page's name in failure messages, e.g. `docs/commands.md`. */
  name: string;
  /** Stop the page after this long (its shell and everything it started). */
  timeoutMs?: number;
  /** Copy examples/ into the folder (default true). */
  withExamples?: boolean;
}

/** Runs every runnable example of `page`; returns one message per failure, each `page:line: what`. */
export async function runPage(page: DocPage, options: RunOptions): Promise<string[]> {
  const commands = page.steps.flatMap((step) => (step.kind === 'commands' ? step.commands : []));
  if (commands.length === 0) return [];
  const root = await mkdtemp(path.join(tmpdir(), 'telform-docs-'));
  try {
    const folder = path.join(root, 'work');
    const bin = path.join(root, 'bin');
    await mkdir(bin, { recursive: true });
    await mkdir(folder);
    if (options.withExamples !== false)
      await cp(path.join(repository, 'examples'), path.join(folder, 'examples'), { recursive: true });
    const shim = path.join(bin, 'telform');
    await writeFile(shim, `#!/bin/sh\nexec node ${JSON.stringify(path.join(repository, 'dist/cli/main.js'))} "$@"\n`);
    await chmod(shim, 0o755);
    const ports = new Map<number, number>();
    for (const shown of page.ports) ports.set(shown, await freePort());
    const script = pageScript(page, ports, path.join(root, 'logs'));
    const output = await runShell(script, folder, root, bin, options.timeoutMs ?? 240_000);
    const results = splitResults(output.stdout);
    const failures: string[] = [];
    commands.forEach((command, index) => {
      const result = results.get(index);
      const where = `${options.name}:${command.line}`;
      if (!result) {
        failures.push(
          `${where}: \`${command.command}\` did not finish${output.timedOut ? ' (the page timed out)' : ''}`,
        );
        return;
      }
      const actual = unmapPorts(result.output, ports);
      const mismatch = compareOutput(command.output, actual);
      if (mismatch) {
        failures.push(
          `${options.name}:${mismatch.line ?? command.line}: output of \`${command.command}\` (line ${command.line}) differs\n` +
            `  expected: ${mismatch.expected}\n` +
            `  actual:   ${mismatch.actual}\n` +
            `  the whole output:\n${indent(actual)}`,
        );
      } else if (result.exit !== command.exit) {
        failures.push(
          `${where}: \`${command.command}\` exited ${result.exit}, the page shows ${command.exit}` +
            `${command.exit === 0 ? ' (an [exit N] line under its output shows another)' : ''}\n  the whole output:\n${indent(actual)}`,
        );
      }
    });
    return failures;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const resultMarker = '\u001eDOCTEST';

/** One shell script for the whole page: files written and commands run in page order, each command's end marked. */
function pageScript(page: DocPage, ports: ReadonlyMap<number, number>, logs: string): string {
  const lines = [
    'set +e',
    `__dt_logs=${quote(logs)}`,
    'mkdir -p "$__dt_logs"',
    // Waits until a background command has printed N lines, has ended, or 30 s have passed.
    '__dt_wait() { __dt_n=0; while [ "$(wc -l < "$1")" -lt "$2" ] && kill -0 "$3" 2>/dev/null && [ $__dt_n -lt 600 ]; do sleep 0.05; __dt_n=$((__dt_n+1)); done; }',
  ];
  let index = 0;
  for (const step of page.steps) {
    if (step.kind === 'skip') continue;
    if (step.kind === 'file') {
      const end = `__DT_EOF_${randomBytes(6).toString('hex')}`;
      lines.push(`mkdir -p "$(dirname ${quote(step.path)})"`, `cat > ${quote(step.path)} <<'${end}'`);
      lines.push(`${step.content}${end}`);
      continue;
    }
    for (const command of step.commands) {
      lines.push(...commandScript(command, mapPorts(command.command, ports), index));
      index += 1;
    }
  }
  lines.push('jobs -p | xargs -r kill 2>/dev/null', 'wait 2>/dev/null', '');
  return lines.join('\n');
}

function commandScript(command: ShownCommand, text: string, index: number): string[] {
  const end = `printf '\\n${resultMarker} ${index} %d\\n' "$__dt_status"`;
  if (!command.background) return [`{ ${text}`, '} </dev/null 2>&1', '__dt_status=$?', end];
  const log = `"$__dt_logs/${index}"`;
  const shown = Math.max(1, command.output.filter((item) => !isAbridged(item.text)).length);
  // The log exists before the command starts, so the wait never reads a file not yet made.
  return [
    `: >${log}`,
    `{ ${text}`,
    `} </dev/null >>${log} 2>&1 &`,
    `__dt_wait ${log} ${shown} $!`,
    `head -n ${shown} ${log}`,
    '__dt_status=0',
    end,
  ];
}

function splitResults(stdout: string): Map<number, { output: string; exit: number }> {
  const results = new Map<number, { output: string; exit: number }>();
  const pattern = new RegExp(`\\n${resultMarker} (\\d+) (\\d+)\\n`, 'g');
  let from = 0;
  for (const match of stdout.matchAll(pattern)) {
    results.set(Number(match[1]), { output: stdout.slice(from, match.index), exit: Number(match[2]) });
    from = match.index + match[0].length;
  }
  return results;
}

async function runShell(
  script: string,
  folder: string,
  home: string,
  bin: string,
  timeoutMs: number,
): Promise<{ stdout: string; timedOut: boolean }> {
  const child = spawn('bash', ['-s'], {
    cwd: folder,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    // A reader's machine: no credentials, no endpoint, not CI, the emulator's default shapes.
    env: {
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: home,
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      TMPDIR: tmpdir(),
    },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopGroup(child.pid);
  }, timeoutMs);
  child.stdin.end(script);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(timer);
  // Anything the page left running (a background command the script could not stop).
  stopGroup(child.pid);
  return { stdout, timedOut };
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function mapPorts(text: string, ports: ReadonlyMap<number, number>): string {
  let mapped = text;
  for (const [shown, real] of ports) mapped = mapped.replace(new RegExp(`\\b${shown}\\b`, 'g'), String(real));
  return mapped;
}

function unmapPorts(text: string, ports: ReadonlyMap<number, number>): string {
  let mapped = text;
  for (const [shown, real] of ports) mapped = mapped.replace(new RegExp(`\\b${real}\\b`, 'g'), String(shown));
  return mapped;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The output under a failure, its first 80 lines. */
function indent(text: string): string {
  const lines = text.trimEnd().split('\n');
  const shown = lines.slice(0, 80).map((line) => `    | ${line}`);
  if (lines.length > 80) shown.push(`    | (${lines.length - 80} more lines)`);
  return shown.join('\n');
}
