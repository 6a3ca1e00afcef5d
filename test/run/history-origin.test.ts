import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrigin } from '../../src/run/history-origin.js';

// Where a run came from: git is asked for the manifests' commit only when they are in a work tree.
// Starting git forks the process (tens of milliseconds of serve's event loop, once per registry move
// it records), so manifests outside any work tree must cost no process. A `git` first on PATH that
// notes each call and hands it to the real one shows which runs asked it.

let folder: string;
let calls: string;
let savedPath: string | undefined;
const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const noted = async () => (await readFile(calls, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-origin-'));
  calls = path.join(folder, 'git-calls');
  await mkdir(path.join(folder, 'bin'));
  await writeFile(path.join(folder, 'bin', 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`);
  await chmod(path.join(folder, 'bin', 'git'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${path.join(folder, 'bin')}${path.delimiter}${savedPath ?? ''}`;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(folder, { recursive: true, force: true });
});

describe('runOrigin', () => {
  it('asks git nothing for manifests outside any work tree, and names the host and user', async () => {
    await mkdir(path.join(folder, 'plain', 'acme'), { recursive: true });
    await writeFile(path.join(folder, 'plain', 'acme', 'acl.yaml'), '');
    const origin = await runOrigin({ USER: 'ops' }, path.join(folder, 'plain'), ['acme/acl.yaml']);
    expect(origin.commit).toBeUndefined();
    expect(origin.host).toEqual(expect.any(String));
    expect(origin.actor).toEqual(expect.any(String));
    expect(await noted()).toEqual([]);
  });

  it("finds the commit of manifests in a work tree's subfolder, and whether they were edited since", async () => {
    const repo = path.join(folder, 'repo');
    await mkdir(path.join(repo, 'acme'), { recursive: true });
    await writeFile(path.join(repo, 'acme', 'acl.yaml'), 'a: 1\n');
    const git = (...args: string[]) =>
      execFileSync(realGit, ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], {
        cwd: repo,
        encoding: 'utf8',
      }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const commit = git('rev-parse', 'HEAD');
    expect(await runOrigin({}, repo, ['acme/acl.yaml'])).toMatchObject({ commit });
    expect((await noted())[0]).toMatch(/rev-parse --verify --quiet HEAD$/);
    await writeFile(path.join(repo, 'acme', 'acl.yaml'), 'a: 2\n');
    expect(await runOrigin({}, repo, ['acme/acl.yaml'])).toMatchObject({ commit, dirty: true });
  });
});
