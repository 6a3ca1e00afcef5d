import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json } from '../../src/emulator/http.js';
import { EmulatorStartError, defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { DataFileWriter, deserialiseState, serialiseState } from '../../src/emulator/persistence.js';
import type { Route } from '../../src/emulator/router.js';
import { createAccountState, createEmulatorState } from '../../src/emulator/state.js';
import { call, callMany, type HttpAnswer } from './fixtures/http.js';

const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const base = `/v1/Account/${defaultAccount.authId}`;

let directory: string;
let dataFile: string;
const running: RunningEmulator[] = [];

async function start(
  options: Parameters<typeof startEmulator>[0] = {},
  routes?: readonly Route[],
): Promise<RunningEmulator> {
  const emulator = await startEmulator({ dataFile, ...options }, routes ? { routes } : {});
  running.push(emulator);
  return emulator;
}

async function stop(emulator: RunningEmulator): Promise<void> {
  await emulator.close();
  running.splice(running.indexOf(emulator), 1);
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telform-persistence-'));
  dataFile = join(directory, 'state.json');
});
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  await rm(directory, { recursive: true, force: true });
});

describe('--data', () => {
  it('keeps every acknowledged write, admin change and the clock offset across a restart', async () => {
    const first = await start();
    const acl = (await call(first.url, `${base}/Zentrunk/IPAccessControlList/`, {
      method: 'POST',
      auth,
      body: { name: 'office', ip_addresses: ['203.0.113.10'] },
    })) as HttpAnswer;
    expect(acl.status).toBe(201);
    const credential = await call(first.url, `${base}/SipAuth/Credential/`, {
      method: 'POST',
      auth,
      body: { username: 'pbx-user', password: 'Secret-Pass-1234' },
    });
    expect(credential).toMatchObject({ status: 201 });
    expect(
      await call(first.url, '/__emulator/clock/', { method: 'POST', body: { advance_ms: 3_600_000 } }),
    ).toMatchObject({ status: 200 });
    expect(
      await call(first.url, `/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
        method: 'POST',
        body: { number: '14155550100' },
      }),
    ).toMatchObject({
      status: 201,
    });
    const offset = first.runtime.state.clockOffsetMs;
    await stop(first);

    const file = await readFile(dataFile, 'utf8');
    expect(file).toContain('pbx-user');
    // Password hashes are kept, passwords never.
    expect(file).not.toContain('Secret-Pass-1234');

    const second = await start();
    expect(second.runtime.state.clockOffsetMs).toBe(offset);
    const acls = await call(second.url, `${base}/Zentrunk/IPAccessControlList/`, { auth });
    expect(acls).toMatchObject({
      status: 200,
      body: { objects: [{ ipacl_uuid: (acl.body as { ipacl_uuid: string }).ipacl_uuid, name: 'office' }] },
    });
    const credentials = await call(second.url, `${base}/SipAuth/Credential/`, { auth });
    expect(credentials).toMatchObject({ status: 200, body: { objects: [{ username: 'pbx-user' }] } });
    expect(second.runtime.state.accounts.get(defaultAccount.authId)?.numbers.has('14155550100')).toBe(true);
  });

  it('starts fresh when the file does not exist, and writes it before serving', async () => {
    const emulator = await start();
    const saved = deserialiseState(await readFile(dataFile, 'utf8'), dataFile);
    expect([...saved.accounts.keys()]).toEqual([defaultAccount.authId]);
    await stop(emulator);
  });

  it('persists collections it has never heard of, with no change to the persistence code', async () => {
    type Widget = { id: string; size: number };
    const widgets = (account: object): Map<string, Widget> => {
      const holder = account as { widgets?: Map<string, Widget> };
      holder.widgets ??= new Map();
      return holder.widgets;
    };
    const routes: Route[] = [
      {
        method: 'POST',
        path: '/Widget/',
        writes: true,
        handle: ({ account, body }) => {
          widgets(account).set(String(body.id), { id: String(body.id), size: Number(body.size) });
          return json(201, { id: body.id });
        },
      },
      {
        method: 'GET',
        path: '/Widget/',
        handle: ({ account }) => json(200, { objects: [...widgets(account).values()] }),
      },
    ];
    const first = await start({}, routes);
    await call(first.url, `${base}/Widget/`, { method: 'POST', auth, body: { id: 'w1', size: 3 } });
    await stop(first);
    const second = await start({}, routes);
    expect(await call(second.url, `${base}/Widget/`, { auth })).toMatchObject({
      status: 200,
      body: { objects: [{ id: 'w1', size: 3 }] },
    });
  });

  it('saves concurrent writes without losing any', async () => {
    const emulator = await start();
    const answers = await callMany(60, 12, (index) =>
      call(emulator.url, `${base}/Zentrunk/IPAccessControlList/`, {
        method: 'POST',
        auth,
        body: { name: `acl-${index}`, ip_addresses: [`198.51.100.${index}`] },
      }),
    );
    expect(answers.every((answer) => (answer as HttpAnswer).status === 201)).toBe(true);
    // Read the file while the emulator still runs: acknowledged means already on disk.
    const saved = deserialiseState(await readFile(dataFile, 'utf8'), dataFile);
    const names = [...(saved.accounts.get(defaultAccount.authId)?.trunkAcls.values() ?? [])]
      .map((acl) => acl.name)
      .sort();
    expect(names).toEqual(Array.from({ length: 60 }, (_, index) => `acl-${index}`).sort());
  });

  it('answers 500 rather than acknowledge a write it could not save', async () => {
    const emulator = await start();
    // A directory where the temporary file goes makes the next save fail.
    await mkdir(`${dataFile}.tmp`);
    const answer = await call(emulator.url, `${base}/Zentrunk/IPAccessControlList/`, {
      method: 'POST',
      auth,
      body: { name: 'unsaved', ip_addresses: ['203.0.113.1'] },
    });
    expect(answer).toMatchObject({ status: 500, body: { error: 'the emulator could not save its state (EISDIR)' } });
  });

  it('refuses to start when the data file cannot be written or placed', async () => {
    await mkdir(`${dataFile}.tmp`);
    await expect(start()).rejects.toThrow(`Cannot write the emulator data file ${dataFile}: EISDIR.`);
    await writeFile(join(directory, 'plain-file'), '');
    const nested = join(directory, 'plain-file', 'state.json');
    await expect(startEmulator({ dataFile: nested })).rejects.toThrow(
      `Cannot create the directory of the data file ${nested}: EEXIST.`,
    );
  });

  it('serves the token given now for an account saved with another one', async () => {
    const first = await start();
    await stop(first);
    const second = await start({ accounts: [{ authId: defaultAccount.authId, authToken: 'new-token' }] });
    expect(await call(second.url, `${base}/Zentrunk/IPAccessControlList/`, { auth })).toMatchObject({ status: 401 });
    expect(
      await call(second.url, `${base}/Zentrunk/IPAccessControlList/`, { auth: [defaultAccount.authId, 'new-token'] }),
    ).toMatchObject({
      status: 200,
    });
  });

  it('refuses a file that is not an emulator state file, naming it', async () => {
    await writeFile(dataFile, '{"truncated": ');
    await expect(start()).rejects.toThrow(
      `The emulator data file ${dataFile} is not valid JSON; move it away to start fresh.`,
    );
    await writeFile(dataFile, '{"hello": "world"}');
    await expect(start()).rejects.toThrow(
      `The emulator data file ${dataFile} is not an emulator state file; move it away to start fresh.`,
    );
    // A refused start leaves no lock behind.
    await rm(dataFile);
    await stop(await start());
  });

  it('gives an account saved by an older emulator what every account starts with since, once', async () => {
    // Saved before initializers were recorded (and before accounts started with numbers): one
    // application left of the fixed three, no numbers.
    const state = createEmulatorState();
    const old = createAccountState(defaultAccount.authId, defaultAccount.authToken);
    state.accounts.set(defaultAccount.authId, old);
    const numbersOf = async (emulator: RunningEmulator): Promise<string[]> =>
      (
        ((await call(emulator.url, `${base}/Number/`, { auth })) as HttpAnswer).body as {
          objects: Array<{ number: string }>;
        }
      ).objects.map((item) => item.number);
    await writeFile(dataFile, serialiseState(state, 'then'));
    const upgraded = await start();
    expect(await numbersOf(upgraded)).toEqual([
      '15125550101',
      '15125550102',
      '15125550103',
      '15125550104',
      '15125550000',
    ]);
    // The applications and profiles such an account already had are left as they were: none here.
    const applications = (await call(upgraded.url, `${base}/Application/`, { auth })) as HttpAnswer;
    expect((applications.body as { objects: unknown[] }).objects).toEqual([]);
    expect(
      await call(upgraded.url, `/__emulator/accounts/${defaultAccount.authId}/numbers/15125550101/`, {
        method: 'DELETE',
      }),
    ).toMatchObject({ status: 200 });
    await stop(upgraded);
    const again = await start();
    expect(await numbersOf(again)).toEqual(['15125550102', '15125550103', '15125550104', '15125550000']);
  });

  it('locks the file: a second emulator is refused until the first stops', async () => {
    const first = await start();
    const refusal = await start().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(EmulatorStartError);
    expect((refusal as EmulatorStartError).code).toBe('data_file_locked');
    expect((refusal as Error).message).toBe(
      `The emulator data file ${dataFile} is in use by another process (pid ${process.pid}); wait for it to finish or use another data file.`,
    );
    await stop(first);
    await stop(await start());
  });

  it('takes over a lock left by a process that was killed', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    await writeFile(`${dataFile}.lock`, `${gone}\n`);
    const emulator = await start();
    expect((await readFile(`${dataFile}.lock`, 'utf8')).trim()).toBe(String(process.pid));
    await stop(emulator);
    await expect(readFile(`${dataFile}.lock`, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('changes made outside write routes', () => {
  it('are saved when they happen (checked each second) and at close', async () => {
    const state = createEmulatorState();
    state.accounts.set('MAX', createAccountState('MAX', 'token'));
    const store = new DataFileWriter(dataFile, state, () => 'now');
    await store.save();
    expect(await store.saveIfChanged()).toBe(false);
    // Like the registry's callback bookkeeping, which a read or a timer changes.
    state.clockOffsetMs = 7;
    expect(await store.saveIfChanged()).toBe(true);
    expect(deserialiseState(await readFile(dataFile, 'utf8'), dataFile).clockOffsetMs).toBe(7);
    state.clockOffsetMs = 8;
    await store.close();
    expect(deserialiseState(await readFile(dataFile, 'utf8'), dataFile).clockOffsetMs).toBe(8);
    await expect(store.save()).rejects.toThrow('the emulator is shutting down');
  });

  it('are saved when a running emulator stops', async () => {
    const emulator = await start();
    emulator.runtime.state.clockOffsetMs = 99;
    await stop(emulator);
    expect(deserialiseState(await readFile(dataFile, 'utf8'), dataFile).clockOffsetMs).toBe(99);
  });
});

describe('the state encoding', () => {
  it('round-trips maps, arrays and nested records', () => {
    const state = createEmulatorState();
    state.clockOffsetMs = 1234;
    const account = createAccountState('MAX', 'token');
    account.trunkAcls.set('a', {
      ipacl_uuid: 'a',
      name: 'n',
      ip_addresses: ['203.0.113.1'],
      created_at: '2024-01-01T00:00:00.000Z',
    });
    account.billing.push({ at: '2024-01-01T00:00:00.000Z', item: 'vetting', amount_usd: 15 });
    state.accounts.set('MAX', account);
    const restored = deserialiseState(serialiseState(state, 'now'), 'f.json');
    expect(restored).toEqual(state);
  });

  it('gives an older file the collections added since', () => {
    const text = JSON.stringify({
      format: 'telform-emulator-state',
      version: 1,
      saved_at: 'x',
      state: { clockOffsetMs: 0, accounts: { $map: [['MAX', { authId: 'MAX', authToken: 't' }]] } },
    });
    expect(deserialiseState(text, 'f.json').accounts.get('MAX')).toEqual(createAccountState('MAX', 't'));
  });
});
