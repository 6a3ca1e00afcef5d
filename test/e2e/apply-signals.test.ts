import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cliPath, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/** SIGINT or SIGTERM during an apply: one line says what was interrupted and that the next run settles it; the signal still ends the process. */
let harness: EmulatorForCli;
let folder: string;

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli({ latency: 150 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-signals-'));
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

/** Starts an apply and sends `signal` once stderr shows a line matching `when`. */
function applyInterrupted(
  args: string[],
  signal: NodeJS.Signals,
  when = /^created {2}/m,
  env: Record<string, string> = harness.env,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'apply', ...args, '--auto-approve', '--parallelism', '2'], {
      cwd: folder,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let sent = false;
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!sent && when.test(stderr)) {
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
        JSON.stringify({
          apiVersion: 'telform/v1',
          kind: 'TrunkIpAcl',
          metadata: { name: `${signal.toLowerCase()}-${index}` },
          spec: { ip_addresses: [`192.0.2.${index + 1}`] },
        }),
      );
      await writeFile(file, documents.join('\n---\n'));
      const state = `${signal}.state.json`;
      const run = await applyInterrupted(['-f', file, '--state', state], signal);
      // Ended by the signal itself, as before: a shell reports 130 (SIGINT) or 143 (SIGTERM).
      expect(run.signal).toBe(signal);
      const last = run.stderr.trimEnd().split('\n').at(-1) ?? '';
      expect(last).toMatch(
        new RegExp(
          `^telform apply interrupted by ${signal}: \\d+ of 20 operations finished, \\d+ under way; the state's journal records what was under way, and the next telform plan or apply settles it$`,
        ),
      );
      const next = await runCli(['apply', '-f', file, '--state', state, '--auto-approve'], {
        cwd: folder,
        env: harness.env,
      });
      expect(next.code).toBe(0);
      const after = await runCli(['plan', '-f', file, '--state', state, '--detailed-exitcode'], {
        cwd: folder,
        env: harness.env,
      });
      expect(after.code).toBe(0);
    });
  }
});

describe('an apply interrupted while it claims the account', () => {
  it('says so, ends by SIGINT (130), and the next apply finishes the claim', { timeout: 60_000 }, async () => {
    const file = path.join(folder, 'claim.yaml');
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'TrunkIpAcl',
        metadata: { name: 'claimed' },
        spec: { ip_addresses: ['192.0.2.77'] },
      }),
    );
    const markerPath = `/v1/Account/${harness.env.TELFORM_AUTH_ID}/SipAuth/IpAccessControlList/`;
    const run = await new Promise<{ signal: NodeJS.Signals | null; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cliPath, 'apply', '-f', file, '--state', 'claim.state.json', '--auto-approve'],
        { cwd: folder, env: harness.env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stdout.resume();
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      // The marker's create is the claim's second request; the read that checks it (150 ms of latency) is still to come.
      const watch = setInterval(() => {
        if (
          harness.emulator.runtime.log
            .list({ type: 'request' })
            .some((entry) => entry.method === 'POST' && entry.path === markerPath)
        ) {
          clearInterval(watch);
          child.kill('SIGINT');
        }
      }, 10);
      child.on('error', reject);
      child.on('close', (_code, received) => {
        clearInterval(watch);
        resolve({ signal: received, stderr });
      });
    });
    expect(run.signal).toBe('SIGINT');
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
      `telform apply interrupted by SIGINT: it was claiming account ${harness.env.TELFORM_AUTH_ID} for the state claim.state.json (its ownership marker, the first write); nothing else was sent, and the next telform apply of this state finishes the claim`,
    );
    expect(
      harness.emulator.runtime.log
        .list({ type: 'request' })
        .filter((entry) => entry.method !== 'GET')
        .map((entry) => entry.path),
    ).toEqual([markerPath]);
    const next = await runCli(['apply', '-f', file, '--state', 'claim.state.json', '--auto-approve'], {
      cwd: folder,
      env: harness.env,
    });
    expect(next.code).toBe(0);
  });
});

describe('an apply over accounts interrupted by a signal', () => {
  it('says how many accounts finished, and the next run settles the rest', { timeout: 90_000 }, async () => {
    const documents = Array.from({ length: 6 }, (_, index) =>
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'TrunkIpAcl',
        metadata: { name: `fleet-${index}` },
        spec: { ip_addresses: [`198.51.100.${index + 1}`] },
      }),
    );
    await writeFile(path.join(folder, 'fleet.yaml'), documents.join('\n---\n'));
    // Four accounts of one file, each with its own state (a state owns its account): one at a time.
    const names = ['north', 'south', 'east', 'west'];
    const credentials = names.map((name, index) => ({
      authId: `MAFLEET${String(index + 1).padStart(13, '0')}`,
      authToken: `fleet-token-${name}-`.padEnd(34, '0'),
    }));
    const fleet = await startEmulator({ accounts: credentials.map((account) => ({ ...account })) });
    const accounts = names.map((name) => ({
      name,
      manifests: ['fleet.yaml'],
      credentials: { auth_id_env: `${name.toUpperCase()}_ID`, auth_token_env: `${name.toUpperCase()}_TOKEN` },
    }));
    await writeFile(
      path.join(folder, 'fleet-accounts.yaml'),
      JSON.stringify({ defaults: { state: 'fleet-{account}.json', endpoint: fleet.url }, accounts }),
    );
    const env = {
      ...harness.env,
      ...Object.fromEntries(
        names.flatMap((name, index) => [
          [`${name.toUpperCase()}_ID`, credentials[index]?.authId ?? ''],
          [`${name.toUpperCase()}_TOKEN`, credentials[index]?.authToken ?? ''],
        ]),
      ),
    };
    const args = ['--accounts', 'fleet-accounts.yaml', '--account-parallelism', '1'];
    // Once an account reports progress (not the note that its first apply claims the account).
    const run = await applyInterrupted(args, 'SIGINT', /^\[\w+\] (?!note: )/m, env);
    expect(run.signal).toBe('SIGINT');
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^telform apply --accounts interrupted by SIGINT: [1-3] accounts? finished; each account's state journal records what was under way in it, and the next telform plan or apply settles it$/,
    );
    const next = await runCli(['apply', ...args, '--auto-approve'], { cwd: folder, env });
    expect(next.code).toBe(0);
    await fleet.close();
  });
});
