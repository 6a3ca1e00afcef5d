import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { callApi, cliPath, emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';
import { examplesDir } from './examples.js';

/** Defects found by trying telform as a new user and as an adversary, each pinned end to end. */
let harness: EmulatorForCli;
let folder: string;

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(args, { cwd: folder, env: { ...harness.env, ...extraEnv } });
}

function doc(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name, ...metadata }, spec });
}

async function manifests(file: string, documents: string[]): Promise<string> {
  await writeFile(path.join(folder, file), documents.join('\n---\n'));
  return file;
}

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  // Registrations stay PROCESSING for the whole file: campaigns keep waiting for their brand.
  harness = await emulatorForCli({ registryDelayMs: 3_600_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-hardening-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('plan --detailed-exitcode', () => {
  it('exits 2 while campaigns wait for the registry, though nothing else changes', async () => {
    expect((await cli(['apply', '-f', 'examples/10dlc', '--state', 'tendlc.json', '--auto-approve'])).code).toBe(0);
    const plan = await cli(['plan', '-f', 'examples/10dlc', '--state', 'tendlc.json', '--detailed-exitcode']);
    // Two campaigns wait for their brand, and two numbers for their campaign.
    expect(plan.stdout).toContain(
      'Plan: 0 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.\nWaiting on the registry: 4. Blocked: 0.\n',
    );
    expect(plan.code).toBe(2);
  });
});

describe('metadata.protect', () => {
  const acl = (name: string, address: string, protect?: boolean) =>
    doc('TrunkIpAcl', name, { ip_addresses: [address] }, protect === undefined ? {} : { protect });

  it('is recorded in the state: removing the document does not delete a protected resource', async () => {
    const file = await manifests('protect.yaml', [acl('vault', '192.0.2.90', true), acl('keeper', '192.0.2.91')]);
    expect((await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve'])).code).toBe(0);
    const state = JSON.parse(await readFile(path.join(folder, 'protect.json'), 'utf8')) as {
      resources: Record<string, { protect?: boolean }>;
    };
    expect(state.resources['TrunkIpAcl/vault']?.protect).toBe(true);

    await manifests('protect.yaml', [acl('keeper', '192.0.2.91')]);
    const refused = await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: TrunkIpAcl/vault is protected in the state (an apply recorded metadata.protect: true) and would be deleted; to lift it, apply it once with metadata.protect: false, or run `telform state unprotect TrunkIpAcl/vault`\n',
    );

    const lifted = await cli(['state', 'unprotect', 'TrunkIpAcl/vault', '--state', 'protect.json']);
    expect(lifted.stdout).toBe(
      'TrunkIpAcl/vault is no longer protected in the state (a manifest that still says metadata.protect: true protects it again)\n',
    );
    const deleted = await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('deleted  TrunkIpAcl/vault');
  });

  it('is lifted by an apply that records metadata.protect: false, and only then', async () => {
    const file = await manifests('lift.yaml', [acl('guarded', '192.0.2.92', true), acl('other', '192.0.2.93')]);
    expect((await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve'])).code).toBe(0);
    await manifests('lift.yaml', [acl('guarded', '192.0.2.92', false), acl('other', '192.0.2.93')]);
    const recorded = await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve']);
    expect(recorded.code).toBe(0);
    expect(recorded.stderr).toContain('recorded in the state: TrunkIpAcl/guarded is no longer protected\n');
    expect(recorded.stdout).toContain('Nothing to apply.\n');
    await manifests('lift.yaml', [acl('other', '192.0.2.93')]);
    const deleted = await cli(['apply', '-f', file, '--state', 'lift.json', '--auto-approve']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('deleted  TrunkIpAcl/guarded');
  });
});

describe('output', () => {
  it('ends quietly when the reader of its output goes away (state list | head -1)', async () => {
    const resources: Record<string, unknown> = {};
    for (let index = 0; index < 20_000; index += 1) {
      resources[`TrunkIpAcl/acl-${index}`] = {
        kind: 'TrunkIpAcl',
        name: `acl-${index}`,
        id: `id-${index}`,
        applied_spec: {},
        secrets: {},
        updated_at: '2026-11-25T00:00:00.000Z',
      };
    }
    const ledger = {
      format_version: 1,
      lineage: 'pipe-test',
      endpoint: harness.emulator.url,
      account: 'MAEMULATOR0000000001',
      serial: 1,
      resources,
    };
    await writeFile(path.join(folder, 'big.state.json'), JSON.stringify(ledger));
    const child = spawn(process.execPath, [cliPath, 'state', 'list', '--state', 'big.state.json'], {
      cwd: folder,
      env: harness.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Like `head -1`: read the first line, then close the pipe.
    const first = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) {
          child.stdout.destroy();
          resolve(text.slice(0, text.indexOf('\n')));
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toMatch(/^TrunkIpAcl\/acl-0 +id-0$/);
    expect(stderr).not.toMatch(/EPIPE|Error|\n +at /);
    expect(code).toBe(0);
  });

  it('prints the summary under --quiet plan, and the version under --version and -V', async () => {
    const file = await manifests('quiet.yaml', [doc('TrunkIpAcl', 'quiet-acl', { ip_addresses: ['192.0.2.99'] })]);
    const quiet = await cli(['--quiet', 'plan', '-f', file, '--state', 'quiet.json']);
    expect(quiet.stdout).toBe(
      'Plan: 1 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.\n',
    );
    const version = JSON.parse(await readFile(path.join(repository, 'package.json'), 'utf8')) as { version: string };
    expect((await cli(['--version'])).stdout).toBe(`${version.version}\n`);
    expect((await cli(['-V'])).stdout).toBe(`${version.version}\n`);
  });

  it('lists the global options in a subcommand --help', async () => {
    const help = await cli(['state', 'mv', '--help']);
    expect(help.stdout).toContain('Global Options:\n  --endpoint <url>');
  });
});

describe('plan -o and apply FILE', () => {
  it('refuses to write the plan over a manifest, or over any file that is not a saved plan, and suggests -f for a manifest given to apply as a plan file', async () => {
    const file = await manifests('m.yaml', [doc('TrunkIpAcl', 'out-acl', { ip_addresses: ['192.0.2.98'] })]);
    const before = await readFile(path.join(folder, file), 'utf8');
    const over = await cli(['plan', '-f', 'm.yaml', '-o', 'm.yaml', '--state', 'out.json']);
    expect(over.code).toBe(1);
    expect(over.stderr).toBe('error: -o m.yaml is m.yaml, a file this run reads; write to a file of its own\n');
    expect(await readFile(path.join(folder, file), 'utf8')).toBe(before);
    await writeFile(path.join(folder, 'notes.json'), '{"mine": true}\n');
    const notes = await cli(['plan', '-f', 'm.yaml', '-o', 'notes.json', '--state', 'out.json']);
    expect(notes.stderr).toBe(
      'error: -o notes.json exists and is not a saved plan; it was left as it is (remove it, or choose another file)\n',
    );
    expect(await readFile(path.join(folder, 'notes.json'), 'utf8')).toBe('{"mine": true}\n');
    // A saved plan may be replaced by a new one.
    expect((await cli(['plan', '-f', 'm.yaml', '-o', 'plan.json', '--state', 'out.json'])).code).toBe(0);
    expect((await cli(['plan', '-f', 'm.yaml', '-o', 'plan.json', '--state', 'out.json'])).code).toBe(0);

    // A manifest given to apply as a plan file: -f is suggested.
    const run = await cli(['apply', 'm.yaml', '--state', 'out.json']);
    expect(run.stderr).toBe(
      'error: m.yaml is not a saved plan; it looks like a manifest: apply manifests with -f, as in telform apply -f m.yaml\n',
    );
  });
});

describe('--allow-irreversible', () => {
  it('warns about an address the plan does not hold, naming the closest one that needs approval', async () => {
    expect((await cli(['apply', '-f', 'examples/10dlc', '--state', 'tendlc.json', '--auto-approve'])).code).toBe(0);
    const plan = await cli([
      'plan',
      '-f',
      'examples/10dlc',
      '--state',
      'tendlc.json',
      '--allow-irreversible',
      'Campaign/acme-order',
    ]);
    expect(plan.stdout).toContain(
      'warning: --allow-irreversible Campaign/acme-order approves nothing: the plan has no irreversible change of Campaign/acme-order (it has no irreversible change at all)\n',
    );
    // Without its brand document, the brand is deleted: irreversible.
    const profileOnly = (await readFile(path.join(folder, 'examples/10dlc/acme.yaml'), 'utf8'))
      .split(/\n---\n/)
      .filter((part) => part.includes('kind: Profile'));
    await writeFile(path.join(folder, 'profile-only.yaml'), profileOnly.join('\n---\n'));
    const deleting = await cli([
      'plan',
      '-f',
      'profile-only.yaml',
      '--state',
      'tendlc.json',
      '--allow-irreversible',
      'Brand/acme-retial',
    ]);
    expect(deleting.stdout).toContain('# Brand/acme-retail will be deleted [irreversible]');
    expect(deleting.stdout).toContain(
      'warning: --allow-irreversible Brand/acme-retial approves nothing: the plan has no irreversible change of Brand/acme-retial; the closest that needs approval is Brand/acme-retail\n',
    );
  });
});

describe('the endpoint a state belongs to', () => {
  it('takes 127.0.0.1, localhost and [::1] for one host, and is re-pointed by state endpoint after a check', async () => {
    const dataFile = path.join(folder, 'emulator-data.json');
    const first = await startEmulator({ dataFile });
    const env = (url: string) => ({ ...harness.env, TELFORM_ENDPOINT: url });
    const file = await manifests('moving.yaml', [doc('TrunkIpAcl', 'moving-acl', { ip_addresses: ['192.0.2.77'] })]);
    try {
      expect(
        (
          await runCli(['apply', '-f', file, '--state', 'moving.json', '--auto-approve'], {
            cwd: folder,
            env: env(first.url),
          })
        ).code,
      ).toBe(0);
      const byName = await runCli(['plan', '-f', file, '--state', 'moving.json', '--detailed-exitcode'], {
        cwd: folder,
        env: env(first.url.replace('127.0.0.1', 'localhost')),
      });
      expect(byName.stderr).toBe('');
      expect(byName.code).toBe(0);
    } finally {
      await first.close();
    }
    // The emulator restarts with the same data on another port: the state follows it once checked.
    const second = await startEmulator({ dataFile });
    try {
      const stranded = await runCli(['plan', '-f', file, '--state', 'moving.json'], {
        cwd: folder,
        env: env(second.url),
      });
      expect(stranded.stderr).toContain(
        `or if this is where that account now lives, run telform state endpoint ${second.url}\n`,
      );
      const elsewhere = await runCli(['state', 'endpoint', harness.emulator.url, '--state', 'moving.json'], {
        cwd: folder,
        env: env(second.url),
      });
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toContain(
        `error: none of the 1 managed resources read at ${harness.emulator.url} exists there, so it is not where this state's account lives; nothing was changed\n`,
      );
      const moved = await runCli(['state', 'endpoint', second.url, '--state', 'moving.json'], {
        cwd: folder,
        env: env(second.url),
      });
      expect(moved.stdout).toMatch(
        new RegExp(
          `^the state moving\\.json now belongs to account MAEMULATOR0000000001 at ${second.url.replace(/\./g, '\\.')} \\(was http://127\\.0\\.0\\.1:\\d+; 1 of 1 managed resources checked there\\)\\n$`,
        ),
      );
      const plan = await runCli(['plan', '-f', file, '--state', 'moving.json', '--detailed-exitcode'], {
        cwd: folder,
        env: env(second.url),
      });
      expect(plan.code).toBe(0);
    } finally {
      await second.close();
    }
  });
});

describe('state mv', () => {
  it('keeps the account as it is when the API name defaults to metadata.name, and drift sees no change', async () => {
    const acl = (name: string, spec: Record<string, unknown> = {}) =>
      doc('TrunkIpAcl', name, { ip_addresses: ['192.0.2.66'], ...spec });
    const file = await manifests('mv.yaml', [acl('old-edge'), acl('mv-keeper', { ip_addresses: ['192.0.2.67'] })]);
    expect((await cli(['apply', '-f', file, '--state', 'mv.json', '--auto-approve'])).code).toBe(0);
    await manifests('mv.yaml', [acl('new-edge'), acl('mv-keeper', { ip_addresses: ['192.0.2.67'] })]);
    const invalid = await cli(['state', 'mv', 'TrunkIpAcl/old-edge', 'TrunkIpAcl/New_Edge', '--state', 'mv.json']);
    expect(invalid.stderr).toBe(
      'error: "New_Edge" is not a valid metadata.name: it must be 1 to 63 lower-case letters, digits or "-", starting and ending with a letter or digit\n',
    );
    const moved = await cli(['state', 'mv', 'TrunkIpAcl/old-edge', 'TrunkIpAcl/new-edge', '--state', 'mv.json']);
    expect(moved.stdout).toBe('moved TrunkIpAcl/old-edge to TrunkIpAcl/new-edge\n');
    expect(moved.stderr).toContain(
      'the account is unchanged: the live object keeps its name "old-edge", which the state now records for TrunkIpAcl/new-edge while its manifest leaves name out; to rename the live object too, set name: new-edge in its spec and apply\n',
    );
    const plan = await cli(['plan', '-f', file, '--state', 'mv.json', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes. The account matches the manifests.');
    expect(plan.code).toBe(0);
    const drift = await cli(['drift', '-f', file, '--state', 'mv.json']);
    expect(drift.code).toBe(0);
    // Naming it in the manifest renames the live object.
    await manifests('mv.yaml', [
      acl('new-edge', { name: 'new-edge' }),
      acl('mv-keeper', { ip_addresses: ['192.0.2.67'] }),
    ]);
    const rename = await cli(['plan', '-f', file, '--state', 'mv.json']);
    expect(rename.stdout).toContain('      ~ name: "old-edge" → "new-edge"');
    expect((await cli(['state', 'mv', '--help'])).stdout).toContain('The live object keeps its name.');
  });
});

describe('messages', () => {
  it('says what apiVersion was given, and "an OriginationUri"', async () => {
    const file = await manifests('words.yaml', [
      JSON.stringify({
        apiVersion: 'telform/v2',
        kind: 'TrunkIpAcl',
        metadata: { name: 'a' },
        spec: { ip_addresses: ['192.0.2.1'] },
      }),
      doc('TrunkIpAcl', 'b', { ip_addresses: ['192.0.2.2'] }),
      doc('Trunk', 't', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'b' } }),
    ]);
    const run = await cli(['validate', '-f', file]);
    expect(run.stdout + run.stderr).toContain(
      'words.yaml:1:15  TrunkIpAcl/a  apiVersion: must be telform/v1 (got "telform/v2")\n',
    );
    expect(run.stdout + run.stderr).toContain(
      '"b" is a TrunkIpAcl (words.yaml:3:67), but primary_uri_uuid needs an OriginationUri\n',
    );
  });

  it('names a literal secret that a saved plan cannot apply once, with its address, when the plan is saved', async () => {
    const file = await manifests('literal.yaml', [
      doc('TrunkCredential', 'lit', { username: 'literal1', password: 'Lit#eral1' }),
    ]);
    const plan = await cli(['plan', '-f', file, '--state', 'literal.json', '-o', 'literal-plan.json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr.match(/^error: .*$/gm)).toEqual([
      'error: -o literal-plan.json: TrunkCredential/lit (literal.yaml:1) has its password as a literal in the manifest, and a saved plan never holds secret values, so telform apply literal-plan.json could not set it; write it as { fromEnv: VAR } or { fromFile: PATH }, or apply with -f',
    ]);
  });

  it('lists unmanaged objects with their names, a brand by its alias', async () => {
    const made = await callApi(harness.emulator, 'POST', '/10dlc/Brand/', {
      profile_uuid: '5eed0000-0000-4000-8000-000000000004',
      brand_alias: 'Made By Hand',
      brand_type: 'STANDARD',
      secondary_vetting: true,
    });
    const file = await manifests('unmanaged.yaml', [
      doc('TrunkIpAcl', 'unmanaged-keeper', { ip_addresses: ['192.0.2.55'] }),
    ]);
    const plan = await cli(['plan', '-f', file, '--state', 'unmanaged.json', '--show-unmanaged']);
    expect(plan.stdout).toContain(`    Brand ${String(made.body.brand_id)} (Made By Hand)\n`);
  });
});
