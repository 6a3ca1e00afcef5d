import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cleanEnv, runCli } from './cli.js';

/**
 * Many accounts in one run: 50 accounts of one accounts file against one emulator serving all of
 * them, one with a wrong token. The other 49 converge, the report names the failing one, the exit
 * code is the worst (1); shards merged give exactly the report of one run.
 */

const count = 50;
const broken = 'acct-17';
const names = Array.from({ length: count }, (_, index) => `acct-${String(index + 1).padStart(2, '0')}`);
const authId = (index: number) => `MASCALE${String(index + 1).padStart(13, '0')}`;
const token = (index: number) => `scale-token-${index + 1}-000000000000000000000`;
const variable = (name: string) => name.toUpperCase().replace('-', '_');

let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({
    accounts: names.map((_, index) => ({ authId: authId(index), authToken: token(index) })),
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-accounts-'));
  await mkdir(path.join(folder, 'manifests'));
  await writeFile(
    path.join(folder, 'manifests', 'acls.yaml'),
    ['office', 'backup']
      .map((name, index) =>
        JSON.stringify({
          apiVersion: 'telform/v1',
          kind: 'TrunkIpAcl',
          metadata: { name },
          spec: { ip_addresses: [`203.0.113.${index + 10}`] },
        }),
      )
      .join('\n---\n'),
  );
  const accounts = names.map((name) => ({
    name,
    manifests: ['manifests/'],
    credentials: { auth_id_env: `${variable(name)}_ID`, auth_token_env: `${variable(name)}_TOKEN` },
  }));
  await writeFile(
    path.join(folder, 'accounts.yaml'),
    `# ${count} accounts, one ledger each\n${JSON.stringify({ defaults: { state: 'states/{account}.json', endpoint: emulator.url }, accounts }, null, 2)}\n`,
  );
  const credentials: Record<string, string> = {};
  names.forEach((name, index) => {
    credentials[`${variable(name)}_ID`] = authId(index);
    credentials[`${variable(name)}_TOKEN`] = name === broken ? 'wrong-token' : token(index);
  });
  env = cleanEnv(credentials);
});

afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

/** The text report of the whole drift, for the merged shards to match. */
let lastTextReport = '';

const cli = (args: string[]) => runCli(args, { cwd: folder, env });

interface Report {
  command: string;
  exit_code: number;
  shard?: unknown;
  accounts: Array<{ name: string; status: string; exit_code: number; summary: string }>;
}

async function aclCount(index: number): Promise<number> {
  const authorization = `Basic ${Buffer.from(`${authId(index)}:${token(index)}`).toString('base64')}`;
  const response = await fetch(`${emulator.url}/v1/Account/${authId(index)}/Zentrunk/IPAccessControlList/`, {
    headers: { authorization },
  });
  return ((await response.json()) as { meta: { total_count: number } }).meta.total_count;
}

describe('telform --accounts', () => {
  it('applies 50 accounts: 49 converge, the report names the one with wrong credentials, exit 1', async () => {
    const run = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--format', 'json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.exit_code).toBe(1);
    expect(report.accounts.map((account) => account.name)).toEqual(names);
    const failing = report.accounts.filter((account) => account.status !== 'applied');
    expect(failing).toEqual([
      {
        name: broken,
        status: 'error',
        exit_code: 1,
        summary: expect.stringMatching(/^the API answered 401 to GET \S+: .+; check ACCT_17_ID and ACCT_17_TOKEN$/),
        error: expect.objectContaining({ code: 'api_error' }),
      },
    ]);
    expect(report.accounts.find((account) => account.name === 'acct-01')?.summary).toBe(
      'Apply complete: 2 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 0. Blocked: 0. Failed: 0.',
    );
    expect(run.stderr).toContain(`[${broken}] error: the API answered 401`);
    const counts = await Promise.all(names.map((_, index) => aclCount(index)));
    expect(counts.filter((value) => value === 2)).toHaveLength(49);
    expect(counts[names.indexOf(broken)]).toBe(0);
    expect(run.stdout).not.toContain('wrong-token');
  }, 120_000);

  it('drifts them all in one text report (a line per account, details below), and --only narrows it', async () => {
    const run = await cli(['drift', '--accounts', 'accounts.yaml']);
    lastTextReport = run.stdout;
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('telform drift: 50 accounts: 1 error, 49 in sync. Exit code 1.');
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('  acct-01  in sync  The account matches the manifests and the state.');
    expect(lines[18]).toMatch(/^ {2}acct-17 {2}error {4}the API answered 401 to GET /);
    expect(run.stdout).toContain(`\n== ${broken} (error) ==\nerror: the API answered 401`);

    const only = await cli(['drift', '--accounts', 'accounts.yaml', '--only', 'acct-03', '--only', 'acct-04']);
    expect(only.code).toBe(0);
    expect(only.stdout).toBe(
      [
        'telform drift: 2 accounts: 2 in sync. Exit code 0.',
        '',
        '  acct-03  in sync  The account matches the manifests and the state.',
        '  acct-04  in sync  The account matches the manifests and the state.',
        '',
      ].join('\n'),
    );
    expect(await cli(['drift', '--accounts', 'accounts.yaml', '--only', 'acct-99'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('error: --only acct-99: not in accounts.yaml'),
    });
  }, 120_000);

  it('splits the accounts into shards, each account in exactly one, and report merge gives the one-run report', async () => {
    const [whole, ...parts] = await Promise.all([
      cli(['drift', '--accounts', 'accounts.yaml', '--format', 'json']),
      ...[1, 2, 3].map((shard) =>
        cli(['drift', '--accounts', 'accounts.yaml', '--shard', `${shard}/3`, '--format', 'json']),
      ),
    ]);
    const files: string[] = [];
    const seen: string[] = [];
    for (const [index, run] of parts.entries()) {
      const report = JSON.parse(run.stdout) as Report;
      expect(report.shard).toEqual({ index: index + 1, count: 3 });
      seen.push(...report.accounts.map((account) => account.name));
      const file = path.join(folder, `drift-${index + 1}.json`);
      await writeFile(file, run.stdout);
      files.push(file);
    }
    expect(seen.sort()).toEqual(names);
    const merged = await cli(['report', 'merge', ...files, '--format', 'json']);
    expect(merged.code).toBe(1);
    expect(merged.stdout).toBe(whole.stdout);
    const text = await cli(['report', 'merge', ...files]);
    expect(text.stdout).toBe(lastTextReport);
    expect(await cli(['report', 'merge', files[0] as string, files[2] as string])).toMatchObject({
      code: 1,
      stderr: 'error: shard 2/3 missing\n',
    });
    const first = JSON.parse(parts[0]?.stdout ?? '') as Report;
    const shown = await cli(['report', 'show', files[0] as string]);
    expect(shown.code).toBe(first.exit_code);
    expect(shown.stdout.split('\n')[0]).toBe(
      `telform drift (shard 1/3): ${first.accounts.length} accounts: ${first.exit_code === 1 ? '1 error, ' : ''}${first.accounts.length - first.exit_code} in sync. Exit code ${first.exit_code}.`,
    );
    // The merged report as pull-request annotations: the one failing account's error, named; a graph is refused by name.
    const annotated = await cli(['report', 'merge', ...files, '--format', 'github']);
    expect(annotated.code).toBe(1);
    const annotations = annotated.stdout.split('\n').filter((line) => line.startsWith('::'));
    expect(annotations).toEqual([
      expect.stringMatching(
        /^::error title=telform account::\[account acct-17\] api_error: the API answered 401 to GET \S+: /,
      ),
    ]);
    expect(annotated.stdout).toContain(
      '\ntelform drift: 50 accounts: 1 error, 49 in sync. Exit code 1.\n  acct-01: in sync: The account matches the manifests and the state.\n',
    );
    expect(await cli(['report', 'show', files[0] as string, '--format', 'dot'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining(
        "error: option '--format <format>' argument 'dot' is invalid. Allowed choices are text, json, markdown, github, gitlab.",
      ),
    });
  }, 180_000);

  it("plans accounts as GitHub annotations, an account's error named, and refuses a graph of them by name", async () => {
    const run = await cli([
      'plan',
      '--accounts',
      'accounts.yaml',
      '--only',
      'acct-03',
      '--only',
      broken,
      '--format',
      'github',
    ]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^::error title=telform account::\[account acct-17\] api_error: the API answered 401 to GET \S+: .+; check ACCT_17_ID and ACCT_17_TOKEN$/,
    );
    expect(lines.slice(1, 3)).toEqual([
      'telform plan: 2 accounts: 1 error, 1 no changes. Exit code 1.',
      '  acct-03: no changes: Plan: 0 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.',
    ]);
    expect(lines[3]).toMatch(/^ {2}acct-17: error: the API answered 401 to GET /);
    expect(lines.slice(4)).toEqual(['']);
    const graph = await cli(['plan', '--accounts', 'accounts.yaml', '--only', 'acct-03', '--format', 'mermaid']);
    expect(graph).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'error: --format mermaid cannot render an accounts report; choose text, json, markdown, github or gitlab\n',
    });
  }, 60_000);
});
