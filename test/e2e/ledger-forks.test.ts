// The ways one account's ownership record could fork, replayed through the built CLI: each must fail loudly.
import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../state/postgres-server.js';
import { callApi, emulatorForCli, runCli, startCli, type EmulatorForCli } from './cli.js';

let harness: EmulatorForCli;
let server: PostgresServer;
let url: string;
let folder: string;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('forks');
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-forks-'));
}, 60_000);
afterAll(async () => {
  await harness?.emulator.close();
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

async function manifests(file: string, documents: string[]): Promise<string> {
  const target = path.join(folder, file);
  await writeFile(target, documents.join('\n---\n'));
  return target;
}

/** Trunk IP ACLs of the account with this name. */
async function trunkAclsNamed(name: string): Promise<Array<{ ipacl_uuid: string }>> {
  const page = await callApi(harness.emulator, 'GET', '/Zentrunk/IPAccessControlList/?limit=20');
  return (page.body.objects as Array<{ name: string; ipacl_uuid: string }>).filter((object) => object.name === name);
}

describe('two ledgers for one account', () => {
  it('retires the source of a migration: an apply with the old file refuses, naming the new place, and one ACL stays live', async () => {
    const file = await manifests('pbx.yaml', [
      doc('TrunkIpAcl', 'pbx-office', { ip_addresses: ['203.0.113.10'] }),
      doc('Trunk', 'pbx-outbound', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'pbx-office' } }),
    ]);
    expect((await cli(['--state', 'pbx.state.json', 'apply', '-f', file, '--auto-approve'])).code).toBe(0);
    const migrated = await cli(['--state', 'pbx.state.json', 'state', 'migrate', '--to', url, '--to-workspace', 'pbx']);
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toBe(
      `pbx.state.json is retired: every command on it now refuses and names the new place; use --state ${url} --workspace pbx from now on\n`,
    );

    // Every command on the old file refuses before it reads the account, so it can never recreate or re-point anything.
    const [acl] = await trunkAclsNamed('pbx-office');
    const inDatabase = ['--state', url, '--workspace', 'pbx'];
    expect((await cli([...inDatabase, 'plan', '-f', file, '--detailed-exitcode'])).code).toBe(0);
    for (const command of [
      ['apply', '-f', file, '--auto-approve'],
      ['plan', '-f', file],
      ['drift', '-f', file],
      ['state', 'list'],
      ['import', '--out', 'again'],
    ]) {
      const refused = await cli(['--state', 'pbx.state.json', ...command]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: the state pbx\\.state\\.json was migrated at \\S+Z and is retired: use --state ${url.replace(/[./]/g, '\\$&')} --workspace pbx instead \\(--reopen-retired uses this copy again, as a new ledger\\)\\n$`,
        ),
      );
    }
    expect(await trunkAclsNamed('pbx-office')).toEqual([acl]);
    expect((await cli([...inDatabase, 'plan', '-f', file, '--detailed-exitcode'])).code).toBe(0);

    // Read on purpose, it still shows what it held.
    const read = await cli(['--state', 'pbx.state.json', '--reopen-retired', 'state', 'list']);
    expect(read.code).toBe(0);
    expect(
      read.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(['Trunk/pbx-outbound', 'TrunkIpAcl/pbx-office']);
  }, 120_000);
});

describe('a linked state path', () => {
  // An account of its own: the migrated state above owns the first one (its first apply claimed it).
  beforeAll(async () => {
    await harness.emulator.close();
    harness = await emulatorForCli();
  });
  it('is one ledger: two applies through the file and a link to it never both write, and the link stays a link', async () => {
    const file = await manifests(
      'linked.yaml',
      Array.from({ length: 4 }, (_, index) =>
        doc('TrunkIpAcl', `linked-${index}`, { ip_addresses: [`198.51.100.${index + 1}`] }),
      ),
    );
    await symlink('linked.state.json', path.join(folder, 'alias.state.json'));
    await fetch(`${harness.emulator.url}/__emulator/faults/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency: 400 }),
    });
    try {
      const first = startCli(
        ['--state', 'linked.state.json', 'apply', '-f', file, '--auto-approve', '--parallelism', '1'],
        { cwd: folder, env: harness.env },
      );
      // Once the first holds the lock (its lock file exists), the second, through the link, must find it held.
      for (;;) {
        if (
          await lstat(path.join(folder, 'linked.state.json.lock')).then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const second = await cli(['--state', 'alias.state.json', 'apply', '-f', file, '--auto-approve']);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/^error: the state file alias\.state\.json is locked by process \d+ on /);
      expect((await first.done).code).toBe(0);
    } finally {
      await fetch(`${harness.emulator.url}/__emulator/faults/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ latency: 0 }),
      });
    }
    expect((await lstat(path.join(folder, 'alias.state.json'))).isSymbolicLink()).toBe(true);
    const again = await cli(['--state', 'alias.state.json', 'apply', '-f', file, '--auto-approve']);
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('Nothing to apply.') });
    expect((await lstat(path.join(folder, 'alias.state.json'))).isSymbolicLink()).toBe(true);
    const ledger = JSON.parse(await readFile(path.join(folder, 'linked.state.json'), 'utf8')) as { resources: object };
    expect(Object.keys(ledger.resources)).toHaveLength(4);
    for (let index = 0; index < 4; index += 1) expect(await trunkAclsNamed(`linked-${index}`)).toHaveLength(1);
  }, 120_000);
});

describe('a ledger that exists only as a journal', () => {
  it('is reported by state list and state migrate, never as "no state"', async () => {
    const intent = (seq: number, name: string) =>
      JSON.stringify({
        type: 'intent',
        seq,
        address: `TrunkIpAcl/${name}`,
        kind: 'TrunkIpAcl',
        action: 'create',
        at: '2026-01-01T00:00:00.000Z',
      });
    await writeFile(
      path.join(folder, 'killed.state.json.journal'),
      `${[1, 2, 3].map((seq) => intent(seq, `acl-${seq}`)).join('\n')}\n`,
    );
    const message =
      'error: the state at killed.state.json has no ledger yet, but its journal holds 3 records of an apply that stopped before writing it (0 results, 3 operations to settle); run telform plan with this --state to see them and telform apply to settle and record them\n';
    expect(await cli(['--state', 'killed.state.json', 'state', 'list'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: message,
    });
    expect(await cli(['--state', 'killed.state.json', 'state', 'migrate', '--to', 'elsewhere.json'])).toMatchObject({
      code: 1,
      stderr: message,
    });
  });
});
