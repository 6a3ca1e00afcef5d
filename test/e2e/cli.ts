import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defaultAccount, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

/**
 * Helpers for end-to-end tests: the built CLI (`npm run build`) in a child process, against an
 * emulator the test starts on 127.0.0.1 (port 0), with a clean environment.
 */
export const repository = path.resolve(import.meta.dirname, '../..');
export const cliPath = path.join(repository, 'dist/cli/main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment without anything that would steer telform (credentials, endpoint, CI, colour). */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /^(TELFORM_|PLIVO_)/.test(key) ||
      key === 'CI' ||
      key === 'NO_COLOR' ||
      key === 'FORCE_COLOR'
    )
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export function runCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  return startCli(args, options).done;
}

export interface EmulatorForCli {
  emulator: RunningEmulator;
  /** Environment pointing the CLI at this emulator with the default account. */
  env: Record<string, string>;
}

export async function emulatorForCli(options: EmulatorOptions = {}): Promise<EmulatorForCli> {
  const emulator = await startEmulator(options);
  return {
    emulator,
    env: cleanEnv({
      TELFORM_ENDPOINT: emulator.url,
      TELFORM_AUTH_ID: defaultAccount.authId,
      TELFORM_AUTH_TOKEN: defaultAccount.authToken,
    }),
  };
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A request to the emulator's API as the default account, as a user's script would send it. */
export async function callApi(
  emulator: RunningEmulator,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const authorization = `Basic ${Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64')}`;
  const response = await fetch(`${emulator.url}/v1/Account/${defaultAccount.authId}${pathname}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Moves the emulator's clock (registry progress) through its admin route. */
export async function advanceClock(emulator: RunningEmulator, milliseconds: number): Promise<void> {
  await fetch(`${emulator.url}/__emulator/clock/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_ms: milliseconds }),
  });
}

export interface StartedCli {
  pid: number;
  /** Resolves when the process ends. */
  done: Promise<CliRun>;
  kill(signal: NodeJS.Signals): void;
}

/** The built CLI started in the background, for tests that act while it runs (locks, SIGKILL). */
export function startCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): StartedCli {
  if (!existsSync(cliPath)) throw new Error('run `npm run build` first: end-to-end tests drive the built CLI');
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  child.stdin.end(options.input ?? '');
  return { pid: child.pid as number, done, kill: (signal) => child.kill(signal) };
}

/**
 * The lineage of the state that owns the emulator's default account (its ownership marker), for a
 * test whose new state takes the account over from a state it treats as lost.
 */
export async function ownerOf(emulator: RunningEmulator): Promise<string> {
  const page = await callApi(emulator, 'GET', '/SipAuth/IpAccessControlList/?limit=20');
  const owners = (page.body.objects as Array<{ name: string }>)
    .map((acl) => acl.name)
    .filter((name) => name.startsWith('telform-owner:'));
  if (owners.length !== 1) throw new Error(`expected one ownership marker, found ${owners.length}`);
  // The lineage (a UUID); a state owning part of the account has its scope after it.
  return (owners[0] as string).slice('telform-owner:'.length).split(' ')[0] as string;
}
