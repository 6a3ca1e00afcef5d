import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, repository, runCli } from './cli.js';
import { demoSecrets } from './examples.js';

/**
 * `npm run demo` and the README's tour agree: the demo keeps its state where a user's next
 * `telform plan -f examples/` finds it, runs twice in a row, and runs where CI is set.
 */
const run = promisify(execFile);
let clone: string;

beforeAll(async () => {
  // What a fresh clone holds after `npm install` (the built dist/ and node_modules), nothing more.
  clone = await mkdtemp(path.join(tmpdir(), 'telform-e2e-demo-'));
  for (const part of ['scripts', 'examples', 'dist', 'package.json'])
    await cp(path.join(repository, part), path.join(clone, part), { recursive: true });
  await symlink(path.join(repository, 'node_modules'), path.join(clone, 'node_modules'));
  await writeFile(path.join(clone, '.gitignore'), '');
});
afterAll(async () => {
  await rm(clone, { recursive: true, force: true });
});

describe('npm run demo', () => {
  it('leaves the state where the tour finds it: the next plan says "No changes", state list lists it', async () => {
    const env = cleanEnv({ CI: 'true' });
    const first = await run('sh', ['scripts/demo.sh'], { cwd: clone, env });
    // The examples' three numbers exist in the account: attaching and linking them are updates.
    expect(first.stdout).toMatch(
      /Apply complete: \d+ created, 3 updated, 0 replaced, 0 deleted, 0 adopted\. Pending: 0\. Blocked: 0\. Failed: 0\./,
    );
    const second = await run('sh', ['scripts/demo.sh'], { cwd: clone, env });
    expect(second.stdout).toContain('No changes. The account matches the manifests.');
    // The tour, by hand, without credentials: the embedded emulator and the default state file.
    const plan = await runCli(['plan', '-f', 'examples/', '--detailed-exitcode'], {
      cwd: clone,
      env: cleanEnv(demoSecrets()),
    });
    expect(plan.stdout).toContain('No changes. The account matches the manifests.');
    expect(plan.code).toBe(0);
    // The account holds a campaign shared with it (its brand is another account's): the replica holds
    // it too, and the rehearsal of the examples goes through (issue 46 item 5).
    const rehearsed = await runCli(['plan', '-f', 'examples/', '--rehearse'], {
      cwd: clone,
      env: cleanEnv(demoSecrets()),
    });
    expect(rehearsed.stdout).toMatch(
      /Rehearsed on a replica of the account \(snapshot taken [^)]+\): it went through\./,
    );
    expect(rehearsed.code).toBe(0);
    const list = await runCli(['state', 'list'], { cwd: clone, env: cleanEnv() });
    expect(list.stdout).toContain('TrunkIpAcl/pbx-office');
    expect(list.code).toBe(0);
  }, 240_000);
});
