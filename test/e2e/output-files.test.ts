import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

// Every file telform writes goes through one guard (issue 46 item 2): each output option against the
// state, a manifest, a folder, a folder that does not exist and a link to a file elsewhere is refused
// with one line and the target's bytes unchanged, and a new file is written exactly where asked; no
// temporary file is left behind.
let harness: EmulatorForCli;
let root: string;
let folder: string;
let elsewhere: string;

const acl = (address: string) =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: guarded\nspec:\n  ip_addresses: [${address}]\n`;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

beforeAll(async () => {
  harness = await emulatorForCli();
  root = await mkdtemp(path.join(tmpdir(), 'telform-e2e-output-'));
  folder = path.join(root, 'work');
  elsewhere = path.join(root, 'elsewhere', 'target.json');
  await mkdir(path.join(folder, 'sub'), { recursive: true });
  await mkdir(path.dirname(elsewhere));
  await writeFile(elsewhere, '{"kept": true}\n');
  await symlink(elsewhere, path.join(folder, 'link.json'));
  await writeFile(path.join(folder, 'm.yaml'), acl('192.0.2.10'));
  expect((await cli(['apply', '-f', 'm.yaml', '--auto-approve'])).code).toBe(0);
  await writeFile(path.join(folder, 'm.yaml'), acl('192.0.2.11'));
  expect((await cli(['apply', '-f', 'm.yaml', '--auto-approve'])).code).toBe(0);
  await writeFile(
    path.join(folder, 't.tftest.yaml'),
    'apiVersion: telform/v1\nkind: Test\nmanifests: [m.yaml]\ntests:\n  - name: plans\n    steps:\n      - plan: {}\n',
  );
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(root, { recursive: true, force: true });
});

const writers: Array<{ option: string; args: (target: string) => string[]; written: RegExp }> = [
  { option: '-o', args: (target) => ['plan', '-f', 'm.yaml', '-o', target], written: /"format_version"/ },
  { option: '-o', args: (target) => ['revert', '2', '-o', target], written: /"format_version"/ },
  {
    option: '--out',
    args: (target) => ['snapshot', '--out', target],
    written: /^\{\n {2}"format": "telform-snapshot"/,
  },
  { option: '--junit', args: (target) => ['test', 't.tftest.yaml', '--junit', target], written: /^<\?xml/ },
];

const refusals: Array<{ target: string; says: string | (() => string) }> = [
  {
    target: 'telform.state.json',
    says: 'is the state telform.state.json or a file kept beside it (journal, history, lock, backups); choose another file',
  },
  { target: 'telform.state.json.history', says: 'is the state telform.state.json or a file kept beside it' },
  { target: 'm.yaml', says: '' },
  { target: 'sub', says: 'is a folder; name a file in it' },
  { target: 'missing/out.json', says: ': the folder missing does not exist; create it first, or write elsewhere' },
  {
    target: 'link.json',
    says: () => `is a symbolic link (to ${elsewhere}); telform writes a file only where it is named`,
  },
];

/** A file's text; a folder's sorted entries; nothing when missing. */
async function bytesOf(file: string): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  if ((await stat(file)).isDirectory()) return (await readdir(file)).sort().join('\n');
  return readFile(file, 'utf8');
}

async function temporaries(): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).filter((name) => name.endsWith('.tmp'));
}

describe.each(writers)('$args.0 $option', ({ option, args, written }) => {
  it.each(refusals)('refuses $target, leaving it as it was', async ({ target, says }) => {
    const before = await bytesOf(path.join(folder, target === 'link.json' ? '../elsewhere/target.json' : target));
    const run = await cli(args(target));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^error: ${option} ${target}`));
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const said = typeof says === 'string' ? says : says();
    if (said) expect(run.stderr).toContain(said);
    expect(run.stderr).not.toContain('This is a bug');
    expect(await bytesOf(path.join(folder, target === 'link.json' ? '../elsewhere/target.json' : target))).toBe(before);
    expect(await temporaries()).toEqual([]);
  });

  it('writes a new file exactly where asked', async () => {
    const target = `sub/${args('x')[0]}-out.${option === '--junit' ? 'xml' : 'json'}`;
    const run = await cli(args(target));
    expect([0, 2]).toContain(run.code);
    expect(await readFile(path.join(folder, target), 'utf8')).toMatch(written);
    expect(await temporaries()).toEqual([]);
  });
});

describe('import --out', () => {
  const importInto = async (out: string): Promise<{ code: number | null; stderr: string; files: string[] }> => {
    const fresh = await emulatorForCli();
    try {
      const run = await runCli(['import', '--kinds', 'Profile', '--out', out, '--state', 'import.state.json'], {
        cwd: folder,
        env: fresh.env,
      });
      const written = path.join(folder, out);
      const files = existsSync(written) && (await stat(written)).isDirectory() ? await readdir(written) : [];
      return { code: run.code, stderr: run.stderr, files };
    } finally {
      await fresh.emulator.close();
      await rm(path.join(folder, 'import.state.json'), { force: true });
      await rm(path.join(folder, 'import.state.json.history'), { force: true });
    }
  };

  it.each([
    ['telform.state.json', ' is a file; --out names a folder to write into'],
    ['m.yaml', ' is a file; --out names a folder to write into'],
    ['link.json', ' is a file; --out names a folder to write into'],
    ['sub/../m.yaml/x', ': lies under a file, not a folder'],
  ])('refuses %s, leaving it as it was', async (target, says) => {
    const before = await bytesOf(path.join(folder, target));
    const run = await importInto(target);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: --out ${target}${says}\n`);
    expect(await bytesOf(path.join(folder, target))).toBe(before);
    expect(await bytesOf(elsewhere)).toBe('{"kept": true}\n');
  });

  it.each(['sub/imported', 'missing-folder/imported'])('writes into %s, made when missing', async (out) => {
    const run = await importInto(out);
    expect(run.code).toBe(0);
    expect(run.files.some((file) => file.endsWith('.yaml'))).toBe(true);
    expect(await temporaries()).toEqual([]);
  });
});
