import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/** SIGINT or SIGTERM during an apply: one line says what was interrupted and that the next run settles it; the signal still ends the process. */
let harness: EmulatorForCli;
let folder: string;

beforeAll(async () => {
  harness = await emulatorForCli({ latency: 150 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-signals-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

/** Starts an apply and sends `signal` once it has finished its first operation. */
function applyInterrupted(file: string, state: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'apply', '-f', file, '--state', state, '--auto-approve', '--parallelism', '2'], {
      cwd: folder,
      env: harness.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let sent = false;
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!sent && /^created {2}/m.test(stderr)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code, received) => resolve({ code, signal: received, stderr }));
  });
}

describe('an apply interrupted by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`says so on ${signal}, and the next apply settles it`, { timeout: 60_000 }, async () => {
      const file = path.join(folder, `${signal}.yaml`);
      const documents = Array.from({ length: 20 }, (_, index) =>
        JSON.stringify({ apiVersion: 'telform/v1', kind: 'TrunkIpAcl', metadata: { name: `${signal.toLowerCase()}-${index}` }, spec: { ip_addresses: [`192.0.2.${index + 1}`] } }),
      );
      await writeFile(file, documents.join('\n---\n'));
      const state = `${signal}.state.json`;
      const run = await applyInterrupted(file, state, signal);
      // Ended by the signal itself, as before: a shell reports 130 (SIGINT) or 143 (SIGTERM).
      expect(run.signal).toBe(signal);
      const last = run.stderr.trimEnd().split('\n').at(-1) ?? '';
      expect(last).toMatch(
        new RegExp(
          `^telform apply interrupted by ${signal}: \\d+ of 20 operations finished, \\d+ under way; the state's journal records what was under way, and the next telform plan or apply settles it$`,
        ),
      );
      const next = await runCli(['apply', '-f', file, '--state', state, '--auto-approve'], { cwd: folder, env: harness.env });
      expect(next.code).toBe(0);
      const after = await runCli(['plan', '-f', file, '--state', state, '--detailed-exitcode'], { cwd: folder, env: harness.env });
      expect(after.code).toBe(0);
    });
  }
});
