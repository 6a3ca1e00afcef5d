import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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

describe('scripts/check-cycles.mjs', () => {
  it('passes a tree whose imports point one way', async () => {
    const root = await tree({
      'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/b.ts': "import type { C } from './sub/index.js';\nexport const b = 1;\nexport type B = C;\n",
      'src/sub/index.ts': 'export type C = number;\n',
    });
    expect(await check(root)).toEqual({ code: 0, stdout: 'No import cycles in src.\n', stderr: '' });
  });

  it('fails on each cycle, type-only and re-exports included, naming its files in order', async () => {
    const root = await tree({
      'src/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'src/b.ts': "export type { A as B } from './a.js';\nimport { d } from './d.js';\n",
      'src/c.ts': "import {\n  d,\n} from './d.js';\nexport const c = d;\n",
      'src/d.ts': "export const d = 1;\nexport const load = () => import('./c.js');\n",
      'src/e.ts': "import { a } from './a.js';\n",
    });
    expect(await check(root)).toEqual({
      code: 1,
      stdout: '',
      stderr: '2 import cycles in src:\n  src/a.ts -> src/b.ts -> src/a.ts\n  src/c.ts -> src/d.ts -> src/c.ts\n',
    });
  });
});
