import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretFingerprinter, emptyLedger, serializeLedger, type LedgerEntry } from '../../src/engine/ledger.js';
import { StateStore, journalPath, lockPath } from '../../src/engine/state-store.js';

let file: string;
const binding = { endpoint: 'local', account: 'MAEMULATOR0000000001' };

function entry(id: string): LedgerEntry {
  return { kind: 'Trunk', name: 'pbx', id, applied_spec: { name: 'pbx' }, secrets: {}, updated_at: '2026-01-01T00:00:00.000Z' };
}

beforeEach(async () => {
  file = join(await mkdtemp(join(tmpdir(), 'telform-state-')), 'telform.state.json');
});

describe('StateStore', () => {
  it('starts an empty ledger bound to the endpoint and account when there is no file', async () => {
    const store = await StateStore.open(file, { binding, lock: false });
    expect(store.existed).toBe(false);
    expect(store.ledger).toMatchObject({ ...binding, serial: 0, resources: {} });
  });

  it('journals each result durably and compacts into the ledger with serial + 1', async () => {
    const store = await StateStore.open(file, { binding, lock: true });
    await store.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'create' });
    await store.recordResult('Trunk/pbx', entry('111'));
    const journal = (await readFile(journalPath(file), 'utf8')).trim().split('\n');
    expect(journal.map((line) => JSON.parse(line).type)).toEqual(['intent', 'result']);
    await store.close();
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.serial).toBe(1);
    expect(saved.resources['Trunk/pbx'].id).toBe('111');
    await expect(readFile(journalPath(file), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(lockPath(file), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('replays a journal left by a crash, reports intents without results, and ignores a torn line', async () => {
    const ledger = emptyLedger(binding.endpoint, binding.account);
    await writeFile(file, serializeLedger(ledger));
    const at = '2026-01-01T00:00:00.000Z';
    await appendFile(
      journalPath(file),
      [
        JSON.stringify({ type: 'intent', seq: 1, address: 'Trunk/pbx', action: 'create', at }),
        JSON.stringify({ type: 'result', seq: 2, address: 'Trunk/pbx', entry: entry('222'), at }),
        JSON.stringify({ type: 'intent', seq: 3, address: 'TrunkIpAcl/office', action: 'create', at }),
        '{"type":"result","seq":4,"addr',
      ].join('\n'),
    );
    const store = await StateStore.open(file, { binding, lock: true });
    expect(store.ledger.resources['Trunk/pbx']?.id).toBe('222');
    expect(store.uncertain).toEqual([{ type: 'intent', seq: 3, address: 'TrunkIpAcl/office', kind: 'TrunkIpAcl', action: 'create', at }]);
    await store.close();
    expect(JSON.parse(await readFile(file, 'utf8')).serial).toBe(1);
  });

  it('keeps intents nobody settled through a compaction, and continues their sequence', async () => {
    const crashed = await StateStore.open(file, { binding, lock: true });
    await crashed.recordIntent({ address: 'TrunkIpAcl/office', kind: 'TrunkIpAcl', action: 'create', fields: { name: 'office' } });
    await crashed.recordResult('Trunk/pbx', entry('111'));
    await crashed.close();
    const journal = (await readFile(journalPath(file), 'utf8')).trim().split('\n');
    expect(journal.map((line) => JSON.parse(line))).toEqual([
      { type: 'intent', address: 'TrunkIpAcl/office', kind: 'TrunkIpAcl', action: 'create', fields: { name: 'office' }, seq: 1, at: expect.any(String) },
    ]);
    const next = await StateStore.open(file, { binding, lock: true });
    expect(next.uncertain.map((intent) => intent.address)).toEqual(['TrunkIpAcl/office']);
    await next.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'delete', id: '111' });
    const records = (await readFile(journalPath(file), 'utf8')).trim().split('\n');
    expect(records.map((line) => JSON.parse(line).seq)).toEqual([1, 2]);
    await next.close();
  });

  it('settles durably when it holds the lock, in memory only for a read-only run', async () => {
    const first = await StateStore.open(file, { binding, lock: true });
    await first.recordIntent({ address: 'Trunk/pbx', kind: 'Trunk', action: 'create' });
    await first.recordIntent({ address: 'Trunk/old', kind: 'Trunk', action: 'create' });
    await first.close();

    const plan = await StateStore.open(file, { binding, lock: false });
    await plan.settle('Trunk/pbx', entry('333'));
    expect(plan.ledger.resources['Trunk/pbx']?.id).toBe('333');
    expect(plan.uncertain.map((intent) => intent.address)).toEqual(['Trunk/old']);
    await plan.close();
    expect((await StateStore.open(file, { binding, lock: false })).uncertain).toHaveLength(2);

    const apply = await StateStore.open(file, { binding, lock: true });
    await apply.settle('Trunk/pbx', entry('333'));
    await apply.settle('Trunk/old', undefined);
    await apply.close();
    const after = await StateStore.open(file, { binding, lock: false });
    expect(after.uncertain).toEqual([]);
    expect(after.ledger.resources['Trunk/pbx']?.id).toBe('333');
    expect(after.ledger.resources['Trunk/old']).toBeUndefined();
    await expect(readFile(journalPath(file), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses a ledger of another account or endpoint', async () => {
    await writeFile(file, serializeLedger(emptyLedger('http://127.0.0.1:1', 'MAOTHER')));
    await expect(StateStore.open(file, { binding, lock: false })).rejects.toThrow(
      `the state file ${file} belongs to account MAOTHER at http://127.0.0.1:1, not to account MAEMULATOR0000000001 at local; use --state to pick the right file`,
    );
  });

  it('refuses a damaged state file instead of starting empty', async () => {
    await writeFile(file, '{"format_version": 1, "endp');
    await expect(StateStore.open(file, { binding, lock: false })).rejects.toThrow(/is not valid JSON/);
  });

  it('lets one apply at a time hold the lock, and takes over a lock whose process is gone', async () => {
    const first = await StateStore.open(file, { binding, lock: true });
    await expect(StateStore.open(file, { binding, lock: true })).rejects.toThrow(/is locked by process \d+/);
    await first.close();
    await writeFile(lockPath(file), JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), started_at: 'x' }));
    const second = await StateStore.open(file, { binding, lock: true });
    await second.close();
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
    expect(new SecretFingerprinter('token-b').compare(stored, 'SipCredential/a', 'password', 'Secret123456')).toBe('unverifiable');
    expect(fingerprinter.fingerprint('SipCredential/b', 'password', 'Secret123456').hmac).not.toBe(stored.hmac);
  });
});
