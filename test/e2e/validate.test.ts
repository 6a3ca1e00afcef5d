import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `telform validate` as a user runs it: the built CLI (`npm run build`) in a child process, with
 * whole outputs compared. A recording HTTP server stands where the API would be, to show that
 * validate sends nothing even when an endpoint and credentials are configured.
 */
const repository = path.resolve(import.meta.dirname, '../..');
const cli = path.join(repository, 'dist/cli/main.js');
let folder: string;
let server: Server;
let endpoint: string;
const requests: string[] = [];

beforeAll(async () => {
  expect(existsSync(cli), 'run `npm run build` first: this test drives the built CLI').toBe(true);
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-validate-'));
  server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((closed) => server.close(closed));
  await rm(folder, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? repository,
      env: {
        PATH: process.env['PATH'] ?? '',
        TELFORM_ENDPOINT: endpoint,
        TELFORM_AUTH_ID: 'MAE2EVALIDATE0000001',
        TELFORM_AUTH_TOKEN: 'e2e-token',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** `examples/demo-secrets.env` as variables. */
async function demoSecrets(): Promise<Record<string, string>> {
  const text = await readFile(path.join(repository, 'examples/demo-secrets.env'), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/^([A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1] as string, match[2] as string]),
  );
}

describe('telform validate (built CLI)', () => {
  it('passes every example, and their secrets with --check-secrets', async () => {
    expect(await run(['validate', '-f', 'examples/'])).toEqual({
      code: 0,
      stdout: 'valid: 27 resources in 5 files\n',
      stderr: '',
    });
    const secrets = await demoSecrets();
    expect(Object.keys(secrets)).toHaveLength(5);
    expect(await run(['validate', '-f', 'examples/', '--check-secrets'], { env: secrets })).toEqual({
      code: 0,
      stdout: 'valid: 27 resources in 5 files\n',
      stderr: '',
    });
  });

  it('reports every problem of a broken manifest at its place and exits 1, with no stack trace', async () => {
    await writeFile(
      path.join(folder, 'broken.yaml'),
      [
        'apiVersion: telform/v1',
        'kind: Trunks',
        'metadata:',
        '  name: pbx',
        'spec: {}',
        '---',
        'apiVersion: telform/v1',
        'kind: TrunkCredential',
        'metadata:',
        '  name: login',
        'spec:',
        '  username: login01',
        '  password: { fromEnv: TRUNK_PASSWORD }',
        '  passwrd: x',
        '',
      ].join('\n'),
    );
    const result = await run(['validate', '-f', 'broken.yaml'], { cwd: folder });
    expect(result).toEqual({
      code: 1,
      stdout: [
        'broken.yaml:2:7  kind: unknown kind "Trunks"; did you mean "Trunk"?',
        'broken.yaml:14:3  TrunkCredential/login  spec.passwrd: unknown field "passwrd"; did you mean "password"?',
        'invalid: 2 errors, 0 warnings in 1 file',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('sends no request and starts no emulator', async () => {
    requests.length = 0;
    const result = await run(['validate', '-f', path.join(repository, 'examples'), '--check-secrets'], {
      cwd: folder,
      env: await demoSecrets(),
    });
    expect(result.code).toBe(0);
    expect(requests).toEqual([]);
    expect(await readdir(folder)).not.toContain('.telform');
  });

  it('is listed in --help with its exit codes', async () => {
    const help = await run(['validate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: telform validate [options]');
    expect(help.stdout).toContain('file:line:col  Kind/name  field: message');
    expect(help.stdout).toContain('Exit codes: 0 valid (warnings allowed), 1 invalid.');
  });
});
