import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { cleanEnv, repository } from './cli.js';
import { demoSecrets } from './examples.js';

// The package as a user gets it: `npm pack` ships the bundle, schemas, examples, README and
// licence (no other dist/ file), and the tarball installed in an empty folder — offline, `pg` and
// its dependencies from the npm cache — answers --version, validates, and plans against its own
// emulator. Needs `npm run build` first, like every e2e test.

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackedFile {
  path: string;
}

let folder: string;
let tarball: string;
let packed: string[];

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * A lock file for an app that depends on the tarball alone: the tarball's runtime dependencies with
 * the versions and integrity hashes this repository's lock pins, so `npm ci --offline` takes them
 * from the npm cache (a lock needs no registry metadata, which the cache may not hold).
 */
function appLock(
  manifest: {
    version: string;
    license: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
  },
  file: string,
) {
  const lock = JSON.parse(readFileSync(path.join(repository, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const found = (name: string, parent: string): string => {
    for (
      let at = parent;
      at !== '';
      at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : ''
    ) {
      if (lock.packages[`${at}/node_modules/${name}`]) return `${at}/node_modules/${name}`;
    }
    return `node_modules/${name}`;
  };
  const packages: Record<string, LockEntry> = {
    '': { name: 'app', dependencies: { telform: `file:${file}` } },
    'node_modules/telform': {
      version: manifest.version,
      resolved: `file:${file}`,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  const queue: Array<[string, string]> = Object.keys(manifest.dependencies).map((name) => [name, '']);
  for (let next = queue.pop(); next; next = queue.pop()) {
    const key = found(next[0], next[1]);
    const entry = lock.packages[key];
    if (!entry || packages[key]) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry;
    packages[key] = kept;
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) queue.push([name, key]);
  }
  return { name: 'app', lockfileVersion: 3, requires: true, packages };
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-package-'));
  // --ignore-scripts: `prepare` would build again; the suite has built already.
  const dry = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repository, env: cleanEnv() });
  packed = (JSON.parse(dry.stdout) as Array<{ files: PackedFile[] }>)[0]?.files.map((file) => file.path) ?? [];
  await run(npm, ['pack', '--ignore-scripts', '--pack-destination', folder], { cwd: repository, env: cleanEnv() });
  const [name] = (await readdir(folder)).filter((file) => file.endsWith('.tgz'));
  tarball = path.join(folder, name as string);
  const app = path.join(folder, 'app');
  await mkdir(app);
  const manifest = JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8'));
  await writeFile(
    path.join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', private: true, dependencies: { telform: `file:../${path.basename(tarball)}` } }, null, 2)}\n`,
  );
  await writeFile(
    path.join(app, 'package-lock.json'),
    `${JSON.stringify(appLock(manifest, `../${path.basename(tarball)}`), null, 2)}\n`,
  );
  await run(npm, ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: app, env: cleanEnv() });
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const installed = () => path.join(folder, 'app');
const telform = (args: string[], env: Record<string, string> = {}) =>
  run(path.join(installed(), 'node_modules/.bin/telform'), args, { cwd: installed(), env: cleanEnv(env) }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({
      code: failed.code,
      stdout: failed.stdout,
      stderr: failed.stderr,
    }),
  );

/** Starts the installed `telform emulator` on a free loopback port; resolves with its URL. */
function startEmulator(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(path.join(installed(), 'node_modules/.bin/telform'), ['emulator', '--port', '0'], {
    cwd: installed(),
    env: cleanEnv(),
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1];
      if (url) resolve({ url, child });
    });
    child.on('exit', (code) => reject(new Error(`telform emulator exited with ${code} before listening`)));
  });
}

describe('the package', () => {
  it('ships the bundle, schemas, examples, README and licence, and no other dist/ file', () => {
    expect(packed.filter((file) => file.startsWith('dist/') && !file.startsWith('dist/cli/'))).toEqual([]);
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/cli/main.js',
        'schemas/manifest.schema.json',
        'examples/pbx/trunks.yaml',
      ]),
    );
    expect(new Set(packed.map((file) => file.split('/')[0]))).toEqual(
      new Set(['LICENSE', 'README.md', 'package.json', 'dist', 'schemas', 'examples', 'docs', 'integrations']),
    );
  });

  it('links from its markdown (README, docs) only to files it ships (issue 33 item 37)', () => {
    const broken: string[] = [];
    for (const file of packed.filter((name) => name.endsWith('.md'))) {
      // Code (fenced blocks, inline spans) holds no links: a regular expression there is not one.
      const text = readFileSync(path.join(repository, file), 'utf8')
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`\n]*`/g, '');
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target)) continue;
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target.split('#')[0] ?? ''));
        if (!packed.some((shipped) => shipped === resolved || shipped.startsWith(`${resolved.replace(/\/$/, '')}/`)))
          broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('depends at run time on pg alone: everything else is in the bundle', () => {
    const manifest = JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(['pg']);
  });

  it('installed from the tarball in an empty folder, runs --version, validate and a plan against its emulator', async () => {
    const version = JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8')).version as string;
    expect(await telform(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });

    const examples = path.join(installed(), 'node_modules/telform/examples/pbx');
    const validated = await telform(['validate', '-f', examples]);
    expect(validated.code).toBe(0);

    const { url, child } = await startEmulator();
    try {
      const env = {
        TELFORM_ENDPOINT: url,
        TELFORM_AUTH_ID: defaultAccount.authId,
        TELFORM_AUTH_TOKEN: defaultAccount.authToken,
      };
      const planned = await telform(['plan', '-f', examples, '--state', 'pbx.state.json'], {
        ...env,
        ...demoSecrets(),
      });
      // Its one note: applying it would claim the account, which nobody owns yet.
      expect(planned.stderr).toMatch(
        /^note: this apply claims account MAEMULATOR0000000001 for the new state pbx\.state\.json: [^\n]+\n$/,
      );
      expect(planned.code).toBe(0);
      expect(planned.stdout).toMatch(/Plan: \d+ to create/);
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});
