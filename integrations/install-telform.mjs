#!/usr/bin/env node
// Installs telform for a pipeline, pinned: exactly TELFORM_VERSION, and only if the tarball the
// registry serves for it has exactly TELFORM_INTEGRITY (the `dist.integrity` of the version the team
// reviewed: `npm view telform@VERSION dist.integrity`). A name on a public registry can change hands
// and a range or a tag can move; a pinned version with its integrity cannot. The credentials of the
// run (the account's token, the code host's tokens, the database password) are removed from npm's
// environment, and no install script runs.
// Used by the GitLab template (before_script) and by the GitHub action (input telform-version).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

const version = process.env.TELFORM_VERSION ?? '';
const integrity = process.env.TELFORM_INTEGRITY ?? '';
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/.test(version)) {
  fail(`TELFORM_VERSION must be an exact version such as 0.1.0 (got "${version}"): a range or a tag installs whatever it points to that day`);
}
if (!/^sha512-[A-Za-z0-9+/]{86}==$/.test(integrity)) {
  fail(`TELFORM_INTEGRITY must be the sha512 integrity of telform@${version} (npm view telform@${version} dist.integrity), so that only that tarball installs`);
}

const credential = /^(TELFORM_AUTH_|PLIVO_AUTH_)|^(TELFORM_GITLAB_TOKEN|CI_JOB_TOKEN|GITHUB_TOKEN|PGPASSWORD|TELFORM_STATE)$/;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !credential.test(name)));
const folder = await mkdtemp(join(tmpdir(), 'telform-install-'));
try {
  const packed = spawnSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', folder, `telform@${version}`], { env, encoding: 'utf8' });
  if (packed.status !== 0) fail(`npm pack telform@${version} failed: ${packed.stderr.trim() || `exit ${packed.status}`}`);
  const name = packed.stdout.trim().split('\n').pop() ?? '';
  const tarball = join(folder, name);
  const actual = `sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`;
  if (actual !== integrity) {
    fail(`the registry's telform@${version} has integrity ${actual}, not TELFORM_INTEGRITY ${integrity}; nothing was installed`);
  }
  const installed = spawnSync('npm', ['install', '--global', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { env, stdio: 'inherit' });
  if (installed.status !== 0) fail(`installing telform@${version} failed (exit ${installed.status})`);
  process.stderr.write(`installed telform@${version} (${integrity})\n`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
