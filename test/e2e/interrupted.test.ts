import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, callApi, cliPath, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { demoSecrets, examplesDir } from './examples.js';

/** An apply killed (SIGKILL) in the middle converges on the next run, with no duplicate. */
let harness: EmulatorForCli;
let folder: string;

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli({ latency: 150, registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-interrupted-'));
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

async function listNames(): Promise<string[]> {
  const names: string[] = [];
  for (let offset = 0; ; offset += 20) {
    const { body } = await callApi(harness.emulator, 'GET', `/Zentrunk/IPAccessControlList/?limit=20&offset=${offset}`);
    const page = body as { objects: Array<{ name: string }>; meta: { next: string | null } };
    names.push(...page.objects.map((item) => item.name));
    if (!page.meta.next) return names.sort();
  }
}

describe('an interrupted apply', () => {
  it(
    'is finished by the next apply without duplicating anything, after a SIGKILL at any moment',
    { timeout: 120_000 },
    async () => {
      const documents = Array.from({ length: 40 }, (_, index) =>
        JSON.stringify({
          apiVersion: 'telform/v1',
          kind: 'TrunkIpAcl',
          metadata: { name: `site-${index}` },
          spec: { ip_addresses: [`192.0.2.${index + 1}`] },
        }),
      );
      const file = path.join(folder, 'sites.yaml');
      await writeFile(file, documents.join('\n---\n'));
      // With 150 ms per request and 2 at a time, a whole apply takes over 3 s: each kill lands mid-way.
      for (const killAfterMs of [900, 1_300, 1_700]) {
        const child = spawn(process.execPath, [cliPath, 'apply', '-f', file, '--auto-approve', '--parallelism', '2'], {
          cwd: folder,
          env: harness.env,
          stdio: 'ignore',
        });
        const exited = new Promise((resolve) => child.on('close', resolve));
        await new Promise((resolve) => setTimeout(resolve, killAfterMs));
        child.kill('SIGKILL');
        await exited;
      }
      expect((await listNames()).length).toBeLessThan(40);
      const finish = await runCli(['apply', '-f', file, '--auto-approve'], { cwd: folder, env: harness.env });
      expect(finish.stderr).not.toContain('FAILED');
      expect(finish.code).toBe(0);
      expect(await listNames()).toEqual(Array.from({ length: 40 }, (_, index) => `site-${index}`).sort());
      const again = await runCli(['plan', '-f', file, '--detailed-exitcode'], { cwd: folder, env: harness.env });
      expect(again.code).toBe(0);
    },
  );
});

describe('10DLC without --wait', () => {
  it('registers the profile and the brand, leaves its campaigns pending (exit 0), and a later apply registers them', async () => {
    const env = { ...harness.env, ...demoSecrets() };
    const file = path.join(examplesDir, '10dlc');
    const first = await runCli(['apply', '-f', file, '--auto-approve', '--state', 'tendlc.json'], { cwd: folder, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'Apply complete: 2 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 4. Blocked: 0. Failed: 0.',
    );
    expect(first.stderr).toContain(
      'pending  Campaign/acme-orders: waits for Brand/acme-retail to be approved by the registry; run apply again later (or use --wait)',
    );
    const plan = await runCli(['plan', '-f', file, '--state', 'tendlc.json'], { cwd: folder, env });
    expect(plan.stdout).toContain('  # Campaign/acme-orders waits for the registry');
    expect((await runCli(['drift', '-f', file, '--state', 'tendlc.json'], { cwd: folder, env })).code).toBe(3);

    await advanceClock(harness.emulator, 61_000);
    const second = await runCli(['apply', '-f', file, '--auto-approve', '--state', 'tendlc.json'], {
      cwd: folder,
      env,
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Apply complete: 2 created');
  });
});
