import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cliPath, runCli } from './cli.js';

/**
 * The completion scripts: the bash one loaded by a real bash, completing commands, flags, kinds for
 * explain, and addresses from the manifests and the state; the zsh and fish ones as printed.
 */
const run = promisify(execFile);
let folder: string;
let env: Record<string, string>;

/** What bash's completion of the words offers, the last word being completed. */
async function complete(words: string[]): Promise<string[]> {
  const script = [
    'source <(telform completion bash)',
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_telform',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd: folder, env });
  return stdout.split('\n').filter((line) => line !== '');
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-completion-'));
  // `telform` on the PATH, as an installed CLI would be.
  await mkdir(path.join(folder, 'bin'));
  await writeFile(path.join(folder, 'bin/telform'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  await chmod(path.join(folder, 'bin/telform'), 0o755);
  env = cleanEnv({ PATH: `${path.join(folder, 'bin')}:${process.env.PATH ?? ''}` });
  const doc = (kind: string, name: string, spec: string) =>
    `apiVersion: telform/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec}\n`;
  await writeFile(
    path.join(folder, 'pbx.yaml'),
    [
      doc('TrunkIpAcl', 'office', '  ip_addresses: [203.0.113.10]'),
      doc('Trunk', 'pbx-out', '  trunk_direction: outbound\n  ipacl_uuid: { ref: office }'),
    ].join('---\n'),
  );
  const entry = (kind: string, name: string, id: string) => ({
    kind,
    name,
    id,
    applied_spec: {},
    secrets: {},
    updated_at: '2026-01-01T00:00:00.000Z',
  });
  await writeFile(
    path.join(folder, 'telform.state.json'),
    JSON.stringify({
      format_version: 1,
      lineage: 'l',
      endpoint: 'local',
      account: 'MAEMULATOR0000000001',
      serial: 1,
      resources: {
        'Trunk/pbx-old': entry('Trunk', 'pbx-old', 'tr-1'),
        'TrunkIpAcl/office': entry('TrunkIpAcl', 'office', 'acl-1'),
      },
    }),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('telform completion bash', () => {
  it('completes commands, flags and the kinds explain takes', async () => {
    expect(await complete(['telform', 'pl'])).toEqual(['plan']);
    expect(await complete(['telform', 'plan', '--tar'])).toEqual(['--target']);
    expect(await complete(['telform', 'explain', 'Trunk'])).toEqual(['TrunkCredential', 'TrunkIpAcl', 'Trunk']);
    expect(await complete(['telform', 'state', 'm'])).toEqual(['mv', 'migrate']);
  });

  it('completes addresses for --target from the manifests on the line and the state, and for state commands from the state', async () => {
    expect(await complete(['telform', 'plan', '-f', 'pbx.yaml', '--target', 'Trunk/'])).toEqual([
      'Trunk/pbx-old',
      'Trunk/pbx-out',
    ]);
    expect(await complete(['telform', 'apply', '--exclude', 'Tr'])).toEqual(['Trunk/pbx-old', 'TrunkIpAcl/office']);
    expect(await complete(['telform', 'state', 'show', '-f', 'pbx.yaml', 'Trunk/'])).toEqual(['Trunk/pbx-old']);
  });

  it('prints a zsh and a fish script, and refuses another shell', async () => {
    const zsh = await runCli(['completion', 'zsh'], { cwd: folder, env });
    expect(zsh.stdout.split('\n').slice(0, 2)).toEqual([
      '#compdef telform',
      'autoload -U +X bashcompinit && bashcompinit',
    ]);
    const fish = await runCli(['completion', 'fish'], { cwd: folder, env });
    expect(fish.stdout).toContain(
      "complete -c telform -n '__fish_seen_subcommand_from plan' -l target -x -a '(__telform_addresses all)'",
    );
    const other = await runCli(['completion', 'tcsh'], { cwd: folder, env });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      "error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.",
    );
  });
});
