import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, emulatorForCli, runCli, type CliRun, type EmulatorForCli } from './cli.js';

/** Where `plan -o` writes, and what it refuses to write: a saved plan must be a file that `apply FILE` can apply. */
let harness: EmulatorForCli;
let folder: string;

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

/**
 * The CLI with its stdout piped into `head -n 1` by a shell, as a user's pipeline runs it (a real pipe:
 * Node's own child stdio is a socket); its exit code is telform's.
 */
function intoHead(args: string[]): Promise<CliRun> {
  const quoted = [process.execPath, cliPath, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${quoted} | head -n 1; exit "\${PIPESTATUS[0]}"`], {
      cwd: folder,
      env: harness.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-plan-out-'));
  await writeFile(path.join(folder, 'acl.yaml'), doc('TrunkIpAcl', 'out-acl', { ip_addresses: ['192.0.2.40'] }));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('plan -o', () => {
  it('into a folder that does not exist is a user error naming the folder', async () => {
    const run = await cli(['plan', '-f', 'acl.yaml', '-o', 'plans/today/plan.json']);
    expect(run.stderr).toBe(
      'error: -o plans/today/plan.json: the folder plans/today does not exist; create it first, or write elsewhere\n',
    );
    expect(run.code).toBe(1);
  });

  it('to /dev/stdout in a pipeline ends at once with a user error (it never reads its own output)', async () => {
    const run = await intoHead(['plan', '-f', 'acl.yaml', '-o', '/dev/stdout']);
    expect(run.stderr).toBe(
      'error: -o /dev/stdout is not a regular file (a device, a pipe or a socket); a saved plan is written to a file of its own (such as plan.json) for telform apply FILE, and --format json prints the plan on stdout\n',
    );
    expect(run.code).toBe(1);
  }, 20_000);

  it('refuses a plan whose secrets are literals in the manifests: apply FILE could never send them', async () => {
    await writeFile(
      path.join(folder, 'literal.yaml'),
      [
        'apiVersion: telform/v1',
        'kind: SipCredential',
        'metadata:',
        '  name: desk',
        'spec:',
        '  username: desk.phones',
        '  password: "Literal#Pass-12345"',
        '',
      ].join('\n'),
    );
    const run = await cli(['plan', '-f', 'literal.yaml', '-o', 'literal-plan.json']);
    expect(run.stderr).toContain(
      'error: -o literal-plan.json: SipCredential/desk (literal.yaml:4) has its password as a literal in the manifest, and a saved plan never holds secret values, so telform apply literal-plan.json could not set it; write it as { fromEnv: VAR } or { fromFile: PATH }, or apply with -f\n',
    );
    expect(run.code).toBe(1);
    expect(existsSync(path.join(folder, 'literal-plan.json'))).toBe(false);
  });
});
