import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

const path = '/Zentrunk/IPAccessControlList/';

describe('trunk IP ACL create', () => {
  it('creates with 201 and the spec message; get shows the addresses', async () => {
    const reply = await client.post(path, { name: 'office', ip_addresses: ['203.0.113.10', '198.51.100.0/24'] });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'IP access control list created successfully.',
      ipacl_uuid: expect.stringMatching(uuidPattern),
    });
    const id = reply.body.ipacl_uuid as string;
    expect((await client.get(`${path}${id}/`)).body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      ipacl_uuid: id,
      name: 'office',
      ip_addresses: ['203.0.113.10', '198.51.100.0/24'],
    });
  });

  it('answers 422 without ip_addresses (absent, null or empty)', async () => {
    for (const body of [{ name: 'none' }, { ip_addresses: null }, { ip_addresses: [] }]) {
      expect(await client.post(path, body)).toMatchObject({ status: 422, body: errorWith('ip_addresses is required') });
    }
  });

  it.each([
    ['256.1.1.1', 'ip_addresses[0] is not a valid IPv4 address or CIDR range: 256.1.1.1'],
    ['10.0.0.0/33', 'ip_addresses[0] is not a valid IPv4 address or CIDR range: 10.0.0.0/33'],
    ['10.0.0.0/', 'ip_addresses[0] is not a valid IPv4 address or CIDR range: 10.0.0.0/'],
    ['example.com', 'ip_addresses[0] is not a valid IPv4 address or CIDR range: example.com'],
    ['2001:db8::/32', 'ip_addresses[0] is not a valid IPv4 address or CIDR range: 2001:db8::/32'],
  ])('refuses %j with 400', async (address, message) => {
    expect(await client.post(path, { ip_addresses: [address] })).toMatchObject({
      status: 400,
      body: errorWith(message),
    });
  });

  it('refuses wrong types and repeated addresses with 400', async () => {
    expect((await client.post(path, { ip_addresses: '10.0.0.1' })).body).toEqual(
      errorWith('ip_addresses must be an array'),
    );
    expect((await client.post(path, { ip_addresses: ['10.0.0.1', 5] })).body).toEqual(
      errorWith('ip_addresses[1] must be a string'),
    );
    expect((await client.post(path, { ip_addresses: ['10.0.0.1', '10.0.0.1'] })).body).toEqual(
      errorWith('ip_addresses lists 10.0.0.1 more than once'),
    );
  });

  it('accepts the CIDR extremes /0 and /32', async () => {
    expect((await client.post(path, { ip_addresses: ['0.0.0.0/0', '192.0.2.1/32'] })).status).toBe(201);
  });
});

describe('trunk IP ACL list, update, delete', () => {
  it('lists with meta and objects', async () => {
    const other = await client.otherAccount('MATRUNKACL0000000001', 'acl-token');
    await other.post(path, { name: 'one', ip_addresses: ['10.0.0.1'] });
    const reply = await other.get(path);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      meta: { limit: 20, offset: 0, total_count: 1, previous: null, next: null },
      objects: [{ ipacl_uuid: expect.stringMatching(uuidPattern), name: 'one', ip_addresses: ['10.0.0.1'] }],
    });
  });

  it('replaces the whole address list on update (202, spec message)', async () => {
    const id = (await client.post(path, { name: 'swap', ip_addresses: ['10.0.0.1', '10.0.0.2'] })).body
      .ipacl_uuid as string;
    const reply = await client.post(`${path}${id}/`, { ip_addresses: ['10.0.0.3'] });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'IP access control list updated successfully.',
      ipacl_uuid: id,
    });
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: 'swap', ip_addresses: ['10.0.0.3'] });
    expect((await client.post(`${path}${id}/`, { name: 'renamed' })).status).toBe(202);
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: 'renamed', ip_addresses: ['10.0.0.3'] });
  });

  it('refuses an empty or invalid replacement with 400 and keeps the list', async () => {
    const id = (await client.post(path, { ip_addresses: ['10.0.0.9'] })).body.ipacl_uuid as string;
    expect((await client.post(`${path}${id}/`, { ip_addresses: [] })).body).toEqual(
      errorWith('ip_addresses must hold at least one address'),
    );
    expect((await client.post(`${path}${id}/`, { ip_addresses: ['1.2.3'], name: 'x' })).status).toBe(400);
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: '', ip_addresses: ['10.0.0.9'] });
  });

  it('deletes with 204 even while a trunk uses it; 404 afterwards', async () => {
    const id = (await client.post(path, { ip_addresses: ['10.0.0.10'] })).body.ipacl_uuid as string;
    expect((await client.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound', ipacl_uuid: id })).status).toBe(201);
    expect((await client.delete(`${path}${id}/`)).status).toBe(204);
    expect((await client.delete(`${path}${id}/`)).body).toEqual(errorWith(`IP access control list ${id} not found`));
  });
});
