// Where a run came from, for its history record: the git commit the manifests were read at (and
// whether they had uncommitted edits), the CI run and its actor from the CI's own variables (GitHub
// Actions, GitLab CI), else the local user and host. Nothing here fails a run: what cannot be found
// is left out.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import type { RunOrigin } from '../state/history.js';
import type { Environment } from './context.js';

/** `files`: the manifests (relative to `cwd`); the first one's folder is where git is asked. */
export async function runOrigin(env: Environment, cwd: string, files: readonly string[]): Promise<RunOrigin> {
  const origin: RunOrigin = {};
  const folder = files[0] === undefined ? cwd : path.dirname(path.resolve(cwd, files[0]));
  const commit = (await inWorkTree(folder))
    ? await git(folder, ['rev-parse', '--verify', '--quiet', 'HEAD'])
    : undefined;
  if (commit && /^[0-9a-f]{40,64}$/.test(commit)) {
    origin.commit = commit;
    // Only the manifests' own edits count (a run that read none, a state edit, has none to show).
    if (files.length > 0) {
      const changed = await git(folder, [
        'status',
        '--porcelain',
        '--untracked-files=normal',
        '--',
        ...files.map((file) => path.resolve(cwd, file)),
      ]);
      if (changed) origin.dirty = true;
    }
  } else {
    const fromCi = env.GITHUB_SHA || env.CI_COMMIT_SHA;
    if (fromCi && /^[0-9a-f]{40,64}$/.test(fromCi)) origin.commit = fromCi;
  }
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_RUN_ID) {
    const attempt =
      env.GITHUB_RUN_ATTEMPT && env.GITHUB_RUN_ATTEMPT !== '1' ? ` (attempt ${env.GITHUB_RUN_ATTEMPT})` : '';
    const url =
      env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
        ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
        : undefined;
    origin.ci = { system: 'github-actions', run: `${env.GITHUB_RUN_ID}${attempt}`, ...(url ? { url } : {}) };
    if (env.GITHUB_ACTOR) origin.actor = env.GITHUB_ACTOR;
  } else if (env.GITLAB_CI === 'true' && (env.CI_JOB_ID || env.CI_PIPELINE_ID)) {
    const run =
      env.CI_PIPELINE_ID && env.CI_JOB_ID
        ? `${env.CI_PIPELINE_ID}/${env.CI_JOB_ID}`
        : (env.CI_JOB_ID ?? env.CI_PIPELINE_ID ?? '');
    origin.ci = { system: 'gitlab-ci', run, ...(env.CI_JOB_URL ? { url: env.CI_JOB_URL } : {}) };
    const actor = env.GITLAB_USER_LOGIN || env.GITLAB_USER_NAME;
    if (actor) origin.actor = actor;
  }
  origin.actor ??= localUser(env);
  if (!origin.ci) origin.host = hostname();
  return origin;
}

function localUser(env: Environment): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the environment's name, if any.
    return env.USER || env.USERNAME || 'unknown';
  }
}

/**
 * Whether `folder` or a folder above it holds a `.git` (or git is pointed elsewhere by GIT_DIR). Asked
 * first because starting git costs tens of milliseconds of the event loop (the process is forked from
 * this one), and serve records an origin with every registry move it sees: manifests outside any work
 * tree (a container's mounted files) then cost no process at all.
 */
async function inWorkTree(folder: string): Promise<boolean> {
  if (process.env.GIT_DIR) return true;
  for (let current = folder; ; current = path.dirname(current)) {
    if (
      await stat(path.join(current, '.git')).then(
        () => true,
        () => false,
      )
    )
      return true;
    if (path.dirname(current) === current) return false;
  }
}

/** A git command's trimmed output, or undefined when git is missing or the folder is not in a work tree. */
function git(folder: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', folder, ...args], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim());
    });
  });
}
