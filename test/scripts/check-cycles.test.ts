import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = path.resolve('scripts/check-cycles.mjs');
const folders: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'telform-cycles-'));
  folders.push(root);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

async function check(root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, 'src'], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const passed = (folder: string) => `No import cycles and no imports against the folder ranks in ${folder}.\n`;
const order = 'cli > serve > run > render > manifest > engine > state > resources > api > util';

describe('scripts/check-cycles.mjs', () => {
  it('passes a tree whose imports point one way', async () => {
    const root = await tree({
      'src/util/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/util/b.ts': "import type { C } from './sub/index.js';\nexport const b = 1;\nexport type B = C;\n",
      'src/util/sub/index.ts': 'export type C = number;\n',
    });
    expect(await check(root)).toEqual({ code: 0, stdout: passed('src'), stderr: '' });
  });

  it('fails on each cycle, type-only and re-exports included, naming its files in order', async () => {
    const root = await tree({
      'src/util/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'src/util/b.ts': "export type { A as B } from './a.js';\nimport { d } from './d.js';\n",
      'src/util/c.ts': "import {\n  d,\n} from './d.js';\nexport const c = d;\n",
      'src/util/d.ts': "export const d = 1;\nexport const load = () => import('./c.js');\n",
      'src/util/e.ts': "import { a } from './a.js';\n",
    });
    expect(await check(root)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '2 import cycles in src:\n  src/util/a.ts -> src/util/b.ts -> src/util/a.ts\n  src/util/c.ts -> src/util/d.ts -> src/util/c.ts\n',
    });
  });

  it("passes the project's own src", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'telform-cycles-'));
    folders.push(root);
    await cp(path.resolve('src'), path.join(root, 'src'), { recursive: true });
    expect(await check(root)).toEqual({ code: 0, stdout: passed('src'), stderr: '' });
  });

  it('fails on a back-edge planted in a copy of src, and on a command that skips run/ (the door), naming the import', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'telform-cycles-'));
    folders.push(root);
    await cp(path.resolve('src'), path.join(root, 'src'), { recursive: true });
    // The engine reaching up into the operations layer: type-only, and still a back-edge.
    await appendFile(
      path.join(root, 'src/engine/kinds.ts'),
      "import type { RunContext } from '../run/context.js';\nexport type Planted = RunContext;\n",
    );
    // A command reading the ledger itself (not excepted), and a file that stopped needing its exception.
    await appendFile(
      path.join(root, 'src/cli/history.ts'),
      "import type { LedgerStore } from '../state/ledger-store.js';\nexport type Planted = LedgerStore;\n",
    );
    await writeFile(path.join(root, 'src/cli/progress.ts'), 'export const progress = 1;\n');
    expect(await check(root)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '3 violations of the folder ranks in src:\n' +
        `  src/engine/kinds.ts imports src/run/context.ts: engine may not import run: imports point down (${order})\n` +
        '  src/cli/history.ts imports src/state/ledger-store.ts: cli reaches engine, state, resources through run/ (move the work into an operation, or add an exception with its reason in scripts/check-cycles.mjs)\n' +
        '  the door exception "cli/progress.ts -> engine/apply.ts" matches no import: remove it from scripts/check-cycles.mjs\n',
    });
  });

  it('keeps the emulator apart: it imports nothing of the reconciler, and only cli imports it', async () => {
    const root = await tree({
      'src/util/clock.ts': 'export const now = () => 0;\n',
      'src/emulator/start.ts': "import { now } from '../util/clock.js';\nexport const start = now;\n",
      'src/cli/emulator.ts': "export const load = () => import('../emulator/start.js');\n",
      'src/run/session.ts': "import { start } from '../emulator/start.js';\nexport const open = start;\n",
    });
    expect(await check(root)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '2 violations of the folder ranks in src:\n' +
        '  src/emulator/start.ts imports src/util/clock.ts: the emulator imports nothing of the reconciler\n' +
        '  src/run/session.ts imports src/emulator/start.ts: only cli imports the emulator (its entry points start it)\n',
    });
  });

  it('fails on a file outside the ranked folders, so a new folder is given its place first', async () => {
    const root = await tree({ 'src/helpers/x.ts': 'export const x = 1;\n', 'src/main.ts': 'export const y = 2;\n' });
    const result = await check(root);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      '2 violations of the folder ranks in src:\n' +
        '  src/helpers/x.ts is not in a ranked folder (cli, serve, run, render, manifest, engine, state, resources, api, util, emulator); give its folder a rank in scripts/check-cycles.mjs\n' +
        '  src/main.ts is not in a ranked folder (cli, serve, run, render, manifest, engine, state, resources, api, util, emulator); give its folder a rank in scripts/check-cycles.mjs\n',
    );
  });
});
