import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/emulator/passwords.js';
import { isOriginationUri } from '../../src/emulator/routes/origination-uris.js';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

const path = '/Zentrunk/URI/';

function stored(id: string) {
  return client.emulator.runtime.state.accounts.get(client.account.authId)?.originationUris.get(id);
}

describe('origination URI formats', () => {
  it.each([
    '192.168.1.100',
    '192.168.1.100:5060',
    'sip.example.com',
    'sip.example.com:5060',
    'sip:pbx@example.com',
    'sips:sip.example.com',
    '[2001:db8::1]:5061;transport=tls',
    'sip:+14155550100@pbx.example.com:5080;transport=tcp',
    'pbx.example.com;transport=udp',
  ])('accepts %j', (uri) => {
    expect(isOriginationUri(uri)).toBe(true);
  });

  it.each([
    '',
    'http://example.com',
    'sip.example.com:0',
    'sip.example.com:70000',
    '300.1.1.1',
    'has space.com',
    'a..b',
    '-bad.example.com',
  ])('refuses %j', (uri) => {
    expect(isOriginationUri(uri)).toBe(false);
  });
});

describe('origination URI create', () => {
  it('creates with 201 and the spec message; no authentication means username null', async () => {
    const reply = await client.post(path, { name: 'primary-pbx', uri: 'sip.example.com:5060' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Origination URI created successfully.',
      uri_uuid: expect.stringMatching(uuidPattern),
    });
    const id = reply.body.uri_uuid as string;
    expect((await client.get(`${path}${id}/`)).body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      uri_uuid: id,
      name: 'primary-pbx',
      uri: 'sip.example.com:5060',
      authentication_needed: false,
      username: null,
    });
  });

  it('stores the credentials of an authenticated URI, password hashed and never returned', async () => {
    const reply = await client.post(path, {
      uri: 'pbx.example.com',
      authentication_needed: true,
      username: 'plivo_inbound',
      password: 'Pa55word',
    });
    expect(reply.status).toBe(201);
    const id = reply.body.uri_uuid as string;
    const read = await client.get(`${path}${id}/`);
    expect(read.body).toMatchObject({ authentication_needed: true, username: 'plivo_inbound' });
    expect(JSON.stringify(read.body)).not.toContain('Pa55word');
    expect(verifyPassword('Pa55word', stored(id)?.password_hash ?? '')).toBe(true);
  });

  it('answers 422 for a missing uri, or missing credentials when authentication is needed', async () => {
    expect(await client.post(path, { name: 'no-uri' })).toMatchObject({
      status: 422,
      body: errorWith('uri is required'),
    });
    const needs = errorWith('username and password are required when authentication_needed is true');
    expect(await client.post(path, { uri: 'a.example.com', authentication_needed: true })).toMatchObject({
      status: 422,
      body: needs,
    });
    expect(await client.post(path, { uri: 'a.example.com', authentication_needed: true, username: 'u' })).toMatchObject(
      {
        status: 422,
        body: needs,
      },
    );
  });

  it('answers 400 for a bad uri or a wrong type', async () => {
    expect(await client.post(path, { uri: 'not a uri' })).toMatchObject({
      status: 400,
      body: errorWith(
        'uri must be a host name or IP address with an optional sip:/sips: scheme, user, port and parameters: not a uri',
      ),
    });
    expect(await client.post(path, { uri: 'a.example.com', authentication_needed: 'yes' })).toMatchObject({
      status: 400,
      body: errorWith('authentication_needed must be a boolean'),
    });
  });
});

describe('origination URI list, update, delete', () => {
  it('lists with meta and objects', async () => {
    const other = await client.otherAccount('MAURILIST00000000001', 'uri-token');
    for (let index = 0; index < 21; index += 1)
      await other.post(path, { name: `u${index}`, uri: `u${index}.example.com` });
    const reply = await other.get(path);
    expect(reply.body.meta).toEqual({
      limit: 20,
      offset: 0,
      total_count: 21,
      previous: null,
      next: `v1/Account/${other.account.authId}${path}?limit=20&offset=20`,
    });
    expect(reply.body.objects).toHaveLength(20);
    expect(reply.body.objects[0]).toEqual({
      uri_uuid: expect.stringMatching(uuidPattern),
      name: 'u0',
      uri: 'u0.example.com',
      authentication_needed: false,
      username: null,
    });
  });

  it('updates with 202 and production lower-case message', async () => {
    const id = (await client.post(path, { uri: 'old.example.com' })).body.uri_uuid as string;
    const reply = await client.post(`${path}${id}/`, { uri: 'new.example.com', name: 'renamed' });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'origination uri updated successfully.',
      uri_uuid: id,
    });
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ uri: 'new.example.com', name: 'renamed' });
  });

  it('turns authentication on (needs credentials) and off (drops them)', async () => {
    const id = (await client.post(path, { uri: 'auth.example.com' })).body.uri_uuid as string;
    expect((await client.post(`${path}${id}/`, { authentication_needed: true })).status).toBe(422);
    expect((await client.get(`${path}${id}/`)).body.authentication_needed).toBe(false);
    expect(
      (await client.post(`${path}${id}/`, { authentication_needed: true, username: 'u1', password: 'p1' })).status,
    ).toBe(202);
    expect((await client.post(`${path}${id}/`, { username: 'u2' })).status).toBe(202);
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ authentication_needed: true, username: 'u2' });
    expect((await client.post(`${path}${id}/`, { authentication_needed: false })).status).toBe(202);
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ authentication_needed: false, username: null });
    expect(stored(id)?.password_hash).toBeNull();
  });

  it('deletes with 204 even while a trunk uses it', async () => {
    const id = (await client.post(path, { uri: 'used.example.com' })).body.uri_uuid as string;
    expect((await client.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', primary_uri_uuid: id })).status).toBe(
      201,
    );
    expect((await client.delete(`${path}${id}/`)).status).toBe(204);
    expect((await client.get(`${path}${id}/`)).body).toEqual(errorWith(`origination URI ${id} not found`));
  });
});
