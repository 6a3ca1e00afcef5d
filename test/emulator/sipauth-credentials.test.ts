import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/emulator/passwords.js';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

const strongPassword = 'Secr3tPassw0rd';

async function createCredential(username: string, password = strongPassword) {
  return client.post('/SipAuth/Credential/', { username, password });
}

describe('SipAuth credential create', () => {
  it('answers 201 with the credential, the default realm and its resource_uri', async () => {
    const reply = await createCredential('alice.pbx-1_x');
    expect(reply.status).toBe(201);
    const id = reply.body.credential_uuid as string;
    expect(id).toMatch(uuidPattern);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      credential_uuid: id,
      username: 'alice.pbx-1_x',
      realm: 'app.plivo.com',
      resource_uri: `${client.base}/SipAuth/Credential/${id}/`,
    });
  });

  it('keeps only a salted one-way hash of the password and never returns it', async () => {
    const reply = await createCredential('hash-check', strongPassword);
    const record = client.emulator.runtime.state.accounts
      .get(client.account.authId)
      ?.sipCredentials.get(reply.body.credential_uuid);
    expect(record?.password_hash).not.toContain(strongPassword);
    expect(verifyPassword(strongPassword, record?.password_hash ?? '')).toBe(true);
    expect(verifyPassword('WrongPassw0rd', record?.password_hash ?? '')).toBe(false);
    const read = await client.get(`/SipAuth/Credential/${reply.body.credential_uuid}/`);
    expect(JSON.stringify(read.body)).not.toContain(strongPassword);
    expect(read.body).not.toHaveProperty('password');
    expect(read.body).not.toHaveProperty('password_hash');
  });

  it.each([
    ['ab', 'too short'],
    ['a'.repeat(65), 'too long'],
    ['has space', 'a space'],
    ['semi;colon', 'a semicolon'],
    ['ünïcode', 'non-ASCII letters'],
  ])('refuses the username %j (%s) with 400', async (username) => {
    const reply = await createCredential(username);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith('username must be 3 to 64 characters from letters, digits, ".", "_" and "-"'));
  });

  it('accepts usernames of exactly 3 and 64 characters', async () => {
    expect((await createCredential('abc')).status).toBe(201);
    expect((await createCredential('b'.repeat(64))).status).toBe(201);
  });

  it.each([
    ['Short1a', 'seven characters'],
    ['alllowercase1', 'no uppercase letter'],
    ['ALLUPPERCASE1', 'no lowercase letter'],
    ['NoDigitsHere', 'no digit'],
    [`Aa1${'x'.repeat(126)}`, '129 characters'],
  ])('refuses the password %j (%s) with 400', async (password) => {
    const reply = await createCredential(`pw-${password.length}-${password.slice(0, 5)}`, password);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      errorWith(
        'password must be 8 to 128 characters with at least one uppercase letter, one lowercase letter and one digit',
      ),
    );
  });

  it('accepts passwords of exactly 8 and 128 characters', async () => {
    expect((await createCredential('pw-min', 'Abcdef12')).status).toBe(201);
    expect((await createCredential('pw-max', `Aa1${'x'.repeat(125)}`)).status).toBe(201);
  });

  it('answers 400 naming a missing or mistyped field', async () => {
    expect(await client.post('/SipAuth/Credential/', { password: strongPassword })).toMatchObject({
      status: 400,
      body: errorWith('username is required'),
    });
    expect(await client.post('/SipAuth/Credential/', { username: 'nopass' })).toMatchObject({
      status: 400,
      body: errorWith('password is required'),
    });
    expect(await client.post('/SipAuth/Credential/', { username: 'nullpass', password: null })).toMatchObject({
      status: 400,
      body: errorWith('password is required'),
    });
    expect(await client.post('/SipAuth/Credential/', { username: 42, password: strongPassword })).toMatchObject({
      status: 400,
      body: errorWith('username must be a string'),
    });
  });

  it('ignores unknown body fields', async () => {
    const reply = await client.post('/SipAuth/Credential/', {
      username: 'extra-fields',
      password: strongPassword,
      colour: 'blue',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).not.toHaveProperty('colour');
  });

  it('refuses a username already used in the account with 409', async () => {
    expect((await createCredential('dupe-user')).status).toBe(201);
    const reply = await createCredential('dupe-user');
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual(errorWith('username dupe-user already exists in this account'));
  });

  it('allows the same username in another account', async () => {
    const other = await client.otherAccount('MAOTHERCRED000000001', 'other-token');
    expect((await createCredential('shared-name')).status).toBe(201);
    expect(
      (await other.post('/SipAuth/Credential/', { username: 'shared-name', password: strongPassword })).status,
    ).toBe(201);
  });
});

describe('SipAuth credential quota', () => {
  it('holds 200 credentials per account and refuses the 201st with 400', async () => {
    const quota = await client.otherAccount('MAQUOTACRED000000001', 'quota-token');
    for (let index = 0; index < 200; index += 1) {
      const reply = await quota.post('/SipAuth/Credential/', { username: `user${index}`, password: strongPassword });
      expect(reply.status).toBe(201);
    }
    const refused = await quota.post('/SipAuth/Credential/', { username: 'user200', password: strongPassword });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorWith('an account holds at most 200 SIP credentials'));
    const list = await quota.get('/SipAuth/Credential/');
    expect(list.body.meta.total_count).toBe(200);
  });
});

describe('SipAuth credential get, list, update, delete', () => {
  it('gets a credential with api_id and its fields', async () => {
    const created = await createCredential('get-me');
    const id = created.body.credential_uuid as string;
    const reply = await client.get(`/SipAuth/Credential/${id}/`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      credential_uuid: id,
      username: 'get-me',
      realm: 'app.plivo.com',
      resource_uri: `${client.base}/SipAuth/Credential/${id}/`,
    });
  });

  it('answers 404 for an unknown credential', async () => {
    const reply = await client.get('/SipAuth/Credential/00000000-0000-0000-0000-000000000000/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(errorWith('SIP credential 00000000-0000-0000-0000-000000000000 not found'));
  });

  it('lists credentials in creation order with meta and objects', async () => {
    const other = await client.otherAccount('MALISTCRED0000000001', 'list-token');
    for (const name of ['one', 'two', 'three']) {
      await other.post('/SipAuth/Credential/', { username: `list-${name}`, password: strongPassword });
    }
    const reply = await other.get('/SipAuth/Credential/?limit=2');
    expect(reply.status).toBe(200);
    expect(reply.body.meta).toEqual({
      limit: 2,
      offset: 0,
      total_count: 3,
      previous: null,
      next: `${other.base}/SipAuth/Credential/?limit=2&offset=2`,
    });
    expect(reply.body.objects.map((item: { username: string }) => item.username)).toEqual(['list-one', 'list-two']);
    const second = await other.get('/SipAuth/Credential/?limit=2&offset=2');
    expect(second.body.objects.map((item: { username: string }) => item.username)).toEqual(['list-three']);
    expect(second.body.meta.previous).toBe(`${other.base}/SipAuth/Credential/?limit=2&offset=0`);
    expect(second.body.meta.next).toBeNull();
  });

  it('updates the password with 202 and returns the credential', async () => {
    const created = await createCredential('rotate-me');
    const id = created.body.credential_uuid as string;
    const reply = await client.post(`/SipAuth/Credential/${id}/`, { password: 'N3wPassword' });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'SIP credential updated successfully.',
      credential_uuid: id,
      username: 'rotate-me',
      realm: 'app.plivo.com',
      resource_uri: `${client.base}/SipAuth/Credential/${id}/`,
    });
    const record = client.emulator.runtime.state.accounts.get(client.account.authId)?.sipCredentials.get(id);
    expect(verifyPassword('N3wPassword', record?.password_hash ?? '')).toBe(true);
  });

  it('applies the update password rules: at least 8 with upper, lower and digit', async () => {
    const id = (await createCredential('rotate-rules')).body.credential_uuid as string;
    const weak = await client.post(`/SipAuth/Credential/${id}/`, { password: 'weakpass1' });
    expect(weak.status).toBe(400);
    expect(weak.body).toEqual(
      errorWith(
        'password must be at least 8 characters with at least one uppercase letter, one lowercase letter and one digit',
      ),
    );
    expect((await client.post(`/SipAuth/Credential/${id}/`, { password: 'Abc12' })).status).toBe(400);
    expect((await client.post(`/SipAuth/Credential/${id}/`, {})).body).toEqual(errorWith('password is required'));
    // The API reference rule 3 sets no upper bound on update.
    expect((await client.post(`/SipAuth/Credential/${id}/`, { password: `Aa1${'y'.repeat(200)}` })).status).toBe(202);
  });

  it('refuses to change the username but accepts it unchanged', async () => {
    const id = (await createCredential('fixed-name')).body.credential_uuid as string;
    const changed = await client.post(`/SipAuth/Credential/${id}/`, { username: 'new-name', password: strongPassword });
    expect(changed.status).toBe(400);
    expect(changed.body).toEqual(errorWith('username cannot be changed; create a new credential instead'));
    const same = await client.post(`/SipAuth/Credential/${id}/`, { username: 'fixed-name', password: strongPassword });
    expect(same.status).toBe(202);
  });

  it('deletes with 204 and no body, then answers 404', async () => {
    const id = (await createCredential('delete-me')).body.credential_uuid as string;
    const reply = await client.delete(`/SipAuth/Credential/${id}/`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await client.get(`/SipAuth/Credential/${id}/`)).status).toBe(404);
    expect((await client.delete(`/SipAuth/Credential/${id}/`)).status).toBe(404);
  });
});

describe('SipAuth credential assigned to an application', () => {
  const appId = '77700000000000001';
  const conflict =
    'This credential is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.';

  it('answers 409 with the spec text until sip_auth_type is set to ""', async () => {
    const id = (await createCredential('assigned-cred')).body.credential_uuid as string;
    const assign = await client.post(`/Application/${appId}/`, { sip_auth_type: 'credential', credential_uuid: id });
    expect(assign.status).toBe(202);
    const refused = await client.delete(`/SipAuth/Credential/${id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(errorWith(conflict));
    expect((await client.get(`/SipAuth/Credential/${id}/`)).status).toBe(200);

    expect((await client.post(`/Application/${appId}/`, { sip_auth_type: '' })).status).toBe(202);
    expect((await client.delete(`/SipAuth/Credential/${id}/`)).status).toBe(204);
  });

  it('also counts ip_acl_and_credential as an assignment', async () => {
    const id = (await createCredential('both-cred')).body.credential_uuid as string;
    const acl = (await client.post('/SipAuth/IpAccessControlList/', { name: 'both-acl' })).body.ip_acl_uuid as string;
    const assign = await client.post('/Application/77700000000000002/', {
      sip_auth_type: 'ip_acl_and_credential',
      credential_uuid: id,
      ip_acl_uuid: acl,
    });
    expect(assign.status).toBe(202);
    expect((await client.delete(`/SipAuth/Credential/${id}/`)).status).toBe(409);
    // Switching the application to the ACL alone releases the credential.
    expect((await client.post('/Application/77700000000000002/', { sip_auth_type: 'ip_acl' })).status).toBe(202);
    expect((await client.delete(`/SipAuth/Credential/${id}/`)).status).toBe(204);
    expect((await client.post('/Application/77700000000000002/', { sip_auth_type: '' })).status).toBe(202);
  });
});
