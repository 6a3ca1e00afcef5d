import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installRsyncSubset } from './rsync.js';

// The rsync that the GitLab template's test gives gitlab-ci-local, run with the very command lines
// gitlab-ci-local uses (its handler's tracked-files copy, the artifacts and cache copies).
let work: string;
let bin: string;

function sh(script: string, cwd: string): { code: number | null; stderr: string } {
  const result = spawnSync('bash', ['-c', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  return { code: result.status, stderr: result.stderr };
}

const write = (file: string, text: string): void => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'telform-rsync-'));
  bin = path.join(work, 'bin');
  installRsyncSubset(bin);
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('the rsync subset given to gitlab-ci-local', () => {
  it('copies the tracked files of a repository, leaves out untracked ones and the state folder, and deletes what went away', () => {
    const project = path.join(work, 'project');
    write(path.join(project, 'manifests/acl.yaml'), 'acl');
    write(path.join(project, 'ci/run.sh'), '#!/bin/sh\n');
    chmodSync(path.join(project, 'ci/run.sh'), 0o755);
    execFileSync('git', ['init', '-q', project]);
    execFileSync('git', ['-C', project, 'add', '-A']);
    write(path.join(project, 'untracked/notes.txt'), 'not in git');
    write(path.join(project, 'scratch.txt'), 'not in git');
    write(path.join(project, '.gitlab-ci-local/builds/old/stale.txt'), 'state');
    write(path.join(project, '.gitlab-ci-local/builds/.docker/gone.txt'), 'deleted since');
    const command = `rsync -a --delete-excluded --delete --exclude-from=<(git ls-files -o --directory | awk '{print "/"$0}') --exclude .gitlab-ci-local/ ./ .gitlab-ci-local/builds/.docker/`;
    expect(sh(command, project)).toEqual({ code: 0, stderr: '' });
    const copy = path.join(project, '.gitlab-ci-local/builds/.docker');
    expect(readFileSync(path.join(copy, 'manifests/acl.yaml'), 'utf8')).toBe('acl');
    expect(statSync(path.join(copy, 'ci/run.sh')).mode & 0o777).toBe(0o755);
    expect(existsSync(path.join(copy, '.git/HEAD'))).toBe(true);
    expect(existsSync(path.join(copy, 'untracked'))).toBe(false);
    expect(existsSync(path.join(copy, 'scratch.txt'))).toBe(false);
    expect(existsSync(path.join(copy, '.gitlab-ci-local'))).toBe(false);
    expect(existsSync(path.join(copy, 'gone.txt'))).toBe(false);
  });

  it('copies artifact paths with their relative paths (-R), leaving out the exclusions', () => {
    const project = path.join(work, 'project');
    write(path.join(project, 'telform-plan.json'), '{}');
    write(path.join(project, 'reports/a/one.md'), 'one');
    write(path.join(project, 'reports/a/skip.log'), 'skip');
    write(path.join(project, 'reports/.gitlab-ci-local/x'), 'state');
    const command = [
      'shopt -s globstar nullglob dotglob',
      'mkdir -p .gitlab-ci-local/artifacts/telform-plan',
      "rsync --exclude '.gitlab-ci-local/**' -Ra --exclude 'reports/**/*.log' telform-plan.json reports .gitlab-ci-local/artifacts/telform-plan/. || true",
    ].join('\n');
    expect(sh(command, project)).toEqual({ code: 0, stderr: '' });
    const copy = path.join(project, '.gitlab-ci-local/artifacts/telform-plan');
    expect(readFileSync(path.join(copy, 'telform-plan.json'), 'utf8')).toBe('{}');
    expect(readFileSync(path.join(copy, 'reports/a/one.md'), 'utf8')).toBe('one');
    expect(existsSync(path.join(copy, 'reports/a/skip.log'))).toBe(false);
    // As in rsync, "dir/**" leaves out what is in the folder, not the folder itself.
    expect(existsSync(path.join(copy, 'reports/.gitlab-ci-local'))).toBe(true);
    expect(existsSync(path.join(copy, 'reports/.gitlab-ci-local/x'))).toBe(false);
  });

  it('reports a missing source with rsync exit code 23 and refuses options it does not implement', () => {
    expect(sh('rsync -Ra missing.json out/.', work)).toEqual({
      code: 23,
      stderr: 'rsync: link_stat "missing.json" failed: No such file or directory (2)\n',
    });
    expect(sh('rsync -az a b', work)).toEqual({
      code: 1,
      stderr: 'rsync (telform test subset): option -az is not supported\n',
    });
  });
});
