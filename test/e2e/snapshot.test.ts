import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, runCli } from './cli.js';

/** Every file under `folder` with its text, by relative path. */
async function filesOf(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(folder, full)] = await readFile(full, 'utf8');
  }
  return out;
}

const started: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

describe('telform snapshot', () => {
  it('writes the production-shaped account into a file a fresh emulator loads, which imports to the same manifests', async () => {
    const original = await emulatorForCli({ shapes: 'production' });
    started.push(original.emulator);
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-snapshot-'));
    const taken = await runCli(['snapshot', '--out', 'account.snapshot.json'], { cwd: folder, env: original.env });
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect(taken.stdout).toMatch(/^wrote account\.snapshot\.json: \d+ objects of account MAEMULATOR0000000001\n$/);
    const snapshotText = await readFile(path.join(folder, 'account.snapshot.json'), 'utf8');
    // No write-only value is in it: the API never returns one.
    expect(snapshotText).not.toMatch(/password/i);

    const replica = await startEmulator({ dataFile: path.join(folder, 'account.snapshot.json') });
    started.push(replica);
    expect(replica.snapshot).toMatchObject({ account: 'MAEMULATOR0000000001', inMemory: true });
    const replicaEnv = { ...original.env, TELFORM_ENDPOINT: replica.url };

    const fromOriginal = await runCli(['import', '--out', path.join(folder, 'original')], {
      cwd: await mkdtemp(path.join(tmpdir(), 'telform-a-')),
      env: original.env,
    });
    const fromReplica = await runCli(['import', '--out', path.join(folder, 'replica')], {
      cwd: await mkdtemp(path.join(tmpdir(), 'telform-b-')),
      env: replicaEnv,
    });
    expect(fromOriginal.code).toBe(0);
    expect(fromReplica.code).toBe(0);
    const manifests = await filesOf(path.join(folder, 'original'));
    expect(Object.keys(manifests).length).toBeGreaterThan(3);
    expect(await filesOf(path.join(folder, 'replica'))).toEqual(manifests);
    // The snapshot file is evidence: loading and using the replica never rewrote it.
    expect(await readFile(path.join(folder, 'account.snapshot.json'), 'utf8')).toBe(snapshotText);
  });

  it('keeps what the API returned as is: legacy values, and fields a read does not return stay absent', async () => {
    const original = await emulatorForCli({ shapes: 'production' });
    started.push(original.emulator);
    // Voice objects made by hand, beside the seed's 10DLC ones.
    const made = [
      await callApi(original.emulator, 'POST', '/SipAuth/Credential/', {
        username: 'deskphone01',
        password: 'Desk-phone-secret-1!',
      }),
      await callApi(original.emulator, 'POST', '/SipAuth/IpAccessControlList/', {
        name: 'office',
        entries: [{ ip: '203.0.113.10', description: 'hq' }],
      }),
      await callApi(original.emulator, 'POST', '/Zentrunk/IPAccessControlList/', {
        name: 'pbx',
        ip_addresses: ['198.51.100.7'],
      }),
    ];
    const uri = await callApi(original.emulator, 'POST', '/Zentrunk/URI/', {
      name: 'pbx-primary',
      uri: 'pbx.example.com:5060',
    });
    made.push(
      uri,
      await callApi(original.emulator, 'POST', '/Zentrunk/Trunk/', {
        name: 'in',
        trunk_direction: 'inbound',
        primary_uri_uuid: uri.body.uri_uuid,
      }),
    );
    expect(made.map((answer) => answer.status < 300)).toEqual([true, true, true, true, true]);
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-snapshot-'));
    expect((await runCli(['snapshot', '--out', 's.json'], { cwd: folder, env: original.env })).code).toBe(0);
    expect(await readFile(path.join(folder, 's.json'), 'utf8')).not.toContain('Desk-phone-secret-1!');
    const replica = await startEmulator({ dataFile: path.join(folder, 's.json') });
    started.push(replica);
    const lists = [
      '/10dlc/Brand/?limit=20',
      '/10dlc/Campaign/?limit=20',
      '/Profile/?limit=20',
      '/Number/?limit=20',
      '/SipAuth/Credential/',
      '/SipAuth/IpAccessControlList/',
    ];
    for (const list of [
      ...lists,
      '/Zentrunk/IPAccessControlList/',
      '/Zentrunk/URI/',
      '/Zentrunk/Trunk/',
      '/Application/',
    ]) {
      const before = await callApi(original.emulator, 'GET', list);
      const after = await callApi(replica, 'GET', list);
      const items = (body: Record<string, unknown>): unknown =>
        (body.objects ?? body.brands ?? body.campaigns ?? body.profiles ?? body.brand ?? body.campaign) as unknown;
      // Same objects and fields (key order aside).
      expect(JSON.parse(JSON.stringify(items(after.body)).replaceAll(replica.url, ''))).toEqual(
        JSON.parse(JSON.stringify(items(before.body)).replaceAll(original.emulator.url, '')),
      );
    }
  });

  it('notes a product the account does not have and still writes the rest', async () => {
    const original = await emulatorForCli({ products: ['10dlc'] });
    started.push(original.emulator);
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-snapshot-'));
    const taken = await runCli(['snapshot', '--out', 's.json'], { cwd: folder, env: original.env });
    expect(taken.code).toBe(0);
    expect(taken.stderr).toContain(
      'note: /Zentrunk/Trunk/ was not read: the account does not have SIP trunking (SIP trunking not enabled)',
    );
    const document = JSON.parse(await readFile(path.join(folder, 's.json'), 'utf8')) as { products: string[] };
    expect(document.products).toEqual(['10dlc']);
    const replica = await startEmulator({ dataFile: path.join(folder, 's.json') });
    started.push(replica);
    expect([...replica.config.products]).toEqual(['10dlc']);
  });
});
