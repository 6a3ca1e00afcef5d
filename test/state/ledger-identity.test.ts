// One ledger, one identity: a retired ledger refuses, a linked path shares the lock, damage is loud.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FileBackend,
  journalPath,
  lockPath,
  resolveStatePath,
  unreadableLockTakeoverMs,
} from '../../src/state/backends/file.js';
import { emptyLedger, parseLedger, serializeLedger, type LedgerEntry } from '../../src/state/ledger.js';
import { LedgerStore } from '../../src/state/ledger-store.js';

const binding = { endpoint: 'local', account: 'MA1' };

async function folder(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'telform-identity-'));
}

function entry(name: string, id: string): LedgerEntry {
  return {
    kind: 'TrunkIpAcl',
    name,
    id,
    applied_spec: { name, ip_addresses: ['192.0.2.1'] },
    secrets: {},
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

const intent = (seq: number, name: string) =>
  JSON.stringify({
    type: 'intent',
    seq,
    address: `TrunkIpAcl/${name}`,
    kind: 'TrunkIpAcl',
    action: 'create',
    at: '2026-01-01T00:00:00.000Z',
  });
const result = (seq: number, name: string, id: string) =>
  JSON.stringify({
    type: 'result',
    seq,
    address: `TrunkIpAcl/${name}`,
    entry: entry(name, id),
    at: '2026-01-01T00:00:00.000Z',
  });

describe('a retired ledger', () => {
  it('refuses every command, naming where it went, until --reopen-retired makes it a new ledger', async () => {
    const file = join(await folder(), 'telform.state.json');
    const ledger = { ...emptyLedger('local', 'MA1'), serial: 3, resources: { 'TrunkIpAcl/a': entry('a', 'id-a') } };
    await writeFile(file, serializeLedger(ledger));
    const store = await LedgerStore.open(new FileBackend(file), { binding, lock: true });
    store.retire('--state postgres://db/telform --workspace acme');
    await store.close();

    for (const lock of [false, true]) {
      await expect(LedgerStore.open(new FileBackend(file), { binding, lock })).rejects.toMatchObject({
        code: 'state_retired',
        message: expect.stringMatching(
          /^the state .*telform\.state\.json was migrated at \S+Z and is retired: use --state postgres:\/\/db\/telform --workspace acme instead/,
        ),
      });
    }
    const notes: string[] = [];
    const reading = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: false,
      reopenRetired: true,
      notify: (line) => notes.push(line),
    });
    expect(reading.ledger.lineage).toBe(ledger.lineage);
    await reading.close();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      retired: { to: '--state postgres://db/telform --workspace acme' },
    });

    const reopened = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: true,
      reopenRetired: true,
      notify: (line) => notes.push(line),
    });
    await reopened.close();
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(written.retired).toBeUndefined();
    expect(written.lineage).not.toBe(ledger.lineage);
    expect(written.resources).toEqual(ledger.resources);
    expect(notes[1]).toContain(
      `reopened the retired state ${file} as a new ledger (lineage ${written.lineage as string})`,
    );
  });
});

describe('a state path', () => {
  it('is resolved through links, so a file and a link to it share one lock and the link survives a write', async () => {
    const dir = await folder();
    const file = join(dir, 'real.state.json');
    const link = join(dir, 'link.state.json');
    await symlink('real.state.json', link);
    expect(await resolveStatePath(link)).toBe(file);

    const first = await LedgerStore.open(new FileBackend(file), { binding, lock: true });
    await expect(LedgerStore.open(new FileBackend(link), { binding, lock: true })).rejects.toMatchObject({
      code: 'state_locked',
    });
    await first.recordResult('TrunkIpAcl/a', entry('a', 'id-a'));
    await first.close();

    const second = await LedgerStore.open(new FileBackend(link), { binding, lock: true });
    expect(Object.keys(second.ledger.resources)).toEqual(['TrunkIpAcl/a']);
    await second.recordResult('TrunkIpAcl/b', entry('b', 'id-b'));
    await second.close();
    const { lstat } = await import('node:fs/promises');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(Object.keys((JSON.parse(await readFile(file, 'utf8')) as { resources: object }).resources)).toEqual([
      'TrunkIpAcl/a',
      'TrunkIpAcl/b',
    ]);
  });

  it('resolves a linked folder and a dangling link the first apply will create', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'states'));
    await symlink('states', join(dir, 'current'));
    await symlink('states/acme.json', join(dir, 'acme.json'));
    expect(await resolveStatePath(join(dir, 'current', 'x.json'))).toBe(join(dir, 'states', 'x.json'));
    expect(await resolveStatePath(join(dir, 'acme.json'))).toBe(join(dir, 'states', 'acme.json'));
    await symlink('loop-b', join(dir, 'loop-a'));
    await symlink('loop-a', join(dir, 'loop-b'));
    await expect(resolveStatePath(join(dir, 'loop-a'))).rejects.toMatchObject({ code: 'state_path' });
  });

  it('under a plain file is a user error naming the file in the way, when read and when locked to be created', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'notes.txt'), '');
    const message = `the state path ${join(dir, 'notes.txt', 'x.json')} is under ${join(dir, 'notes.txt')}, which is a file, not a folder; --state names a state file in a folder`;
    await expect(resolveStatePath(join(dir, 'notes.txt', 'x.json'))).rejects.toMatchObject({
      code: 'state_path',
      message,
    });
    await expect(new FileBackend(join(dir, 'notes.txt', 'x.json')).lock(0)).rejects.toMatchObject({
      code: 'state_path',
      message,
    });
    const deeper = join(dir, 'notes.txt', 'a', 'b', 'x.json');
    await expect(new FileBackend(deeper).lock(0)).rejects.toMatchObject({
      code: 'state_path',
      message: `the state path ${deeper} is under ${join(dir, 'notes.txt')}, which is a file, not a folder; --state names a state file in a folder`,
    });
  });
});

describe('damage is loud', () => {
  it('ignores only a torn last journal record, saying so, and names any other damaged record', async () => {
    const file = join(await folder(), 'telform.state.json');
    await writeFile(journalPath(file), `${intent(1, 'a')}\n${result(2, 'a', 'id-a')}\n{"type":"res`);
    const notes: string[] = [];
    const store = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: false,
      notify: (line) => notes.push(line),
    });
    expect(Object.keys(store.ledger.resources)).toEqual(['TrunkIpAcl/a']);
    expect(notes).toEqual([
      `the last record of the journal of ${file} was cut short by a crash and is ignored (record 3)`,
    ]);
    await store.close();

    await writeFile(journalPath(file), `${intent(1, 'a')}\n{"type":"intent","se\n${intent(3, 'b')}\n`);
    await expect(LedgerStore.open(new FileBackend(file), { binding, lock: false })).rejects.toMatchObject({
      code: 'journal_corrupt',
      message: `record 2 of 3 in the journal of ${file} is damaged (it starts "{\\"type\\":\\"intent\\",\\"se"); only a torn last record is ignored. Restore the journal from a backup, or remove that record by hand if you know what it was`,
    });
    await writeFile(journalPath(file), `${intent(1, 'a')}\n[1,2]\n${intent(3, 'b')}\n`);
    await expect(LedgerStore.open(new FileBackend(file), { binding, lock: false })).rejects.toMatchObject({
      code: 'journal_corrupt',
    });
  });

  it('reports a ledger that exists only as a journal instead of saying there is no state', async () => {
    const file = join(await folder(), 'telform.state.json');
    await writeFile(journalPath(file), [intent(1, 'a'), result(2, 'a', 'id-a'), intent(3, 'b')].join('\n'));
    await expect(LedgerStore.open(new FileBackend(file), { lock: false })).rejects.toMatchObject({
      code: 'state_journal_only',
      message: `the state at ${file} has no ledger yet, but its journal holds 3 records of an apply that stopped before writing it (1 result, 1 operation to settle); run telform plan with this --state to see them and telform apply to settle and record them`,
    });
    // With the account known (plan, apply), it is replayed and its open intent is there to settle.
    const store = await LedgerStore.open(new FileBackend(file), { binding, lock: false });
    expect(Object.keys(store.ledger.resources)).toEqual(['TrunkIpAcl/a']);
    expect(store.uncertain.map((open) => open.address)).toEqual(['TrunkIpAcl/b']);
    await store.close();
  });

  it('takes over an empty or damaged lock file once it is older than the bound, and says so', async () => {
    const file = join(await folder(), 'telform.state.json');
    await writeFile(lockPath(file), '');
    await expect(LedgerStore.open(new FileBackend(file), { binding, lock: true })).rejects.toMatchObject({
      code: 'state_locked',
    });
    const old = new Date(Date.now() - unreadableLockTakeoverMs - 5_000);
    await utimes(lockPath(file), old, old);
    const notes: string[] = [];
    const store = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: true,
      notify: (line) => notes.push(line),
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `^took over the lock ${lockPath(file).replace(/[.]/g, '\\.')}: it names no holder \\(empty or damaged\\) and is 1[56] s old$`,
      ),
    );
    expect(JSON.parse(await readFile(lockPath(file), 'utf8'))).toMatchObject({ pid: process.pid });
    await store.close();

    await writeFile(lockPath(file), 'not json at all');
    await utimes(lockPath(file), old, old);
    const again = await LedgerStore.open(new FileBackend(file), { binding, lock: true, notify: () => undefined });
    await again.close();
  });
});

describe('a lock whose holder was killed and never reaped', () => {
  // A SIGKILLed telform whose parent never waits for it (PID 1 of a container that does not reap) stays a
  // zombie: it still answers signal 0, but it holds nothing. `sh` starts the holder in the background and
  // becomes a `sleep` that never reaps it, as such a PID 1 does.
  it.runIf(process.platform === 'linux')('is taken over: a zombie is not alive', async () => {
    const file = join(await folder(), 'telform.state.json');
    const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const holder = Number(
        await new Promise<string>((done) => parent.stdout.once('data', (chunk: Buffer) => done(chunk.toString()))),
      );
      await writeFile(
        lockPath(file),
        `${JSON.stringify({ pid: holder, host: hostname(), started_at: new Date().toISOString() })}\n`,
      );
      // Alive, the holder keeps the lock.
      await expect(LedgerStore.open(new FileBackend(file), { binding, lock: true })).rejects.toMatchObject({
        code: 'state_locked',
      });
      process.kill(holder, 'SIGKILL');
      const stateOf = async () => {
        const stat = await readFile(`/proc/${holder}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      };
      while ((await stateOf()) !== 'Z') await new Promise((done) => setTimeout(done, 20));
      expect(() => process.kill(holder, 0)).not.toThrow();
      const store = await LedgerStore.open(new FileBackend(file), { binding, lock: true });
      expect(JSON.parse(await readFile(lockPath(file), 'utf8'))).toMatchObject({ pid: process.pid });
      await store.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('a torn journal tail', () => {
  it('is cut off before the next run appends, so it never becomes damage in the middle', async () => {
    const file = join(await folder(), 'telform.state.json');
    await writeFile(journalPath(file), `${intent(1, 'a')}\n{"type":"res`);
    const store = await LedgerStore.open(new FileBackend(file), { binding, lock: true, notify: () => undefined });
    await store.recordIntent({ address: 'TrunkIpAcl/b', kind: 'TrunkIpAcl', action: 'create' });
    const lines = (await readFile(journalPath(file), 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => (JSON.parse(line) as { seq: number; address: string }).address)).toEqual([
      'TrunkIpAcl/a',
      'TrunkIpAcl/b',
    ]);
    // Killed here: the next run reads both intents, and no damage.
    const next = await LedgerStore.open(new FileBackend(file), { binding, lock: false });
    expect(next.uncertain.map((open) => open.address)).toEqual(['TrunkIpAcl/a', 'TrunkIpAcl/b']);
    await next.close();
    await store.close();
  });
});

describe('a ledger parsed earlier in the run', () => {
  it('is reused by a run without the lock while the stored text is the same, and parsed again otherwise', async () => {
    const file = join(await folder(), 'telform.state.json');
    const text = serializeLedger({ ...emptyLedger('local', 'MA1'), resources: { 'TrunkIpAcl/a': entry('a', 'id-a') } });
    await writeFile(file, text);
    const peeked = parseLedger(text, file);

    const reading = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: false,
      parsed: { text, ledger: peeked },
    });
    expect(reading.ledger).toBe(peeked);
    await reading.close();

    // The state changed since it was peeked: the stored text is what counts.
    const changed = serializeLedger({
      ...emptyLedger('local', 'MA1'),
      resources: { 'TrunkIpAcl/b': entry('b', 'id-b') },
    });
    await writeFile(file, changed);
    const fresh = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: false,
      parsed: { text, ledger: peeked },
    });
    expect(fresh.ledger).not.toBe(peeked);
    expect(Object.keys(fresh.ledger.resources)).toEqual(['TrunkIpAcl/b']);
    await fresh.close();

    // A run that takes the lock always reads what it locked.
    await writeFile(file, text);
    const locked = await LedgerStore.open(new FileBackend(file), {
      binding,
      lock: true,
      parsed: { text, ledger: peeked },
    });
    expect(locked.ledger).not.toBe(peeked);
    expect(locked.ledger).toEqual(peeked);
    await locked.close();
  });
});
