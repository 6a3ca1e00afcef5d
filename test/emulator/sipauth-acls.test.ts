import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

const aclPath = '/SipAuth/IpAccessControlList/';

async function createAcl(body: Record<string, unknown>): Promise<string> {
  const reply = await client.post(aclPath, body);
  expect(reply.status).toBe(201);
  return reply.body.ip_acl_uuid as string;
}

describe('SipAuth IP ACL create', () => {
  it('answers 201 with api_id and ip_acl_uuid, and stores entries with their defaults', async () => {
    const reply = await client.post(aclPath, {
      name: 'office',
      entries: [{ ip: '203.0.113.10' }, { ip: '198.51.100.0', cidr_prefix: 24, description: 'branch office' }],
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      ip_acl_uuid: expect.stringMatching(uuidPattern),
    });
    const id = reply.body.ip_acl_uuid as string;
    const read = await client.get(`${aclPath}${id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      ip_acl_uuid: id,
      name: 'office',
      entries: [
        { entry_id: expect.stringMatching(uuidPattern), ip: '203.0.113.10', cidr_prefix: 32, description: '' },
        {
          entry_id: expect.stringMatching(uuidPattern),
          ip: '198.51.100.0',
          cidr_prefix: 24,
          description: 'branch office',
        },
      ],
      resource_uri: `${client.base}${aclPath}${id}/`,
    });
  });

  it('accepts names of 1 and 120 characters and refuses 0 or 121 with 400', async () => {
    await createAcl({ name: 'x' });
    await createAcl({ name: 'n'.repeat(120) });
    expect(await client.post(aclPath, { name: 'n'.repeat(121) })).toMatchObject({
      status: 400,
      body: errorWith('name must be 1 to 120 characters'),
    });
    expect(await client.post(aclPath, { name: '' })).toMatchObject({
      status: 400,
      body: errorWith('name is required'),
    });
    expect(await client.post(aclPath, {})).toMatchObject({ status: 400, body: errorWith('name is required') });
  });

  it('accepts 50 entries and refuses 51 with 400', async () => {
    const entries = (count: number) => Array.from({ length: count }, (_, index) => ({ ip: `10.0.0.${index}` }));
    const id = await createAcl({ name: 'fifty', entries: entries(50) });
    expect((await client.get(`${aclPath}${id}/`)).body.entries).toHaveLength(50);
    expect(await client.post(aclPath, { name: 'fifty-one', entries: entries(51) })).toMatchObject({
      status: 400,
      body: errorWith('entries must hold at most 50 entries'),
    });
  });

  it.each([
    [{ ip: '256.0.0.1' }, 'entries[0].ip must be a valid IPv4 address: 256.0.0.1'],
    [{ ip: '10.0.0' }, 'entries[0].ip must be a valid IPv4 address: 10.0.0'],
    [{ ip: '010.0.0.1' }, 'entries[0].ip must be a valid IPv4 address: 010.0.0.1'],
    [{ ip: '10.0.0.0/24' }, 'entries[0].ip must be a valid IPv4 address: 10.0.0.0/24'],
    [{ ip: '2001:db8::1' }, 'entries[0].ip must be a valid IPv4 address: 2001:db8::1'],
    [{}, 'entries[0].ip is required'],
    [{ ip: 10 }, 'entries[0].ip must be a string'],
    [{ ip: '10.0.0.1', cidr_prefix: 33 }, 'entries[0].cidr_prefix must be an integer from 0 to 32'],
    [{ ip: '10.0.0.1', cidr_prefix: -1 }, 'entries[0].cidr_prefix must be an integer from 0 to 32'],
    [{ ip: '10.0.0.1', cidr_prefix: 8.5 }, 'entries[0].cidr_prefix must be an integer from 0 to 32'],
    [{ ip: '10.0.0.1', cidr_prefix: '24' }, 'entries[0].cidr_prefix must be an integer from 0 to 32'],
    [{ ip: '10.0.0.1', description: 'd'.repeat(256) }, 'entries[0].description must be at most 255 characters'],
    [{ ip: '10.0.0.1', description: 5 }, 'entries[0].description must be a string'],
    ['10.0.0.1', 'entries[0] must be an object with ip, cidr_prefix and description'],
  ])('refuses the entry %j with 400', async (entry, message) => {
    const reply = await client.post(aclPath, { name: 'bad-entry', entries: [entry] });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
  });

  it('accepts cidr_prefix 0 (all addresses) and a 255-character description', async () => {
    await createAcl({ name: 'open', entries: [{ ip: '0.0.0.0', cidr_prefix: 0, description: 'd'.repeat(255) }] });
  });

  it('refuses entries that are not an array', async () => {
    expect(await client.post(aclPath, { name: 'bad', entries: { ip: '10.0.0.1' } })).toMatchObject({
      status: 400,
      body: errorWith('entries must be an array'),
    });
  });

  it('holds 100 lists per account and refuses the 101st with 400', async () => {
    const quota = await client.otherAccount('MAQUOTAACL0000000001', 'quota-token');
    for (let index = 0; index < 100; index += 1) {
      expect((await quota.post(aclPath, { name: `acl-${index}` })).status).toBe(201);
    }
    expect(await quota.post(aclPath, { name: 'acl-100' })).toMatchObject({
      status: 400,
      body: errorWith('an account holds at most 100 IP access control lists'),
    });
  });
});

describe('SipAuth IP ACL list, rename, delete', () => {
  it('lists the lists with their entries, paginated', async () => {
    const other = await client.otherAccount('MALISTACL00000000001', 'list-token');
    await other.post(aclPath, { name: 'first', entries: [{ ip: '192.0.2.1' }] });
    await other.post(aclPath, { name: 'second' });
    const reply = await other.get(`${aclPath}?limit=1&offset=1`);
    expect(reply.status).toBe(200);
    expect(reply.body.meta).toEqual({
      limit: 1,
      offset: 1,
      total_count: 2,
      previous: `${other.base}${aclPath}?limit=1&offset=0`,
      next: null,
    });
    expect(reply.body.objects).toEqual([
      expect.objectContaining({ name: 'second', entries: [], ip_acl_uuid: expect.stringMatching(uuidPattern) }),
    ]);
  });

  it('renames a list with 202 and refuses a bad name', async () => {
    const id = await createAcl({ name: 'before', entries: [{ ip: '192.0.2.7' }] });
    const reply = await client.post(`${aclPath}${id}/`, { name: 'after' });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({
      message: 'IP access control list updated successfully.',
      ip_acl_uuid: id,
      name: 'after',
    });
    expect(reply.body.entries).toHaveLength(1);
    expect((await client.get(`${aclPath}${id}/`)).body.name).toBe('after');
    expect((await client.post(`${aclPath}${id}/`, { name: 'y'.repeat(121) })).status).toBe(400);
    expect((await client.post(`${aclPath}${id}/`, {})).body).toEqual(errorWith('name is required'));
  });

  it('deletes a list and its entries with 204', async () => {
    const id = await createAcl({ name: 'gone', entries: [{ ip: '192.0.2.8' }] });
    const entryId = (await client.get(`${aclPath}${id}/`)).body.entries[0].entry_id as string;
    expect((await client.delete(`${aclPath}${id}/`)).status).toBe(204);
    expect((await client.get(`${aclPath}${id}/`)).body).toEqual(errorWith(`IP access control list ${id} not found`));
    expect((await client.delete(`${aclPath}${id}/Entry/${entryId}/`)).status).toBe(404);
  });

  it('answers 409 with the spec text while the list is assigned to an application', async () => {
    const id = await createAcl({ name: 'assigned' });
    expect(
      (await client.post('/Application/77700000000000003/', { sip_auth_type: 'ip_acl', ip_acl_uuid: id })).status,
    ).toBe(202);
    const refused = await client.delete(`${aclPath}${id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      errorWith(
        'This IP access control list is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.',
      ),
    );
    expect((await client.post('/Application/77700000000000003/', { sip_auth_type: '' })).status).toBe(202);
    expect((await client.delete(`${aclPath}${id}/`)).status).toBe(204);
  });
});

describe('SipAuth IP ACL entries', () => {
  it('adds an entry with 201 and entry_id, with defaults', async () => {
    const id = await createAcl({ name: 'entries' });
    const reply = await client.post(`${aclPath}${id}/Entry/`, { ip: '203.0.113.5' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      entry_id: expect.stringMatching(uuidPattern),
    });
    const added = await client.post(`${aclPath}${id}/Entry/`, {
      ip: '203.0.113.0',
      cidr_prefix: 28,
      description: 'range',
    });
    expect((await client.get(`${aclPath}${id}/`)).body.entries).toEqual([
      { entry_id: reply.body.entry_id, ip: '203.0.113.5', cidr_prefix: 32, description: '' },
      { entry_id: added.body.entry_id, ip: '203.0.113.0', cidr_prefix: 28, description: 'range' },
    ]);
  });

  it('validates the entry and names the field', async () => {
    const id = await createAcl({ name: 'entry-rules' });
    expect((await client.post(`${aclPath}${id}/Entry/`, {})).body).toEqual(errorWith('ip is required'));
    expect((await client.post(`${aclPath}${id}/Entry/`, { ip: '1.2.3.999' })).body).toEqual(
      errorWith('ip must be a valid IPv4 address: 1.2.3.999'),
    );
    expect((await client.post(`${aclPath}${id}/Entry/`, { ip: '1.2.3.4', cidr_prefix: 40 })).status).toBe(400);
    expect((await client.post(`${aclPath}${id}/Entry/`, { ip: '1.2.3.4', description: 'z'.repeat(256) })).status).toBe(
      400,
    );
    expect((await client.get(`${aclPath}${id}/`)).body.entries).toEqual([]);
  });

  it('refuses the 51st entry with 400', async () => {
    const id = await createAcl({
      name: 'full',
      entries: Array.from({ length: 49 }, (_, index) => ({ ip: `10.1.0.${index}` })),
    });
    expect((await client.post(`${aclPath}${id}/Entry/`, { ip: '10.1.1.1' })).status).toBe(201);
    const refused = await client.post(`${aclPath}${id}/Entry/`, { ip: '10.1.1.2' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorWith('an IP access control list holds at most 50 entries'));
  });

  it('deletes an entry with 204, then 404; 404 for an entry of an unknown list', async () => {
    const id = await createAcl({ name: 'entry-delete', entries: [{ ip: '10.2.0.1' }, { ip: '10.2.0.2' }] });
    const [first, second] = (await client.get(`${aclPath}${id}/`)).body.entries as Array<{ entry_id: string }>;
    expect((await client.delete(`${aclPath}${id}/Entry/${first?.entry_id}/`)).status).toBe(204);
    expect((await client.get(`${aclPath}${id}/`)).body.entries).toEqual([
      expect.objectContaining({ entry_id: second?.entry_id }),
    ]);
    expect((await client.delete(`${aclPath}${id}/Entry/${first?.entry_id}/`)).body).toEqual(
      errorWith(`entry ${first?.entry_id} not found`),
    );
    expect((await client.post(`${aclPath}nope/Entry/`, { ip: '10.0.0.1' })).status).toBe(404);
  });
});
