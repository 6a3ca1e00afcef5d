import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { examplesDir } from './examples.js';

/** Defects found by trying telform as a new user and as an adversary, each pinned end to end. */
let harness: EmulatorForCli;
let folder: string;

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(args, { cwd: folder, env: { ...harness.env, ...extraEnv } });
}

function doc(kind: string, name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name, ...metadata }, spec });
}

async function manifests(file: string, documents: string[]): Promise<string> {
  await writeFile(path.join(folder, file), documents.join('\n---\n'));
  return file;
}

beforeAll(async () => {
  // Registrations stay PROCESSING for the whole file: campaigns keep waiting for their brand.
  harness = await emulatorForCli({ registryDelayMs: 3_600_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-hardening-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('plan --detailed-exitcode', () => {
  it('exits 2 while campaigns wait for the registry, though nothing else changes', async () => {
    expect((await cli(['apply', '-f', 'examples/10dlc', '--state', 'tendlc.json', '--auto-approve'])).code).toBe(0);
    const plan = await cli(['plan', '-f', 'examples/10dlc', '--state', 'tendlc.json', '--detailed-exitcode']);
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.\nWaiting on the registry: 2. Blocked: 0.\n');
    expect(plan.code).toBe(2);
  });
});

describe('metadata.protect', () => {
  const acl = (name: string, address: string, protect?: boolean) =>
    doc('TrunkIpAcl', name, { ip_addresses: [address] }, protect === undefined ? {} : { protect });

  it('is recorded in the state: removing the document does not delete a protected resource', async () => {
    const file = await manifests('protect.yaml', [acl('vault', '192.0.2.90', true), acl('keeper', '192.0.2.91')]);
    expect((await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve'])).code).toBe(0);
    const state = JSON.parse(await readFile(path.join(folder, 'protect.json'), 'utf8')) as { resources: Record<string, { protect?: boolean }> };
    expect(state.resources['TrunkIpAcl/vault']?.protect).toBe(true);

    await manifests('protect.yaml', [acl('keeper', '192.0.2.91')]);
    const refused = await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: TrunkIpAcl/vault is protected in the state (an apply recorded metadata.protect: true) and would be deleted; to lift it, apply it once with metadata.protect: false, or run `telform state unprotect TrunkIpAcl/vault`\n',
    );

    const lifted = await cli(['state', 'unprotect', 'TrunkIpAcl/vault', '--state', 'protect.json']);
    expect(lifted.stdout).toBe('TrunkIpAcl/vault is no longer protected in the state (a manifest that still says metadata.protect: true protects it again)\n');
    const deleted = await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('deleted  TrunkIpAcl/vault');
  });

  it('is lifted by an apply that records metadata.protect: false, and only then', async () => {
    const file = await manifests('lift.yaml', [acl('guarded', '192.0.2.92', true), acl('other', '192.0.2.93')]);
    expect((await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve'])).code).toBe(0);
    await manifests('lift.yaml', [acl('guarded', '192.0.2.92', false), acl('other', '192.0.2.93')]);
    const recorded = await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve']);
    expect(recorded.code).toBe(0);
    expect(recorded.stderr).toContain('recorded in the state: TrunkIpAcl/guarded is no longer protected\n');
    expect(recorded.stdout).toContain('Nothing to apply.\n');
    await manifests('lift.yaml', [acl('other', '192.0.2.93')]);
    const deleted = await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('deleted  TrunkIpAcl/guarded');
  });
});
