import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

// A test's `start:` may be a snapshot of an account telform manages: the account's ownership marker
// is in the snapshot, and it must not refuse the test's fresh state as another owner (issue 46 item 6).
let harness: EmulatorForCli;
let folder: string;

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-test-start-'));
  await mkdir(path.join(folder, 'm'));
  await writeFile(
    path.join(folder, 'm', 'acl.yaml'),
    'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [192.0.2.60]\n',
  );
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('telform test from a snapshot of a managed account', () => {
  it('plans and applies on the replica with the test state, the marker left out of its start', async () => {
    const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
    expect((await cli(['apply', '-f', 'm', '--auto-approve'])).code).toBe(0);
    expect((await cli(['snapshot', '--out', 'managed.snapshot.json'])).code).toBe(0);
    expect(await readFile(path.join(folder, 'managed.snapshot.json'), 'utf8')).toContain('"telform-owner:');
    await writeFile(
      path.join(folder, 'managed.tftest.yaml'),
      [
        'apiVersion: telform/v1',
        'kind: Test',
        'start: managed.snapshot.json',
        'manifests: [m/]',
        'tests:',
        '  - name: the managed account converges under the test state',
        '    steps:',
        '      - apply: {}',
        '        assert: ["plan.changes.exists(c, c.address == \\"TrunkIpAcl/office\\" && c.action == \\"adopt\\")"]',
        '',
      ].join('\n'),
    );
    const run = await runCli(['test', 'managed.tftest.yaml'], { cwd: folder, env: cleanEnv() });
    expect(run.stdout).toContain('1 test: 1 passed, 0 failed');
    expect(run.code).toBe(0);
  });
});
