import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
let acl: string;
let credential: string;
let primary: string;
let fallback: string;

beforeAll(async () => {
  client = await startCoreEmulator();
  acl = (await client.post('/Zentrunk/IPAccessControlList/', { name: 'pbx', ip_addresses: ['203.0.113.10'] })).body
    .ipacl_uuid;
  credential = (await client.post('/Zentrunk/Credential/', { username: 'pbxuser1', password: 'pass!word1' })).body
    .credential_uuid;
  primary = (await client.post('/Zentrunk/URI/', { name: 'primary', uri: 'sip.example.com' })).body.uri_uuid;
  fallback = (await client.post('/Zentrunk/URI/', { name: 'fallback', uri: '192.0.2.20:5060' })).body.uri_uuid;
});
afterAll(async () => {
  await client.emulator.close();
});

async function createTrunk(body: Record<string, unknown>): Promise<string> {
  const reply = await client.post('/Zentrunk/Trunk/', body);
  expect(reply.status).toBe(201);
  return reply.body.trunk_id as string;
}

async function readTrunk(id: string): Promise<Record<string, unknown>> {
  const reply = await client.get(`/Zentrunk/Trunk/${id}/`);
  expect(reply.status).toBe(200);
  return reply.body.object as Record<string, unknown>;
}

describe('trunk create', () => {
  it('creates an outbound trunk with 201 and the spec message, defaults applied', async () => {
    const reply = await client.post('/Zentrunk/Trunk/', { name: 'out', trunk_direction: 'outbound', ipacl_uuid: acl });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Trunk created successfully.',
      trunk_id: expect.stringMatching(/^\d{17}$/),
    });
    const id = reply.body.trunk_id as string;
    expect(await readTrunk(id)).toEqual({
      trunk_id: id,
      name: 'out',
      trunk_status: 'enabled',
      secure: false,
      trunk_domain: `${id}.zt.plivo.com`,
      trunk_direction: 'outbound',
      ipacl_uuid: acl,
      credential_uuid: null,
      primary_uri_uuid: null,
      fallback_uri_uuid: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it('accepts an outbound trunk with only a credential, or with both', async () => {
    const onlyCredential = await createTrunk({ trunk_direction: 'outbound', credential_uuid: credential });
    expect(await readTrunk(onlyCredential)).toMatchObject({ ipacl_uuid: null, credential_uuid: credential });
    const both = await createTrunk({
      trunk_direction: 'outbound',
      credential_uuid: credential,
      ipacl_uuid: acl,
      secure: true,
      trunk_status: 'disabled',
    });
    expect(await readTrunk(both)).toMatchObject({
      ipacl_uuid: acl,
      credential_uuid: credential,
      secure: true,
      trunk_status: 'disabled',
    });
  });

  it('creates an inbound trunk and returns the outbound fields as null', async () => {
    const id = await createTrunk({
      name: 'in',
      trunk_direction: 'inbound',
      primary_uri_uuid: primary,
      fallback_uri_uuid: fallback,
      ipacl_uuid: acl,
    });
    expect(await readTrunk(id)).toMatchObject({
      trunk_direction: 'inbound',
      primary_uri_uuid: primary,
      fallback_uri_uuid: fallback,
      ipacl_uuid: null,
      credential_uuid: null,
    });
  });

  it('answers 422 for missing required parameters', async () => {
    expect(await client.post('/Zentrunk/Trunk/', { name: 'x' })).toMatchObject({
      status: 422,
      body: errorWith('trunk_direction is required'),
    });
    expect(await client.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound' })).toMatchObject({
      status: 422,
      body: errorWith('an outbound trunk needs ipacl_uuid or credential_uuid'),
    });
    expect(await client.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound', ipacl_uuid: '' })).toMatchObject({
      status: 422,
    });
    expect(
      await client.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', fallback_uri_uuid: fallback }),
    ).toMatchObject({
      status: 422,
      body: errorWith('an inbound trunk needs primary_uri_uuid'),
    });
    // Outbound references do not satisfy an inbound trunk.
    expect((await client.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', ipacl_uuid: acl })).status).toBe(422);
  });

  it('answers 400 for bad values, naming the field', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ trunk_direction: 'sideways' }, 'trunk_direction must be inbound or outbound'],
      [
        { trunk_direction: 'outbound', ipacl_uuid: acl, trunk_status: 'paused' },
        'trunk_status must be enabled or disabled',
      ],
      [{ trunk_direction: 'outbound', ipacl_uuid: acl, secure: 'true' }, 'secure must be a boolean'],
      [{ trunk_direction: 'outbound', ipacl_uuid: acl, name: 7 }, 'name must be a string'],
      [
        { trunk_direction: 'outbound', ipacl_uuid: 'nope' },
        'ipacl_uuid nope is not a trunk IP access control list of this account',
      ],
      [
        { trunk_direction: 'outbound', credential_uuid: acl },
        `credential_uuid ${acl} is not a trunk credential of this account`,
      ],
      [
        { trunk_direction: 'inbound', primary_uri_uuid: acl },
        `primary_uri_uuid ${acl} is not an origination URI of this account`,
      ],
      [
        { trunk_direction: 'inbound', primary_uri_uuid: primary, fallback_uri_uuid: 'x' },
        'fallback_uri_uuid x is not an origination URI of this account',
      ],
      [{ trunk_direction: 'outbound', ipacl_uuid: ['a'] }, 'ipacl_uuid must be a string'],
    ];
    for (const [body, message] of refusals) {
      const reply = await client.post('/Zentrunk/Trunk/', body);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorWith(message));
    }
  });

  it('serves the same resources under the spec segment Trunking', async () => {
    const reply = await client.post('/Trunking/Trunk/', {
      trunk_direction: 'outbound',
      ipacl_uuid: acl,
      name: 'via-trunking',
    });
    expect(reply.status).toBe(201);
    expect((await client.get(`/Zentrunk/Trunk/${reply.body.trunk_id}/`)).body.object.name).toBe('via-trunking');
    expect((await client.get(`/Trunking/Trunk/${reply.body.trunk_id}/`)).body.object.name).toBe('via-trunking');
  });
});

describe('trunk update and delete', () => {
  it('updates with 202 and the spec message, bumping updated_at only on a change', async () => {
    const id = await createTrunk({ name: 'upd', trunk_direction: 'outbound', ipacl_uuid: acl });
    const before = await readTrunk(id);
    client.emulator.runtime.advanceClock(5_000);
    const noop = await client.post(`/Zentrunk/Trunk/${id}/`, {});
    expect(noop.status).toBe(202);
    expect((await readTrunk(id)).updated_at).toBe(before.updated_at);
    const reply = await client.post(`/Zentrunk/Trunk/${id}/`, {
      trunk_status: 'disabled',
      secure: true,
      credential_uuid: credential,
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Trunk updated successfully.',
      trunk_id: id,
    });
    const after = await readTrunk(id);
    expect(after).toMatchObject({
      trunk_status: 'disabled',
      secure: true,
      ipacl_uuid: acl,
      credential_uuid: credential,
      name: 'upd',
    });
    expect(after.updated_at).not.toBe(before.updated_at);
    expect(after.created_at).toBe(before.created_at);
  });

  it('clears an optional reference with "" but keeps direction needs (422)', async () => {
    const id = await createTrunk({
      trunk_direction: 'inbound',
      primary_uri_uuid: primary,
      fallback_uri_uuid: fallback,
    });
    expect((await client.post(`/Zentrunk/Trunk/${id}/`, { fallback_uri_uuid: '' })).status).toBe(202);
    expect((await readTrunk(id)).fallback_uri_uuid).toBeNull();
    const refused = await client.post(`/Zentrunk/Trunk/${id}/`, { primary_uri_uuid: '' });
    expect(refused).toMatchObject({ status: 422, body: errorWith('an inbound trunk needs primary_uri_uuid') });
    expect((await readTrunk(id)).primary_uri_uuid).toBe(primary);
  });

  it('changes direction when the new direction is satisfied, nulling the old fields', async () => {
    const id = await createTrunk({ trunk_direction: 'outbound', ipacl_uuid: acl });
    expect((await client.post(`/Zentrunk/Trunk/${id}/`, { trunk_direction: 'inbound' })).status).toBe(422);
    expect(
      (await client.post(`/Zentrunk/Trunk/${id}/`, { trunk_direction: 'inbound', primary_uri_uuid: primary })).status,
    ).toBe(202);
    expect(await readTrunk(id)).toMatchObject({
      trunk_direction: 'inbound',
      ipacl_uuid: null,
      primary_uri_uuid: primary,
    });
  });

  it('refuses bad update values with 400', async () => {
    const id = await createTrunk({ trunk_direction: 'outbound', ipacl_uuid: acl });
    expect((await client.post(`/Zentrunk/Trunk/${id}/`, { trunk_status: 'on' })).body).toEqual(
      errorWith('trunk_status must be enabled or disabled'),
    );
    expect((await client.post(`/Zentrunk/Trunk/${id}/`, { ipacl_uuid: 'gone' })).status).toBe(400);
    expect((await client.post('/Zentrunk/Trunk/123/', {})).body).toEqual(errorWith('trunk 123 not found'));
  });

  it('refuses to turn an inbound trunk with numbers outbound', async () => {
    const id = await createTrunk({ trunk_direction: 'inbound', primary_uri_uuid: primary });
    expect((await client.seedNumber({ number: '14155550700', app_id: id })).status).toBe(201);
    const reply = await client.post(`/Zentrunk/Trunk/${id}/`, { trunk_direction: 'outbound', ipacl_uuid: acl });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      errorWith(`trunk ${id} has phone numbers attached; only inbound trunks can be attached to phone numbers`),
    );
  });

  it('deletes with 204, detaching its numbers', async () => {
    const id = await createTrunk({ trunk_direction: 'inbound', primary_uri_uuid: primary });
    await client.seedNumber({ number: '14155550701', app_id: id });
    expect((await client.get('/Number/14155550701/')).body.application).toBe(`${client.base}/Zentrunk/Trunk/${id}/`);
    const reply = await client.delete(`/Zentrunk/Trunk/${id}/`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await client.get(`/Zentrunk/Trunk/${id}/`)).status).toBe(404);
    expect((await client.get('/Number/14155550701/')).body.application).toBeNull();
  });

  it('keeps a trunk whose ACL, credential or URI is deleted, with the dangling id', async () => {
    const ownAcl = (await client.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['192.0.2.99'] })).body
      .ipacl_uuid as string;
    const id = await createTrunk({ trunk_direction: 'outbound', ipacl_uuid: ownAcl });
    expect((await client.delete(`/Zentrunk/IPAccessControlList/${ownAcl}/`)).status).toBe(204);
    expect((await readTrunk(id)).ipacl_uuid).toBe(ownAcl);
  });
});

describe('trunk get shape and list', () => {
  it('serves the flat shape when configured', async () => {
    const flat = await startCoreEmulator({ trunkGetShape: 'flat' });
    try {
      const uri = (await flat.post('/Zentrunk/URI/', { uri: 'pbx.example.com' })).body.uri_uuid as string;
      const id = (await flat.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', primary_uri_uuid: uri })).body
        .trunk_id as string;
      const reply = await flat.get(`/Zentrunk/Trunk/${id}/`);
      expect(reply.body).toMatchObject({
        api_id: expect.stringMatching(uuidPattern),
        trunk_id: id,
        primary_uri_uuid: uri,
      });
      expect(reply.body).not.toHaveProperty('object');
    } finally {
      await flat.emulator.close();
    }
  });

  it('lists flat trunks with every filter', async () => {
    const other = await client.otherAccount('MATRUNKLIST000000001', 'list-token');
    const otherAcl = (await other.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['10.0.0.1'] })).body
      .ipacl_uuid;
    const otherCred = (await other.post('/Zentrunk/Credential/', { username: 'listuser', password: 'list!pass' })).body
      .credential_uuid;
    const uriA = (await other.post('/Zentrunk/URI/', { uri: 'a.example.com' })).body.uri_uuid;
    const uriB = (await other.post('/Zentrunk/URI/', { uri: 'b.example.com' })).body.uri_uuid;
    const ids: Record<string, string> = {};
    const make = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await other.post('/Zentrunk/Trunk/', { name: key, ...body })).body.trunk_id;
    };
    await make('out-acl', { trunk_direction: 'outbound', ipacl_uuid: otherAcl, secure: true });
    await make('out-cred', { trunk_direction: 'outbound', credential_uuid: otherCred, trunk_status: 'disabled' });
    await make('in-a', { trunk_direction: 'inbound', primary_uri_uuid: uriA, fallback_uri_uuid: uriB });
    await make('in-b', { trunk_direction: 'inbound', primary_uri_uuid: uriB });
    const names = async (query: string) =>
      ((await other.get(`/Zentrunk/Trunk/${query}`)).body.objects as Array<{ name: string }>).map(
        (trunk) => trunk.name,
      );
    expect(await names('')).toEqual(['out-acl', 'out-cred', 'in-a', 'in-b']);
    expect(await names('?trunk_direction=inbound')).toEqual(['in-a', 'in-b']);
    expect(await names('?trunk_status=disabled')).toEqual(['out-cred']);
    expect(await names('?secure=true')).toEqual(['out-acl']);
    expect(await names('?secure=false&trunk_direction=outbound')).toEqual(['out-cred']);
    expect(await names(`?ipacl_uuid=${otherAcl}`)).toEqual(['out-acl']);
    expect(await names(`?credential_uuid=${otherCred}`)).toEqual(['out-cred']);
    expect(await names(`?primary_uri_uuid=${uriB}`)).toEqual(['in-b']);
    expect(await names(`?fallback_uri_uuid=${uriB}`)).toEqual(['in-a']);

    const page = await other.get('/Zentrunk/Trunk/?trunk_direction=inbound&limit=1');
    expect(page.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      meta: {
        limit: 1,
        offset: 0,
        total_count: 2,
        previous: null,
        next: `v1/Account/${other.account.authId}/Zentrunk/Trunk/?trunk_direction=inbound&limit=1&offset=1`,
      },
      objects: [
        expect.objectContaining({
          trunk_id: ids['in-a'],
          trunk_domain: `${ids['in-a']}.zt.plivo.com`,
          created_at: expect.any(String),
        }),
      ],
    });
    expect(page.body.objects[0]).not.toHaveProperty('object');
  });

  it('refuses bad filter values with 400 even when no trunk exists', async () => {
    const empty = await client.otherAccount('MATRUNKEMPTY00000001', 'empty-token');
    expect((await empty.get('/Zentrunk/Trunk/?trunk_status=on')).body).toEqual(
      errorWith('trunk_status must be one of enabled, disabled'),
    );
    expect((await empty.get('/Zentrunk/Trunk/?trunk_direction=up')).body).toEqual(
      errorWith('trunk_direction must be one of inbound, outbound'),
    );
    expect((await empty.get('/Zentrunk/Trunk/?secure=maybe')).body).toEqual(errorWith('secure must be true or false'));
    expect((await empty.get('/Zentrunk/Trunk/?unknown_filter=1')).status).toBe(200);
  });
});
