import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileBackend, journalPath, lockPath } from '../../src/state/backends/file.js';
import { SecretFingerprinter, emptyLedger, serializeLedger, type LedgerEntry } from '../../src/state/ledger.js';
import { PostgresBackend } from '../../src/state/backends/postgres.js';
import type { StateBackend } from '../../src/state/backend.js';
import { LedgerStore } from '../../src/state/ledger-store.js';
import { startPostgres, type PostgresServer } from '../state/postgres-server.js';
import { withAppend } from './observed-backend.js';

/**
 * The ledger's guarantees, the same on every backend: the suite runs once on a state file and once
 * on a PostgreSQL workspace (a real server the suite starts). A `Where` reaches the stored ledger and
 * journal directly, as a crash or another tool would leave them.
 */
interface Where {
  /** How the messages name it. */
  location: string;
  backend(): Promise<StateBackend>;
  storedLedger(): Promise<string | undefined>;
  storedJournal(): Promise<string[]>;
  seed(ledger: string, journal: string[]): Promise<void>;
}

let server: PostgresServer;
let databaseUrl: string;
let client: pg.Client;

beforeAll(async () => {
  server = await startPostgres();
  databaseUrl = await server.createDatabase('state_store');
  await (await PostgresBackend.open(databaseUrl, 'setup', {})).close();
  client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await server?.stop();
});

async function fileWhere(): Promise<Where> {
  const file = join(await mkdtemp(join(tmpdir(), 'telform-state-')), 'telform.state.json');
  const optional = (path: string) => readFile(path, 'utf8').catch(() => undefined);
  return {
    location: file,
    backend: async () => new FileBackend(file),
    storedLedger: () => optional(file),
    storedJournal: async () => ((await optional(journalPath(file))) ?? '').split('\n').filter((line) => line !== ''),
    async seed(ledger, journal) {
      await writeFile(file, ledger);
      if (journal.length > 0) await writeFile(journalPath(file), journal.join('\n'));
    },
  };
}

async function databaseWhere(): Promise<Where> {
  const workspace = `ws-${randomUUID().slice(0, 8)}`;
  return {
    location: `${databaseUrl} (workspace ${workspace})`,
    backend: () => PostgresBackend.open(databaseUrl, workspace, {}),
    storedLedger: async () =>
      (await client.query<{ body: string }>('SELECT body FROM telform_ledgers WHERE workspace = $1', [workspace]))
        .rows[0]?.body,
    storedJournal: async () =>
      (
        await client.query<{ record: string }>('SELECT record FROM telform_journal WHERE workspace = $1 ORDER BY id', [
          workspace,
        ])
      ).rows.map((row) => row.record),
    async seed(ledger, journal) {
      const serial = /"serial":\s*(\d+)/.exec(ledger)?.[1] ?? '0';
      await client.query('INSERT INTO telform_ledgers (workspace, serial, body) VALUES ($1, $2, $3)', [
        workspace,
        serial,
        ledger,
      ]);
      for (const record of journal)
        await client.query('INSERT INTO telform_journal (workspace, record) VALUES ($1, $2)', [workspace, record]);
    },
  };
}

const binding = { endpoint: 'local', account: 'MAEMULATOR0000000001' };

function entry(id: string): LedgerEntry {
  return {
    kind: 'Trunk',
    name: 'pbx',
    id,
    applied_spec: { name: 'pbx' },
    secrets: {},
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

describe.each([
  ['a state file', fileWhere],
  ['a PostgreSQL workspace', databaseWhere],
])('LedgerStore on %s', (_name, makeWhere) => {
  let where: Where;
  const open = async (options: { binding?: typeof binding; lock: boolean; lockWaitMs?: number }) =>
    LedgerStore.open(await where.backend(), options);

  beforeEach(async () => {
    where = await makeWhere();
  });

  it('starts an empty ledger bound to the endpoint and account when there is none', async () => {
    const store = await open({ binding, lock: false });
    expect(store.existed).toBe(false);
    expect(store.ledger).toMatchObject({ ...binding, serial: 0, resources: {} });
    await store.close();
    expect(await where.storedLedger()).toBeUndefined();
  });

  it('journals each result durably and compacts into the ledger with serial + 1', async () => {
    const store = await open({ binding, lock: true });
    await store.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'create' });
    await store.recordResult('Trunk/pbx', entry('111'));
    expect((await where.storedJournal()).map((line) => JSON.parse(line).type)).toEqual(['intent', 'result']);
    await store.close();
    const saved = JSON.parse((await where.storedLedger()) ?? '');
    expect(saved.serial).toBe(1);
    expect(saved.resources['Trunk/pbx'].id).toBe('111');
    expect(await where.storedJournal()).toEqual([]);
    const again = await open({ binding, lock: true });
    await again.close();
  });

  it('replays a journal left by a crash, reports intents without results, and ignores a torn line', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    await where.seed(serializeLedger(emptyLedger(binding.endpoint, binding.account)), [
      JSON.stringify({ type: 'intent', seq: 1, address: 'Trunk/pbx', action: 'create', at }),
      JSON.stringify({ type: 'result', seq: 2, address: 'Trunk/pbx', entry: entry('222'), at }),
      JSON.stringify({ type: 'intent', seq: 3, address: 'TrunkIpAcl/office', action: 'create', at }),
      '{"type":"result","seq":4,"addr',
    ]);
    const store = await open({ binding, lock: true });
    expect(store.ledger.resources['Trunk/pbx']?.id).toBe('222');
    expect(store.uncertain).toEqual([
      { type: 'intent', seq: 3, address: 'TrunkIpAcl/office', kind: 'TrunkIpAcl', action: 'create', at },
    ]);
    await store.close();
    expect(JSON.parse((await where.storedLedger()) ?? '').serial).toBe(1);
  });

  it('makes the records of operations running at once durable together, in order, each resolving only once durable', async () => {
    const backend = await where.backend();
    const appends: string[][] = [];
    let release: () => void = () => undefined;
    let gate: Promise<void> = Promise.resolve();
    const observed = withAppend(backend, async (records) => {
      appends.push(records.map((record) => JSON.parse(record).type));
      await gate;
      await backend.append(records);
    });
    const store = await LedgerStore.open(observed, { binding, lock: true });
    const names = ['a', 'b', 'c', 'd'];
    await Promise.all(
      names.map((name) => store.recordIntent({ address: `Trunk/${name}`, kind: 'Trunk', action: 'create' })),
    );
    gate = new Promise((resolve) => (release = resolve));
    let durable = 0;
    const results = names.map((name) => store.recordResult(`Trunk/${name}`, entry(name)).then(() => (durable += 1)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Handed to the backend together, and none reported durable before the backend said so.
    expect(appends).toEqual([
      ['intent', 'intent', 'intent', 'intent'],
      ['result', 'result', 'result', 'result'],
    ]);
    expect(durable).toBe(0);
    release();
    await Promise.all(results);
    expect((await where.storedJournal()).map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await store.close();
  });

  it('keeps intents nobody settled through a compaction, and continues their sequence', async () => {
    const crashed = await open({ binding, lock: true });
    await crashed.recordIntent({
      address: 'TrunkIpAcl/office',
      kind: 'TrunkIpAcl',
      action: 'create',
      fields: { name: 'office' },
    });
    await crashed.recordResult('Trunk/pbx', entry('111'));
    await crashed.close();
    expect((await where.storedJournal()).map((line) => JSON.parse(line))).toEqual([
      {
        type: 'intent',
        address: 'TrunkIpAcl/office',
        kind: 'TrunkIpAcl',
        action: 'create',
        fields: { name: 'office' },
        seq: 1,
        at: expect.any(String),
      },
    ]);
    const next = await open({ binding, lock: true });
    expect(next.uncertain.map((intent) => intent.address)).toEqual(['TrunkIpAcl/office']);
    await next.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'delete', id: '111' });
    expect((await where.storedJournal()).map((line) => JSON.parse(line).seq)).toEqual([1, 2]);
    await next.close();
  });

  it('settles durably when it holds the lock, in memory only for a read-only run', async () => {
    const first = await open({ binding, lock: true });
    await first.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'create' });
    await first.recordIntent({ address: 'Trunk/old', kind: 'Trunk', action: 'create' });
    await first.close();

    const plan = await open({ binding, lock: false });
    await plan.settle('Trunk/pbx', entry('333'));
    expect(plan.ledger.resources['Trunk/pbx']?.id).toBe('333');
    expect(plan.uncertain.map((intent) => intent.address)).toEqual(['Trunk/old']);
    await plan.close();
    const reread = await open({ binding, lock: false });
    expect(reread.uncertain).toHaveLength(2);
    await reread.close();

    const apply = await open({ binding, lock: true });
    await apply.settle('Trunk/pbx', entry('333'));
    await apply.settle('Trunk/old', undefined);
    await apply.close();
    const after = await open({ binding, lock: false });
    expect(after.uncertain).toEqual([]);
    expect(after.ledger.resources['Trunk/pbx']?.id).toBe('333');
    expect(after.ledger.resources['Trunk/old']).toBeUndefined();
    await after.close();
    expect(await where.storedJournal()).toEqual([]);
  });

  it('refuses a ledger of another account or endpoint', async () => {
    await where.seed(serializeLedger(emptyLedger('http://127.0.0.1:1', 'MAOTHER')), []);
    await expect(open({ binding, lock: false })).rejects.toThrow(
      `the state file ${where.location} belongs to account MAOTHER at http://127.0.0.1:1, not to account MAEMULATOR0000000001 at local; use --state to pick the right file`,
    );
  });

  it('refuses a damaged ledger instead of starting empty', async () => {
    await where.seed('{"format_version": 1, "endp', []);
    await expect(open({ binding, lock: false })).rejects.toThrow(/is not valid JSON/);
  });

  it('lets one apply at a time hold the lock (naming the holder), and another wait for it', async () => {
    const first = await open({ binding, lock: true });
    await expect(open({ binding, lock: true })).rejects.toThrow(
      `is locked by process ${process.pid} on ${hostname()} since `,
    );
    const waiting = open({ binding, lock: true, lockWaitMs: 30_000 });
    setTimeout(() => void first.close(), 200);
    await (await waiting).close();
  });

  it('never writes over a ledger another run changed since it read it (compare-and-swap)', async () => {
    const careless = await open({ binding, lock: false });
    const apply = await open({ binding, lock: true });
    await apply.recordResult('Trunk/pbx', entry('111'));
    await apply.close();
    // What a writer that read before the apply (no ledger yet) and took no lock would write.
    const backend = await where.backend();
    try {
      await expect(
        backend.commit({
          ledger: serializeLedger({ ...careless.ledger, serial: 1 }),
          serial: 1,
          expectedSerial: undefined,
          journal: [],
        }),
      ).rejects.toThrow(
        /was (absent|none) when read and is serial 1 now: another run changed it since it was read; nothing was overwritten, run the command again$/,
      );
      await expect(
        backend.commit({
          ledger: serializeLedger({ ...careless.ledger, serial: 1 }),
          serial: 1,
          expectedSerial: 0,
          journal: [],
        }),
      ).rejects.toThrow(/was serial 0 when read and is serial 1 now/);
    } finally {
      await backend.close();
      await careless.close();
    }
    expect(JSON.parse((await where.storedLedger()) ?? '').resources['Trunk/pbx'].id).toBe('111');
  });
});

describe('LedgerStore on a state file', () => {
  it('takes over a lock whose process is gone', async () => {
    const where = await fileWhere();
    await writeFile(
      lockPath(where.location),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), started_at: 'x' }),
    );
    const store = await LedgerStore.open(await where.backend(), { binding, lock: true });
    await store.close();
    await expect(readFile(lockPath(where.location), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('SecretFingerprinter', () => {
  it('tells same, changed and unverifiable (no fingerprint or another token) apart', () => {
    const fingerprinter = new SecretFingerprinter('token-a');
    const stored = fingerprinter.fingerprint('SipCredential/a', 'password', 'Secret123456');
    expect(stored.hmac).not.toContain('Secret123456');
    expect(fingerprinter.compare(stored, 'SipCredential/a', 'password', 'Secret123456')).toBe('same');
    expect(fingerprinter.compare(stored, 'SipCredential/a', 'password', 'Other1234567')).toBe('changed');
    expect(fingerprinter.compare(undefined, 'SipCredential/a', 'password', 'Secret123456')).toBe('unverifiable');
    expect(new SecretFingerprinter('token-b').compare(stored, 'SipCredential/a', 'password', 'Secret123456')).toBe(
      'unverifiable',
    );
    expect(fingerprinter.fingerprint('SipCredential/b', 'password', 'Secret123456').hmac).not.toBe(stored.hmac);
  });
});
