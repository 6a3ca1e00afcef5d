import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, cleanEnv, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * `telform show plan.json` (the templates run it before apply) says whether the plan's seal was
 * verified, and lists unmanaged objects exactly as `plan` did.
 */
let harness: EmulatorForCli;
let folder: string;
let offline: Record<string, string>;

const show = (args: string[], env: Record<string, string> = offline) => runCli(['show', ...args], { cwd: folder, env });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-show-'));
  // The account's token, and an endpoint nothing listens on: show sends no request.
  offline = { ...harness.env, TELFORM_ENDPOINT: 'http://127.0.0.1:9' };
  await writeFile(
    path.join(folder, 'acl.yaml'),
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name: 'shown' },
      spec: { ip_addresses: ['192.0.2.70'] },
    }),
  );
  expect(
    (
      await callApi(harness.emulator, 'POST', '/Zentrunk/IPAccessControlList/', {
        name: 'by-hand',
        ip_addresses: ['192.0.2.71'],
      })
    ).status,
  ).toBe(201);
  const plan = await runCli(['plan', '-f', 'acl.yaml', '-o', 'plan.json'], { cwd: folder, env: harness.env });
  expect(plan.code).toBe(0);
  expect(plan.stdout).not.toContain('Unmanaged objects');
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('telform show', () => {
  it('says the seal was verified with the account token, and shows no unmanaged section the plan did not', async () => {
    const run = await show(['plan.json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      "plan.json: its integrity seal was verified with this environment's auth token: it is the plan telform plan -o wrote\n",
    );
    expect(run.stdout).toContain('  # TrunkIpAcl/shown will be created');
    expect(run.stdout).not.toContain('Unmanaged objects');
    expect(run.stdout).not.toContain('warning:');
    const unmanaged = await show(['plan.json', '--show-unmanaged']);
    expect(unmanaged.stdout).toContain('Unmanaged objects (neither in the manifests nor in the state):\n');
    expect(unmanaged.stdout).toMatch(/\n {4}TrunkIpAcl [\w-]+ \(by-hand\)\n/);
  });

  it('warns, in every format, about an edited plan, one without a seal, and one it could not verify', async () => {
    const saved = JSON.parse(await readFile(path.join(folder, 'plan.json'), 'utf8')) as Record<string, unknown> & {
      changes: Array<{ reasons: string[] }>;
    };
    (saved.changes[0] as { reasons: string[] }).reasons = ['nothing to worry about'];
    await writeFile(path.join(folder, 'edited.json'), JSON.stringify(saved));
    const { seal: _seal, ...unsealed } = saved;
    void _seal;
    await writeFile(path.join(folder, 'unsealed.json'), JSON.stringify(unsealed));

    const edited = await show(['edited.json']);
    expect(edited.code).toBe(0);
    expect(edited.stdout).toContain(
      'warning: edited.json was changed after telform plan wrote it (its integrity seal does not match): this is not the plan that was made, and apply will refuse it\n',
    );
    const markdown = await show(['edited.json', '--format', 'markdown']);
    expect(markdown.stdout).toContain('edited.json was changed after telform plan wrote it');
    const json = await show(['unsealed.json', '--format', 'json']);
    expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toContain(
      'unsealed.json has no integrity seal: it was not written by telform plan -o, and apply will refuse it',
    );
    const noToken = await show(['plan.json'], cleanEnv());
    expect(noToken.stdout).toContain(
      'warning: the integrity seal of plan.json was not verified: no auth token in the environment (TELFORM_AUTH_TOKEN or PLIVO_AUTH_TOKEN); apply verifies it before it sends anything\n',
    );
    const otherToken = await show(['plan.json'], { ...offline, TELFORM_AUTH_TOKEN: 'another-token-entirely' });
    expect(otherToken.stdout).toContain(
      "warning: the integrity seal of plan.json was not verified: it was sealed with another auth token than this environment's (another account's, or one rotated since), and apply with this token will refuse it\n",
    );
  });
});
