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

const path = '/Zentrunk/Credential/';
const usernameRule = 'username must be 5 to 20 letters or digits';
const passwordRule =
  'password must be 5 to 20 characters from letters, digits and ~!@#$%^&*()_+, with at least one of ~!@#$%^&*()_+';

function stored(id: string) {
  return client.emulator.runtime.state.accounts.get(client.account.authId)?.trunkCredentials.get(id);
}

describe('trunk credential create', () => {
  it('creates with 201 and the spec message; get shows name and username only', async () => {
    const reply = await client.post(path, { name: 'pbx creds', username: 'pbxUser01', password: 'p@ss1' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'credential created successfully.',
      credential_uuid: expect.stringMatching(uuidPattern),
    });
    const id = reply.body.credential_uuid as string;
    expect((await client.get(`${path}${id}/`)).body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      credential_uuid: id,
      name: 'pbx creds',
      username: 'pbxUser01',
    });
    expect(verifyPassword('p@ss1', stored(id)?.password_hash ?? '')).toBe(true);
  });

  it('answers 422 when username or password is missing', async () => {
    expect(await client.post(path, { password: 'p@ss1' })).toMatchObject({
      status: 422,
      body: errorWith('username is required'),
    });
    expect(await client.post(path, { username: 'someone' })).toMatchObject({
      status: 422,
      body: errorWith('password is required'),
    });
    expect(await client.post(path, { username: '', password: null })).toMatchObject({ status: 422 });
  });

  it.each(['abcd', 'a'.repeat(21), 'user_name', 'user name', 'usér1'])(
    'refuses the username %j with 400',
    async (username) => {
      expect(await client.post(path, { username, password: 'p@ss1' })).toMatchObject({
        status: 400,
        body: errorWith(usernameRule),
      });
    },
  );

  it.each(['p@s1', `p@${'s'.repeat(19)}`, 'password1', 'pass word!', 'pass-word1', 'pässword!'])(
    'refuses the password %j with 400',
    async (password) => {
      expect(await client.post(path, { username: 'gooduser', password })).toMatchObject({
        status: 400,
        body: errorWith(passwordRule),
      });
    },
  );

  it('accepts the boundaries: 5 and 20 characters, each special character', async () => {
    expect((await client.post(path, { username: 'abcde', password: 'abcd!' })).status).toBe(201);
    expect((await client.post(path, { username: 'a'.repeat(20), password: `${'a'.repeat(19)}+` })).status).toBe(201);
    for (const special of '~!@#$%^&*()_+') {
      expect((await client.post(path, { username: 'special1', password: `abcd${special}` })).status).toBe(201);
    }
  });

  it('answers 400 for a wrong JSON type', async () => {
    expect(await client.post(path, { username: 12345, password: 'p@ss1' })).toMatchObject({
      status: 400,
      body: errorWith('username must be a string'),
    });
  });
});

describe('trunk credential list, update, delete', () => {
  it('lists with meta (no leading slash in links) and objects', async () => {
    const other = await client.otherAccount('MATRUNKCRED000000001', 'cred-token');
    for (const name of ['a', 'b', 'c'])
      await other.post(path, { name, username: `user${name}${name}${name}`, password: 'p@ss1' });
    const reply = await other.get(`${path}?limit=2&offset=1`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      meta: {
        limit: 2,
        offset: 1,
        total_count: 3,
        previous: `v1/Account/${other.account.authId}${path}?limit=2&offset=0`,
        next: null,
      },
      objects: [
        { credential_uuid: expect.stringMatching(uuidPattern), name: 'b', username: 'userbbb' },
        { credential_uuid: expect.stringMatching(uuidPattern), name: 'c', username: 'userccc' },
      ],
    });
  });

  it('updates any of name, username, password with 202 and the spec message', async () => {
    const id = (await client.post(path, { name: 'old', username: 'olduser', password: 'old!pass' })).body
      .credential_uuid as string;
    const reply = await client.post(`${path}${id}/`, { name: 'new', username: 'newuser', password: 'new!pass' });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Credential updated successfully.',
      credential_uuid: id,
    });
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: 'new', username: 'newuser' });
    expect(verifyPassword('new!pass', stored(id)?.password_hash ?? '')).toBe(true);
    expect((await client.post(`${path}${id}/`, { name: 'only-name' })).status).toBe(202);
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: 'only-name', username: 'newuser' });
  });

  it('validates updated fields and changes nothing on refusal', async () => {
    const id = (await client.post(path, { username: 'keepuser', password: 'keep!pass' })).body
      .credential_uuid as string;
    expect(await client.post(`${path}${id}/`, { username: 'x', name: 'ignored' })).toMatchObject({
      status: 400,
      body: errorWith(usernameRule),
    });
    expect(await client.post(`${path}${id}/`, { password: 'nospecial' })).toMatchObject({
      status: 400,
      body: errorWith(passwordRule),
    });
    expect((await client.get(`${path}${id}/`)).body).toMatchObject({ name: '', username: 'keepuser' });
  });

  it('deletes with 204, even while a trunk uses it', async () => {
    const id = (await client.post(path, { username: 'usedbytrunk', password: 'used!pass' })).body
      .credential_uuid as string;
    expect((await client.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound', credential_uuid: id })).status).toBe(
      201,
    );
    expect((await client.delete(`${path}${id}/`)).status).toBe(204);
    expect((await client.get(`${path}${id}/`)).body).toEqual(errorWith(`credential ${id} not found`));
  });
});
