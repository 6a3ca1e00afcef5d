import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * What `telform import` writes, byte for byte, in both layouts, kept in files beside this test
 * (written by the import before it wrote its documents directly and its files in one write each):
 * an account holding, with fixed ids, the SIP and trunking objects in the shapes import meets
 * (plain names, names it must make up, names taken twice, text YAML must quote or escape, short and
 * long lists, refs, secrets to provide, references to objects it does not import).
 */
const uuid = (group: string, index: number) => `${group}000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
const addresses = Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`);
const existing = {
  sip_credentials: [
    { credential_uuid: uuid('c1', 1), username: 'Desk.Phones' },
    { credential_uuid: uuid('c1', 2), username: 'softphones' },
  ],
  sip_ip_acls: [
    {
      ip_acl_uuid: uuid('d1', 1),
      name: 'Office LAN',
      entries: [
        { entry_id: uuid('e1', 1), ip: '203.0.113.0', cidr_prefix: 28, description: 'office: 2nd floor' },
        { entry_id: uuid('e1', 2), ip: '198.51.100.7', description: 'say "hi" #1' },
      ],
    },
    { ip_acl_uuid: uuid('d1', 2), name: 'remote', entries: [{ entry_id: uuid('e1', 3), ip: '192.0.2.44' }] },
  ],
  trunk_credentials: [{ credential_uuid: uuid('f1', 1), username: 'sip_user_2', name: 'pbx login' }],
  trunk_ip_acls: [
    { ipacl_uuid: uuid('a1', 1), name: 'office', ip_addresses: ['203.0.113.10', '198.51.100.0/28'] },
    { ipacl_uuid: uuid('a1', 2), name: 'office', ip_addresses: ['192.0.2.1'] },
    { ipacl_uuid: uuid('a1', 3), name: 'Branch: East #2', ip_addresses: addresses },
    { ipacl_uuid: uuid('a1', 4), name: '', ip_addresses: [] },
    { ipacl_uuid: uuid('a1', 5), name: 'caf\u00e9 \u202eevil', ip_addresses: ['10.0.0.1'] },
    { ipacl_uuid: uuid('a1', 6), name: 'true', ip_addresses: ['10.0.0.2'] },
  ],
  origination_uris: [
    { uri_uuid: uuid('b2', 1), name: 'pbx-main', uri: 'sip1.pbx.example.com:5060' },
    {
      uri_uuid: uuid('b2', 2),
      name: 'pbx backup',
      uri: 'sip:backup@pbx.example.com;transport=tcp',
      authentication_needed: true,
      username: 'backup',
    },
  ],
  trunks: [
    {
      trunk_id: '70000000001',
      name: 'outbound-1',
      trunk_direction: 'outbound',
      ipacl_uuid: uuid('a1', 1),
      credential_uuid: uuid('f1', 1),
      secure: true,
    },
    {
      trunk_id: '70000000002',
      name: 'Inbound Main',
      trunk_direction: 'inbound',
      primary_uri_uuid: uuid('b2', 1),
      fallback_uri_uuid: uuid('b2', 2),
      trunk_status: 'disabled',
    },
    { trunk_id: '70000000003', name: 'not-imported-acl', trunk_direction: 'outbound', ipacl_uuid: uuid('a1', 99) },
  ],
};
const kinds = 'SipCredential,SipIpAcl,TrunkCredential,TrunkIpAcl,OriginationUri,Trunk';

let harness: EmulatorForCli;
let folder: string;

beforeAll(async () => {
  harness = await emulatorForCli({ shapes: 'ideal', seedData: { existing } });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-import-output-'));
});

afterAll(async () => {
  await harness?.emulator.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Every file under `root` but the schema copy, by path relative to it, in order. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !file.startsWith('schemas/'))
    .sort();
}

describe.each(['per-kind', 'per-resource'])('import --layout %s', (layout) => {
  it('writes the same files, byte for byte, as before', async () => {
    const out = `out-${layout}`;
    const state = `${layout}.state.json`;
    const run = await runCli(['import', '--kinds', kinds, '--layout', layout, '--out', out, '--state', state], {
      cwd: folder,
      env: harness.env,
    });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    await expect(run.stdout).toMatchFileSnapshot(`fixtures/import-output/${layout}/stdout.txt`);
    const files = await filesUnder(path.join(folder, out));
    await expect(`${files.join('\n')}\n`).toMatchFileSnapshot(`fixtures/import-output/${layout}/files.txt`);
    for (const file of files) {
      await expect(await readFile(path.join(folder, out, file), 'utf8')).toMatchFileSnapshot(
        `fixtures/import-output/${layout}/${file}.snap`,
      );
    }
    // The next layout imports the same account: let it go.
    const released = await runCli(['state', 'release', '--state', state], { cwd: folder, env: harness.env });
    expect(released.code).toBe(0);
  });
});
