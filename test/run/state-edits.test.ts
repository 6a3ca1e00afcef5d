import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  forgetResources,
  moveResource,
  readState,
  readStateEntry,
  unprotectResource,
} from '../../src/run/state-edits.js';
import { migrateState } from '../../src/run/state-hand-over.js';
import { emptyLedger, SecretFingerprinter, serializeLedger } from '../../src/state/ledger.js';
import { startHarness, type Harness } from './harness.js';

// The state edits as operations, in process: no emulator request is made, only the state file.
let harness: Harness;
let state: string;
const fingerprinter = new SecretFingerprinter('token-of-the-account-000000000000');

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

let round = 0;
beforeEach(async () => {
  round += 1;
  state = path.join(harness.folder, `edits-${round}.json`);
  const ledger = emptyLedger('local', 'MAEMULATOR0000000001');
  ledger.resources['Trunk/pbx-out'] = {
    kind: 'Trunk',
    name: 'pbx-out',
    id: 't1',
    applied_spec: { name: 'pbx-out' },
    secrets: {},
    protect: true,
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  ledger.resources['TrunkCredential/login'] = {
    kind: 'TrunkCredential',
    name: 'login',
    id: 'c1',
    applied_spec: { username: 'pbxuser01' },
    secrets: {
      password: {
        ...fingerprinter.fingerprint('TrunkCredential/login', 'password', 'Tr0ub4dor_and_3'),
        source: { fromEnv: 'PBX_PASSWORD' },
      },
    },
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  await writeFile(state, serializeLedger(ledger));
});

describe('state edits as operations', () => {
  it('moves a credential so its password fingerprint still verifies under the new address, as a manifest move does', async () => {
    const notes: string[] = [];
    const moved = await moveResource(
      'TrunkCredential/login',
      'TrunkCredential/pbx-login',
      { state },
      harness.context({}, notes),
    );
    expect(moved).toEqual({ from: 'TrunkCredential/login', to: 'TrunkCredential/pbx-login', nameField: 'name' });
    expect(notes).toEqual([expect.stringMatching(/^backed up the state to .*edits-\d+\.json\.\d+.*\.backup$/)]);
    const entry = await readStateEntry('TrunkCredential/pbx-login', { state }, harness.context({}));
    expect(entry.name).toBe('pbx-login');
    expect(entry.secrets.password).toMatchObject({
      keyed_as: 'TrunkCredential/login',
      source: { fromEnv: 'PBX_PASSWORD' },
    });
    expect(
      fingerprinter.compare(entry.secrets.password, 'TrunkCredential/pbx-login', 'password', 'Tr0ub4dor_and_3'),
    ).toBe('same');
    expect(fingerprinter.compare(entry.secrets.password, 'TrunkCredential/pbx-login', 'password', 'another-one')).toBe(
      'changed',
    );
    expect(Object.keys((await readState({ state }, harness.context({}))).resources)).toEqual([
      'Trunk/pbx-out',
      'TrunkCredential/pbx-login',
    ]);
  });

  it('keeps the address a fingerprint was made under through a second move', async () => {
    await moveResource('TrunkCredential/login', 'TrunkCredential/a', { state }, harness.context({}));
    await moveResource('TrunkCredential/a', 'TrunkCredential/b', { state }, harness.context({}));
    const entry = await readStateEntry('TrunkCredential/b', { state }, harness.context({}));
    expect(fingerprinter.compare(entry.secrets.password, 'TrunkCredential/b', 'password', 'Tr0ub4dor_and_3')).toBe(
      'same',
    );
  });

  it('refuses a move across kinds, to a held address or to an invalid name, changing nothing', async () => {
    const context = harness.context({});
    await expect(moveResource('Trunk/pbx-out', 'Brand/x', { state }, context)).rejects.toThrow(
      'Trunk/pbx-out is a Trunk; it cannot become a Brand',
    );
    await expect(moveResource('Trunk/pbx-out', 'Trunk/pbx-out', { state }, context)).rejects.toThrow(
      'Trunk/pbx-out is already in the state',
    );
    await expect(moveResource('Trunk/pbx-out', 'Trunk/Not Valid', { state }, context)).rejects.toThrow(
      '"Not Valid" is not a valid metadata.name',
    );
    await expect(moveResource('Trunk/nope', 'Trunk/x', { state }, context)).rejects.toThrow(
      `Trunk/nope is not in the state ${state} (see telform state list)`,
    );
    expect((await readState({ state }, context)).serial).toBe(0);
  });

  it('forgets resources and lifts a protection, each backed up first', async () => {
    const notes: string[] = [];
    const context = harness.context({}, notes);
    expect(await unprotectResource('TrunkCredential/login', { state }, context)).toBe(false);
    expect(await unprotectResource('Trunk/pbx-out', { state }, context)).toBe(true);
    expect((await readStateEntry('Trunk/pbx-out', { state }, context)).protect).toBeUndefined();
    await expect(forgetResources(['Trunk/pbx-out', 'Trunk/nope'], { state }, context)).rejects.toThrow(
      'Trunk/nope is not in the state',
    );
    expect(await forgetResources(['Trunk/pbx-out'], { state }, context)).toEqual(['Trunk/pbx-out']);
    expect(Object.keys((await readState({ state }, context)).resources)).toEqual(['TrunkCredential/login']);
    expect(notes.filter((note) => note.startsWith('backed up the state to '))).toHaveLength(2);
  });

  it('migrates the ledger to another file and retires the source', async () => {
    const target = path.join(harness.folder, `migrated-${round}.json`);
    const done = await migrateState(target, undefined, { state }, harness.context({}));
    expect(done).toMatchObject({ from: state, to: target, resources: 2, serial: 0 });
    expect(Object.keys((await readState({ state: target }, harness.context({}))).resources)).toHaveLength(2);
    await expect(readState({ state }, harness.context({}))).rejects.toThrow(/retired/);
    expect((await readdir(harness.folder)).filter((file) => file.startsWith(`migrated-${round}`))).toContain(
      `migrated-${round}.json`,
    );
  });
});
