import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../state/postgres-server.js';
import { callApi, emulatorForCli, runCli, startCli, type EmulatorForCli } from './cli.js';

/**
 * The ledger in PostgreSQL, end to end through the built CLI: two applies at once on one workspace,
 * a holder SIGKILLed mid-apply (recorded in the history by the next run), and moving a ledger from a file to the database and back.
 */

let server: PostgresServer;
let url: string;
let database: pg.Client;
let harness: EmulatorForCli;
let folder: string;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('e2e');
  database = new pg.Client({ connectionString: url });
  await database.connect();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-pg-'));
}, 60_000);
afterAll(async () => {
  await database?.end();
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});
// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli();
});
afterEach(async () => {
  await harness.emulator.close();
});

async function manifests(file: string, names: string[]): Promise<string> {
  const target = path.join(folder, file);
  const documents = names.map((name, index) =>
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name },
      spec: { ip_addresses: [`198.51.100.${index + 1}`] },
    }),
  );
  await writeFile(target, documents.join('\n---\n'));
  return target;
}

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const inDatabase = (workspace: string) => ['--state', url, '--workspace', workspace];

async function setLatency(ms: number): Promise<void> {
  await fetch(`${harness.emulator.url}/__emulator/faults/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ latency: ms }),
  });
}

/** How many trunk ACLs of the account carry each name. */
async function aclNames(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let offset = 0; ; offset += 20) {
    const page = await callApi(harness.emulator, 'GET', `/Zentrunk/IPAccessControlList/?limit=20&offset=${offset}`);
    const objects = page.body.objects as Array<{ name: string }>;
    for (const object of objects) counts.set(object.name, (counts.get(object.name) ?? 0) + 1);
    if (objects.length < 20) return counts;
  }
}

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('state in PostgreSQL', () => {
  it('moves a ledger from a file to a workspace and back, the plan empty after each move', async () => {
    const file = await manifests('moved.yaml', ['moved-a', 'moved-b', 'moved-c']);
    expect((await cli(['apply', '-f', file, '--auto-approve'])).code).toBe(0);
    const there = await cli(['state', 'migrate', '--to', url, '--to-workspace', 'moved']);
    // Serial 2: a new state is stored before its first apply claims the account, then with what the apply did.
    expect(there).toMatchObject({
      code: 0,
      stdout: `copied 3 managed resources (serial 2) from telform.state.json to ${url} (workspace moved)\n`,
    });
    // TELFORM_STATE names the database as --state would.
    const planThere = await runCli(['--workspace', 'moved', 'plan', '-f', file, '--detailed-exitcode'], {
      cwd: folder,
      env: { ...harness.env, TELFORM_STATE: url },
    });
    expect(planThere.code).toBe(0);
    expect(planThere.stdout).toContain('0 to create, 0 to update, 0 to replace, 0 to delete');

    const back = await cli([...inDatabase('moved'), 'state', 'migrate', '--to', 'back.state.json']);
    expect(back).toMatchObject({
      code: 0,
      stdout: `copied 3 managed resources (serial 2) from ${url} (workspace moved) to back.state.json\n`,
    });
    expect((await cli(['--state', 'back.state.json', 'plan', '-f', file, '--detailed-exitcode'])).code).toBe(0);
    expect(
      (await cli(['--state', 'back.state.json', 'state', 'list'])).stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(['TrunkIpAcl/moved-a', 'TrunkIpAcl/moved-b', 'TrunkIpAcl/moved-c']);
    expect(
      await cli(['--state', 'back.state.json', 'state', 'migrate', '--to', url, '--to-workspace', 'moved']),
    ).toMatchObject({
      code: 1,
      stderr: `error: ${url} (workspace moved) already holds a ledger; migrate only to an empty place\n`,
    });
    // Each source is retired and names where it went.
    expect((await cli(['state', 'list'])).stderr).toMatch(
      new RegExp(
        `^error: the state telform\\.state\\.json was migrated at \\S+ and is retired: use --state ${url.replace(/[./]/g, '\\$&')} --workspace moved instead`,
      ),
    );
    expect((await cli([...inDatabase('moved'), 'state', 'list'])).stderr).toMatch(
      /and is retired: use --state back\.state\.json instead/,
    );
  }, 120_000);

  it('lets one apply hold a workspace: a second refuses naming the holder, a third waits with --lock-timeout', async () => {
    const raced = ['race-a', 'race-b', 'race-c', 'race-d', 'race-e', 'race-f'];
    const file = await manifests('race.yaml', raced);
    // Slow enough (one create at a time, 1 s each) that the other two start while the first holds the lock.
    await setLatency(1000);
    try {
      const first = startCli([...inDatabase('race'), 'apply', '-f', file, '--auto-approve', '--parallelism', '1'], {
        cwd: folder,
        env: harness.env,
      });
      await until(
        async () =>
          (
            await database.query('SELECT 1 FROM telform_lock_holders WHERE workspace = $1 AND pid = $2', [
              'race',
              first.pid,
            ])
          ).rows[0],
      );
      const refused = await cli([...inDatabase('race'), 'apply', '-f', file, '--auto-approve']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: the state ${url.replace(/[./]/g, '\\$&')} \\(workspace race\\) is locked by process ${first.pid} on ${hostname()} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; wait for it to finish, or pass --lock-timeout`,
        ),
      );
      const patient = startCli([...inDatabase('race'), '--lock-timeout', '5m', 'apply', '-f', file, '--auto-approve'], {
        cwd: folder,
        env: harness.env,
      });
      const [done, waited] = await Promise.all([first.done, patient.done]);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('Apply complete: 6 created');
      expect(waited).toMatchObject({ code: 0 });
      expect(waited.stdout).toContain('Nothing to apply.');
    } finally {
      await setLatency(0);
    }
    const names = await aclNames();
    expect(raced.map((name) => names.get(name))).toEqual(raced.map(() => 1));
  }, 120_000);

  it('frees the lock of a SIGKILLed apply at once, and the next apply finishes its work with no duplicate', async () => {
    const names = Array.from({ length: 8 }, (_, index) => `killed-${index}`);
    const file = await manifests('killed.yaml', names);
    await setLatency(300);
    let killedPid = 0;
    try {
      const victim = startCli([...inDatabase('killed'), 'apply', '-f', file, '--auto-approve', '--parallelism', '2'], {
        cwd: folder,
        env: harness.env,
      });
      killedPid = victim.pid;
      await until(async () => {
        const found = await database.query<{ count: string }>(
          'SELECT count(*) FROM telform_journal WHERE workspace = $1 AND record LIKE \'%"result"%\'',
          ['killed'],
        );
        return Number(found.rows[0]?.count) >= 2 ? true : undefined;
      });
      victim.kill('SIGKILL');
      expect((await victim.done).code).toBeNull();
    } finally {
      await setLatency(0);
    }
    const next = await cli([...inDatabase('killed'), 'apply', '-f', file, '--auto-approve']);
    expect(next.stderr).not.toContain(`locked by process ${killedPid}`);
    expect(next.code).toBe(0);
    const counts = await aclNames();
    expect(names.map((name) => counts.get(name))).toEqual(names.map(() => 1));
    const plan = await cli([...inDatabase('killed'), 'plan', '-f', file, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    const journal = await database.query('SELECT record FROM telform_journal WHERE workspace = $1', ['killed']);
    expect(journal.rows).toEqual([]);
    // The killed apply reached the history, from the journal the next run settled, before that run's own record.
    const history = await database.query<{ record: string }>(
      'SELECT record FROM telform_history WHERE workspace = $1 ORDER BY id',
      ['killed'],
    );
    const records = history.rows.map(
      (row) =>
        JSON.parse(row.record) as {
          seq: number;
          interrupted?: unknown;
          changes: Array<{ address: string; action: string; result: string }>;
        },
    );
    expect(records.map((record) => [record.seq, record.interrupted !== undefined])).toEqual([
      [1, true],
      [2, false],
    ]);
    const created = (seq: number) =>
      (records[seq - 1]?.changes ?? [])
        .filter((change) => change.action === 'create' && change.result === 'done')
        .map((change) => change.address);
    const made = created(1);
    expect(made.length).toBeGreaterThanOrEqual(2);
    // Between them, every ACL was created once: what the killed apply made, the next one did not make again.
    expect([...(made ?? []), ...(records[1]?.changes.map((change) => change.address) ?? [])].sort()).toEqual(
      names.map((name) => `TrunkIpAcl/${name}`).sort(),
    );
    const listed = await cli([...inDatabase('killed'), 'history']);
    expect(listed.stdout).toContain('apply (interrupted; recorded from its journal by the next run)');
    expect((await cli([...inDatabase('killed'), 'history', 'verify'])).code).toBe(0);
  }, 120_000);

  it('keeps each account of an accounts file in its own workspace of one database', async () => {
    // Two accounts: tenant-b's is another emulator (a state owns its account).
    const other = await emulatorForCli();
    const accounts = ['tenant-a', 'tenant-b'].map((name) => ({
      name,
      ...(name === 'tenant-b' ? { endpoint: other.emulator.url } : {}),
      manifests: [`${name}.yaml`],
      credentials: { auth_id_env: 'TELFORM_AUTH_ID', auth_token_env: 'TELFORM_AUTH_TOKEN' },
    }));
    for (const { name } of accounts) await manifests(`${name}.yaml`, [`${name}-office`, `${name}-backup`]);
    await writeFile(path.join(folder, 'tenants.yaml'), JSON.stringify({ defaults: { state: url }, accounts }));
    const applied = await cli(['apply', '--accounts', 'tenants.yaml', '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(applied.stdout.split('\n')[0]).toBe('telform apply: 2 accounts: 2 applied. Exit code 0.');
    const rows = await database.query<{ workspace: string; serial: string }>(
      "SELECT workspace, serial FROM telform_ledgers WHERE workspace LIKE 'tenant-%' ORDER BY workspace",
    );
    expect(rows.rows).toEqual([
      { workspace: 'tenant-a', serial: '2' },
      { workspace: 'tenant-b', serial: '2' },
    ]);
    expect((await cli(['drift', '--accounts', 'tenants.yaml'])).code).toBe(0);
    await other.emulator.close();
  }, 120_000);

  it('never prints the database password, from the URL or from PGPASSWORD', async () => {
    const file = await manifests('secret.yaml', ['secret-a']);
    const fromUrl = await cli(['--state', 'postgres://telform:hunter2-secret@127.0.0.1:1/nowhere', 'plan', '-f', file]);
    expect(fromUrl.code).toBe(1);
    expect(fromUrl.stderr).toMatch(
      /^error: cannot use the state database postgres:\/\/telform:\*\*\*@127\.0\.0\.1:1\/nowhere \(workspace default\): /,
    );
    const fromEnv = await runCli(['--workspace', 'w', 'apply', '-f', file, '--auto-approve'], {
      cwd: folder,
      env: { ...harness.env, TELFORM_STATE: 'postgres://telform@127.0.0.1:1/nowhere', PGPASSWORD: 'hunter2-secret' },
    });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toMatch(
      /^error: cannot use the state database postgres:\/\/telform@127\.0\.0\.1:1\/nowhere \(workspace w\): /,
    );
    for (const run of [fromUrl, fromEnv]) expect(run.stdout + run.stderr).not.toContain('hunter2');
  });

  it('masks a password given as ?password= (and ?sslpassword=) in errors, state migrate and the accounts report', async () => {
    const file = await manifests('query.yaml', ['query-a']);
    const unreachable = 'postgres://telform@127.0.0.1:1/nowhere?password=hunter3-secret&application_name=x';
    const error = await cli(['--state', unreachable, 'plan', '-f', file]);
    expect(error.code).toBe(1);
    expect(error.stderr).toMatch(
      /^error: cannot use the state database postgres:\/\/telform@127\.0\.0\.1:1\/nowhere\?password=\*\*\*&application_name=x \(workspace default\): /,
    );

    // The test server trusts every connection, so the password is accepted and ignored.
    const target = `${url}?password=hunter3-secret&sslpassword=hunter3-key`;
    const masked = `${url}?password=***&sslpassword=***`;
    expect((await cli(['--state', 'query.state.json', 'apply', '-f', file, '--auto-approve'])).code).toBe(0);
    const migrate = await cli([
      '--state',
      'query.state.json',
      'state',
      'migrate',
      '--to',
      target,
      '--to-workspace',
      'query',
    ]);
    expect(migrate).toMatchObject({
      code: 0,
      stdout: `copied 1 managed resource (serial 2) from query.state.json to ${masked} (workspace query)\n`,
    });
    expect(migrate.stderr).toContain(`use --state ${masked} --workspace query from now on`);

    await writeFile(
      path.join(folder, 'query-accounts.yaml'),
      JSON.stringify({
        accounts: [
          {
            name: 'tenant-q',
            manifests: ['query.yaml'],
            state: unreachable,
            credentials: { auth_id_env: 'TELFORM_AUTH_ID', auth_token_env: 'TELFORM_AUTH_TOKEN' },
          },
        ],
      }),
    );
    const report = await cli(['plan', '--accounts', 'query-accounts.yaml']);
    expect(report.code).toBe(1);
    expect(report.stdout).toContain(
      'postgres://telform@127.0.0.1:1/nowhere?password=***&application_name=x (workspace',
    );
    const json = await cli(['plan', '--accounts', 'query-accounts.yaml', '--format', 'json']);
    for (const run of [error, migrate, report, json]) expect(run.stdout + run.stderr).not.toContain('hunter3');
  });
});
