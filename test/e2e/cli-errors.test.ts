import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/** How a single-account run reports what went wrong: in the format asked for, with no stack trace for a user error, and no flag silently ignored. */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-cli-errors-'));
  await writeFile(
    path.join(folder, 'acl.yaml'),
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name: 'errs' },
      spec: { ip_addresses: ['192.0.2.80'] },
    }),
  );
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('--format json', () => {
  it('puts a user error on stdout as JSON with its code, and the text on stderr', async () => {
    for (const command of ['plan', 'drift', 'apply']) {
      const run = await cli([
        command,
        '-f',
        'missing.yaml',
        '--format',
        'json',
        ...(command === 'apply' ? ['--auto-approve'] : []),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error: the manifests have 1 error (listed above); nothing was sent\n');
      expect(JSON.parse(run.stdout)).toEqual({
        exit_code: 1,
        error: {
          code: 'invalid_manifests',
          message: 'the manifests have 1 error (listed above); nothing was sent',
          // The problems themselves, for a reader of the JSON alone.
          details: { problems: ['missing.yaml  cannot read missing.yaml: no such file or folder'] },
        },
      });
    }
  });

  it('puts a bad flag on stdout as JSON too', async () => {
    const run = await cli(['plan', '-f', 'acl.yaml', '--format=json', '--lock-timeout', 'soon']);
    expect(run.code).toBe(1);
    const parsed = JSON.parse(run.stdout) as { exit_code: number; error: { code: string; message: string } };
    expect(parsed.exit_code).toBe(1);
    expect(parsed.error.code).toBe('bad_option');
    expect(parsed.error.message).toContain("option '--lock-timeout <duration>' argument 'soon' is invalid");
  });
});

describe('--debug', () => {
  it('prints no stack trace for a user error', async () => {
    const run = await cli(['plan', '-f', 'missing.yaml', '--debug']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'missing.yaml  cannot read missing.yaml: no such file or folder\nerror: the manifests have 1 error (listed above); nothing was sent\n',
    );
  });
});

describe('flags of --accounts', () => {
  // Every flag and rule is checked in process (test/cli/arguments.test.ts); here, that each command refuses through them.
  it('are an error without --accounts, not silently ignored', async () => {
    for (const command of ['plan', 'apply', 'drift']) {
      const run = await cli([command, '-f', 'acl.yaml', '--shard', '1/2']);
      expect(run.stderr).toBe(
        `error: --shard works only with --accounts FILE; this ${command} runs the one account of -f\n`,
      );
      expect(run.code).toBe(1);
    }
  });

  it('drift --accounts --write is refused by name, not run as a drift report', async () => {
    const account = {
      name: 'only',
      manifests: ['acl.yaml'],
      credentials: { auth_id_env: 'TELFORM_AUTH_ID', auth_token_env: 'TELFORM_AUTH_TOKEN' },
    };
    await writeFile(
      path.join(folder, 'accounts.yaml'),
      JSON.stringify({
        defaults: { state: 'accounts.state.json', endpoint: harness.emulator.url },
        accounts: [account],
      }),
    );
    const run = await cli(['drift', '--accounts', 'accounts.yaml', '--write']);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: "error: --write rewrites one account's manifests: give either --write or --accounts\n",
    });
  });
});

describe('values a flag cannot take (issue 33 item 35)', () => {
  it('says the bound of --shard when N is too large, and refuses an empty --workspace, each in one line naming the flag', async () => {
    const shard = await cli(['plan', '--accounts', 'accounts.yaml', '--shard', '1/99999999999']);
    expect([shard.code, shard.stderr.split('\n')[0]]).toEqual([
      1,
      "error: option '--shard <k/n>' argument '1/99999999999' is invalid. expected K/N with 1 ≤ K ≤ N ≤ 10000, e.g. 2/4",
    ]);
    for (const workspace of ['', ' ', '../x']) {
      const run = await cli(['--workspace', workspace, 'plan', '-f', 'acl.yaml']);
      expect([run.code, run.stderr.split('\n')[0]], JSON.stringify(workspace)).toEqual([
        1,
        `error: option '--workspace <name>' argument '${workspace}' is invalid. expected a workspace name: letters, digits, ".", "_" or "-" (at most 63, starting with a letter or digit)`,
      ]);
    }
  });
});

describe('apply --format json (one account)', () => {
  it('prints the result as an account entry of the accounts report: applied, then nothing to apply', async () => {
    const applied = await cli([
      'apply',
      '-f',
      'acl.yaml',
      '--state',
      'json.state.json',
      '--auto-approve',
      '--format',
      'json',
    ]);
    expect(applied.code).toBe(0);
    // The first apply of the account claims it for this state, and says so first.
    expect(applied.stderr).toMatch(
      /^note: this apply claims account MAEMULATOR0000000001 for the new state json\.state\.json: [^\n]+\ncreated {2}TrunkIpAcl\/errs \(id [\w-]+\)\n$/,
    );
    expect(JSON.parse(applied.stdout)).toEqual({
      name: 'MAEMULATOR0000000001',
      exit_code: 0,
      status: 'applied',
      summary:
        'Apply complete: 1 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 0. Blocked: 0. Failed: 0.',
    });
    const again = await cli([
      'apply',
      '-f',
      'acl.yaml',
      '--state',
      'json.state.json',
      '--auto-approve',
      '--format',
      'json',
    ]);
    expect(JSON.parse(again.stdout)).toEqual({
      name: 'MAEMULATOR0000000001',
      exit_code: 0,
      status: 'no_changes',
      summary: 'Nothing to apply.',
    });
  });

  it('does not ask: without --auto-approve (or a saved plan) it refuses, as JSON', async () => {
    const run = await cli(['apply', '-f', 'acl.yaml', '--state', 'json.state.json', '--format', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ exit_code: 1, error: { code: 'not_approved' } });
  });

  it('is refused for markdown, which only the accounts report has', async () => {
    const run = await cli(['apply', '-f', 'acl.yaml', '--auto-approve', '--format', 'markdown']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("error: --format markdown cannot render one account's apply result; choose text or json\n");
  });
});
