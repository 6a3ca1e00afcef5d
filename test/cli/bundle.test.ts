import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cliPath, repository, runCli, type CliRun } from '../e2e/cli.js';

/**
 * The bundled CLI (`npm run build`, scripts/bundle.mjs) as it is shipped: dist/cli/main.js and the
 * chunks beside it. Which source files a chunk holds comes from its source map.
 */
const bundle = path.dirname(cliPath);

function chunkOf(command: string): string {
  const name = readdirSync(bundle).find((file) => new RegExp(`^${command}-[A-Z0-9]+\\.js$`).test(file));
  if (!name) throw new Error(`no chunk for ${command} in ${bundle}`);
  return name;
}

/** What loading a chunk loads before it runs: its static imports, followed (`import(…)` waits until called). */
function staticClosure(entry: string): { chunks: Set<string>; packages: Set<string> } {
  const chunks = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  for (let chunk = queue.pop(); chunk !== undefined; chunk = queue.pop()) {
    const text = readFileSync(path.join(bundle, chunk), 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)";|^import\s*"([^"]+)";/gms)) {
      const specifier = (match[1] ?? match[2]) as string;
      if (!specifier.startsWith('./')) {
        packages.add(specifier);
        continue;
      }
      const target = specifier.slice(2);
      if (!chunks.has(target)) {
        chunks.add(target);
        queue.push(target);
      }
    }
  }
  return { chunks, packages };
}

/** The source files (relative to the repository) the chunks were built from. */
function sourcesOf(chunks: Set<string>): string[] {
  const sources: string[] = [];
  for (const chunk of chunks) {
    const map = JSON.parse(readFileSync(path.join(bundle, `${chunk}.map`), 'utf8')) as { sources: string[] };
    sources.push(
      ...map.sources.map((source) => path.relative(path.resolve(bundle, '../..'), path.resolve(bundle, source))),
    );
  }
  return sources;
}

/** A copy of the built CLI run as the shipped one is (runCli runs the checkout's). */
function runBuilt(main: string, args: readonly string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], { cwd, env: cleanEnv() }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

let directory: string;
beforeAll(async () => {
  expect(existsSync(cliPath), 'run `npm run build` first: this test reads the built CLI').toBe(true);
  directory = await mkdtemp(path.join(tmpdir(), 'telform-bundle-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the bundled CLI', () => {
  it('starts with commander and the program only: no command, no manifest or API code', () => {
    const sources = sourcesOf(staticClosure('main.js').chunks);
    expect(
      sources.filter((source) =>
        /^src\/(engine|api|resources|emulator|render)\/|^src\/cli\/(plan|apply|drift|import|validate|emulator|state)\.ts$/.test(
          source,
        ),
      ),
    ).toEqual([]);
    expect(sources.filter((source) => /node_modules\/(zod|yaml|js-yaml)\//.test(source))).toEqual([]);
  });

  it.each(['plan', 'apply', 'drift', 'import', 'validate'])(
    '%s loads neither the emulator nor the PostgreSQL driver',
    (command) => {
      const { chunks, packages } = staticClosure(chunkOf(command));
      const sources = sourcesOf(chunks);
      expect(sources).toContain(`src/cli/${command}.ts`);
      expect(
        sources.filter((source) => source.startsWith('src/emulator/') || source.endsWith('postgres-backend.ts')),
      ).toEqual([]);
      expect([...packages].filter((name) => name === 'pg' || name.startsWith('pg/'))).toEqual([]);
    },
  );

  it('the embedded emulator has a chunk of its own, loaded by a dynamic import', () => {
    expect(sourcesOf(staticClosure(chunkOf('embedded')).chunks)).toContain('src/emulator/embedded.ts');
  });

  it('no chunk holds the emulator beside reconciler code (a library both use may be shared)', () => {
    const chunks = readdirSync(bundle).filter((file) => file.endsWith('.js'));
    const mixed = chunks.filter((chunk) => {
      const sources = sourcesOf(new Set([chunk]));
      return (
        sources.some((source) => source.startsWith('src/emulator/')) &&
        sources.some((source) => /^src\/(engine|api|manifest|resources|render)\/|^src\/errors\.ts$/.test(source))
      );
    });
    expect(
      chunks.some((chunk) => sourcesOf(new Set([chunk])).some((source) => source.startsWith('src/emulator/'))),
    ).toBe(true);
    expect(mixed).toEqual([]);
  });

  it('validate loads no HTTP client', () => {
    const sources = sourcesOf(staticClosure(chunkOf('validate')).chunks);
    expect(
      sources.filter((source) => source.startsWith('src/api/client') || source.startsWith('src/api/http-pool')),
    ).toEqual([]);
  });

  it('a stack trace under --debug names the source file and line, not the bundle', async () => {
    // Only an internal error has a stack trace to print. A real one: a package installed without its
    // schemas/ folder (package.json ships it), where import writes the manifest schema beside what it imported.
    const install = path.join(directory, 'broken-install');
    await mkdir(path.join(install, 'dist'), { recursive: true });
    await cp(bundle, path.join(install, 'dist', 'cli'), { recursive: true });
    await cp(path.join(repository, 'package.json'), path.join(install, 'package.json'));
    await symlink(path.join(repository, 'node_modules'), path.join(install, 'node_modules'));
    const cwd = path.join(directory, 'import-here');
    await mkdir(cwd);
    const run = await runBuilt(
      path.join(install, 'dist', 'cli', 'main.js'),
      ['import', '--out', 'imported', '--debug'],
      cwd,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^internal error: ENOENT: .*schemas[/\\]manifest\.schema\.json'$/m);
    expect(run.stderr).toMatch(
      /\n {4}at ownManifestSchema \(.*[/\\]src[/\\]manifest[/\\]schema-reference\.ts:\d+:\d+\)\n/,
    );
  });

  it('--debug prints no stack trace for a user error', async () => {
    const run = await runCli(['explain', 'NoSuchKind', '--debug'], { cwd: directory, env: cleanEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without --debug a user error is one line and no stack', async () => {
    const run = await runCli(['explain', 'NoSuchKind'], { cwd: directory, env: cleanEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
