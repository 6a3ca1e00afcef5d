import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, repository } from '../e2e/cli.js';

// The pinned install of the CI templates (integrations/install-telform.mjs), with real npm against
// a registry on 127.0.0.1 that serves one small package named telform. What it must do: install
// only an exact version whose tarball has the pinned integrity, with no credential in npm's
// environment and no install script run.
const installer = path.join(repository, 'integrations/install-telform.mjs');
let work: string;
let registry: Server;
let registryUrl: string;
let tarball: Buffer;
let integrity: string;
const seen: Array<{ url: string; authorization: string | undefined }> = [];

interface Run {
  code: number | null;
  output: string;
}

function install(variables: Record<string, string>): Promise<Run> {
  const env = cleanEnv({
    npm_config_registry: registryUrl,
    npm_config_prefix: path.join(work, 'prefix'),
    npm_config_cache: path.join(work, 'cache'),
    npm_config_update_notifier: 'false',
    TELFORM_AUTH_ID: 'MAINSTALLTEST',
    TELFORM_AUTH_TOKEN: 'install-test-token',
    ...variables,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [installer], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'telform-install-'));
  const source = path.join(work, 'package');
  await mkdir(source);
  // An install script that would leak the environment if it ran.
  await writeFile(
    path.join(source, 'package.json'),
    JSON.stringify({
      name: 'telform',
      version: '0.1.0',
      bin: { telform: 'cli.js' },
      scripts: { postinstall: "node -e \"require('fs').writeFileSync('../../leaked', JSON.stringify(process.env))\"" },
    }),
  );
  await writeFile(
    path.join(source, 'cli.js'),
    '#!/usr/bin/env node\nconsole.log("telform 0.1.0 from the loopback registry");\n',
  );
  const name = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], {
    cwd: source,
    encoding: 'utf8',
    env: cleanEnv(),
  }).trim();
  tarball = await readFile(path.join(work, name));
  integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  registry = createServer((request: IncomingMessage, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
    if (request.url === '/telform') {
      const dist = {
        tarball: `${registryUrl}telform/-/telform-0.1.0.tgz`,
        integrity,
        shasum: createHash('sha1').update(tarball).digest('hex'),
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          name: 'telform',
          'dist-tags': { latest: '0.1.0' },
          versions: { '0.1.0': { name: 'telform', version: '0.1.0', bin: { telform: 'cli.js' }, dist } },
        }),
      );
    } else if (request.url === '/telform/-/telform-0.1.0.tgz') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    } else {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => registry?.close(() => resolve()));
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the pinned install of the CI templates', () => {
  it('refuses a range, a tag or a missing integrity before asking the registry anything', async () => {
    for (const version of ['^0.1.0', 'latest', '']) {
      const run = await install({ TELFORM_VERSION: version, TELFORM_INTEGRITY: integrity });
      expect(run.code).toBe(1);
      expect(run.output).toBe(
        `error: TELFORM_VERSION must be an exact version such as 0.1.0 (got "${version}"): a range or a tag installs whatever it points to that day\n`,
      );
    }
    const run = await install({ TELFORM_VERSION: '0.1.0' });
    expect(run).toEqual({
      code: 1,
      output:
        'error: TELFORM_INTEGRITY must be the sha512 integrity of telform@0.1.0 (npm view telform@0.1.0 dist.integrity), so that only that tarball installs\n',
    });
    expect(seen).toEqual([]);
  });

  it('refuses a tarball whose integrity is not the pinned one, installing nothing', async () => {
    const other = `sha512-${createHash('sha512').update('another tarball').digest('base64')}`;
    const run = await install({ TELFORM_VERSION: '0.1.0', TELFORM_INTEGRITY: other });
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      `error: the registry's telform@0.1.0 has integrity ${integrity}, not TELFORM_INTEGRITY ${other}; nothing was installed\n`,
    );
    expect(existsSync(path.join(work, 'prefix/bin/telform'))).toBe(false);
  });

  it('installs the pinned tarball with no install script run and no credential sent', async () => {
    const run = await install({ TELFORM_VERSION: '0.1.0', TELFORM_INTEGRITY: integrity });
    expect(run.code).toBe(0);
    expect(run.output).toContain(`installed telform@0.1.0 (${integrity})\n`);
    expect(execFileSync(path.join(work, 'prefix/bin/telform'), { encoding: 'utf8' })).toBe(
      'telform 0.1.0 from the loopback registry\n',
    );
    expect(existsSync(path.join(work, 'leaked'))).toBe(false);
    expect(seen.every((request) => request.authorization === undefined)).toBe(true);
  });
});
