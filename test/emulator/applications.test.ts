import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

async function sipCredential(username: string): Promise<string> {
  return (await client.post('/SipAuth/Credential/', { username, password: 'Secr3tPassw0rd' })).body
    .credential_uuid as string;
}
async function sipAcl(name: string): Promise<string> {
  return (await client.post('/SipAuth/IpAccessControlList/', { name })).body.ip_acl_uuid as string;
}
async function createApp(name: string): Promise<string> {
  const reply = await client.post('/Application/', { app_name: name, answer_url: `https://example.com/${name}` });
  expect(reply.status).toBe(201);
  return reply.body.app_id as string;
}

describe('seeded applications', () => {
  it('every new account starts with the three documented applications', async () => {
    const other = await client.otherAccount('MASEEDAPPS000000001', 'seed-token');
    const reply = await other.get('/Application/');
    expect(reply.status).toBe(200);
    expect(reply.body.meta.total_count).toBe(3);
    expect(reply.body.objects.map((app: { app_id: string; app_name: string }) => [app.app_id, app.app_name])).toEqual([
      ['77700000000000001', 'pbx-inbound'],
      ['77700000000000002', 'support-line'],
      ['77700000000000003', 'spare-app'],
    ]);
  });

  it('shows an application with every field, unassigned SIP auth as ""', async () => {
    const reply = await client.get('/Application/77700000000000001/');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      app_id: '77700000000000001',
      app_name: 'pbx-inbound',
      answer_url: 'https://example.com/pbx-inbound/answer',
      answer_method: 'POST',
      hangup_url: 'https://example.com/pbx-inbound/answer',
      hangup_method: 'POST',
      fallback_answer_url: '',
      fallback_method: 'POST',
      message_url: '',
      message_method: 'POST',
      default_app: false,
      enabled: true,
      public_uri: false,
      log_incoming_messages: true,
      sip_uri: 'sip:77700000000000001@app.plivo.com',
      sub_account: null,
      sip_auth_type: '',
      ip_acl_uuid: '',
      credential_uuid: '',
      resource_uri: `${client.base}/Application/77700000000000001/`,
    });
  });
});

describe('application create, update, delete', () => {
  it('creates with 201 {message: "created", app_id}', async () => {
    const reply = await client.post('/Application/', {
      app_name: 'ivr',
      answer_url: 'https://example.com/ivr',
      answer_method: 'get',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'created',
      app_id: expect.stringMatching(/^\d{17}$/),
    });
    const read = await client.get(`/Application/${reply.body.app_id}/`);
    expect(read.body).toMatchObject({ app_name: 'ivr', answer_method: 'GET', sip_auth_type: '' });
  });

  it('refuses a missing app_name or answer_url, and bad values, with 400', async () => {
    expect((await client.post('/Application/', { answer_url: 'https://example.com/' })).body).toEqual(
      errorWith('app_name parameter is missing'),
    );
    expect((await client.post('/Application/', { app_name: 'x' })).body).toEqual(
      errorWith('answer_url parameter is missing'),
    );
    expect((await client.post('/Application/', { app_name: 'x', answer_url: 'ftp://example.com/' })).body).toEqual(
      errorWith('answer_url must be an http or https URL'),
    );
    expect(
      (await client.post('/Application/', { app_name: 'x', answer_url: 'https://e.com/', hangup_method: 'PUT' })).body,
    ).toEqual(errorWith('hangup_method must be GET or POST'));
    expect(
      (await client.post('/Application/', { app_name: 'x', answer_url: 'https://e.com/', public_uri: 'yes' })).body,
    ).toEqual(errorWith('public_uri must be a boolean'));
  });

  it('creates with SIP auth assigned', async () => {
    const credential = await sipCredential('app-create-cred');
    const reply = await client.post('/Application/', {
      app_name: 'secured',
      answer_url: 'https://example.com/secured',
      sip_auth_type: 'credential',
      credential_uuid: credential,
    });
    expect(reply.status).toBe(201);
    expect((await client.get(`/Application/${reply.body.app_id}/`)).body).toMatchObject({
      sip_auth_type: 'credential',
      credential_uuid: credential,
      ip_acl_uuid: '',
    });
  });

  it('updates with 202 {message: "changed"}, only the fields given', async () => {
    const id = await createApp('to-update');
    const reply = await client.post(`/Application/${id}/`, { app_name: 'updated', public_uri: true });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ api_id: expect.stringMatching(uuidPattern), message: 'changed' });
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({
      app_name: 'updated',
      public_uri: true,
      answer_url: 'https://example.com/to-update',
    });
  });

  it('accepts "true" and "false" for default_app, enabled and log_incoming_messages, which the Node SDK types as strings', async () => {
    const id = await createApp('textual-booleans');
    const reply = await client.post(`/Application/${id}/`, {
      default_app: 'true',
      enabled: 'false',
      log_incoming_messages: 'false',
    });
    expect(reply.status).toBe(202);
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({
      default_app: true,
      enabled: false,
      log_incoming_messages: false,
    });
    expect(await client.post(`/Application/${id}/`, { public_uri: 'true' })).toMatchObject({
      status: 400,
      body: errorWith('public_uri must be a boolean'),
    });
    expect(await client.post(`/Application/${id}/`, { enabled: 'yes' })).toMatchObject({
      status: 400,
      body: errorWith('enabled must be a boolean'),
    });
  });

  it('deletes with 204 and detaches the numbers routed to it', async () => {
    const id = await createApp('to-delete');
    expect((await client.seedNumber({ number: '14155550900', app_id: id })).status).toBe(201);
    expect((await client.delete(`/Application/${id}/`)).status).toBe(204);
    expect((await client.get(`/Application/${id}/`)).body).toEqual(errorWith(`application ${id} not found`));
    expect((await client.get('/Number/14155550900/')).body.application).toBeNull();
  });
});

describe('application SIP auth assignment', () => {
  it.each([
    ['ip_acl', { ip_acl: true, credential: false }],
    ['credential', { ip_acl: false, credential: true }],
    ['ip_acl_and_credential', { ip_acl: true, credential: true }],
  ])('assigns %s and keeps only the ids it uses', async (type, uses) => {
    const id = await createApp(`assign-${type}`);
    const acl = await sipAcl(`acl-${type}`);
    const credential = await sipCredential(`cred-${type}`);
    const body: Record<string, string> = { sip_auth_type: type };
    if (uses.ip_acl) body.ip_acl_uuid = acl;
    if (uses.credential) body.credential_uuid = credential;
    expect((await client.post(`/Application/${id}/`, body)).status).toBe(202);
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({
      sip_auth_type: type,
      ip_acl_uuid: uses.ip_acl ? acl : '',
      credential_uuid: uses.credential ? credential : '',
    });
  });

  it('unassigns both ids when sip_auth_type is set to ""', async () => {
    const id = await createApp('unassign');
    const acl = await sipAcl('unassign-acl');
    const credential = await sipCredential('unassign-cred');
    await client.post(`/Application/${id}/`, {
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: acl,
      credential_uuid: credential,
    });
    expect((await client.post(`/Application/${id}/`, { sip_auth_type: '' })).status).toBe(202);
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({
      sip_auth_type: '',
      ip_acl_uuid: '',
      credential_uuid: '',
    });
  });

  it('refuses what cannot be assigned with 400 and changes nothing', async () => {
    const id = await createApp('refusals');
    const acl = await sipAcl('refusals-acl');
    const refusals: Array<[Record<string, unknown>, string]> = [
      [
        { sip_auth_type: 'digest' },
        'sip_auth_type must be one of ip_acl, credential, ip_acl_and_credential or "" (none)',
      ],
      [{ sip_auth_type: 'credential' }, 'credential_uuid is required when sip_auth_type is credential'],
      [
        { sip_auth_type: 'ip_acl_and_credential', ip_acl_uuid: acl },
        'credential_uuid is required when sip_auth_type is ip_acl_and_credential',
      ],
      [
        { sip_auth_type: 'ip_acl', ip_acl_uuid: 'missing' },
        'ip_acl_uuid missing is not an IP access control list of this account',
      ],
      [
        { sip_auth_type: 'credential', credential_uuid: acl },
        `credential_uuid ${acl} is not a SIP credential of this account`,
      ],
      [
        { sip_auth_type: 'ip_acl', ip_acl_uuid: acl, credential_uuid: 'x' },
        'credential_uuid cannot be set when sip_auth_type is ip_acl',
      ],
      [{ ip_acl_uuid: acl }, 'ip_acl_uuid cannot be set when sip_auth_type is empty'],
      [{ sip_auth_type: 5 }, 'sip_auth_type must be a string'],
    ];
    for (const [body, message] of refusals) {
      const reply = await client.post(`/Application/${id}/`, { app_name: 'should-not-stick', ...body });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorWith(message));
    }
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({ app_name: 'refusals', sip_auth_type: '' });
  });

  it('keeps the other id when a partial update changes one of them', async () => {
    const id = await createApp('partial');
    const acl = await sipAcl('partial-acl');
    const first = await sipCredential('partial-one');
    const second = await sipCredential('partial-two');
    await client.post(`/Application/${id}/`, {
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: acl,
      credential_uuid: first,
    });
    expect((await client.post(`/Application/${id}/`, { credential_uuid: second })).status).toBe(202);
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({ ip_acl_uuid: acl, credential_uuid: second });
    // The first credential is free again; the second is not.
    expect((await client.delete(`/SipAuth/Credential/${first}/`)).status).toBe(204);
    expect((await client.delete(`/SipAuth/Credential/${second}/`)).status).toBe(409);
  });

  it('treats null like an absent field', async () => {
    const id = await createApp('nulls');
    const credential = await sipCredential('nulls-cred');
    await client.post(`/Application/${id}/`, { sip_auth_type: 'credential', credential_uuid: credential });
    expect(
      (await client.post(`/Application/${id}/`, { sip_auth_type: null, credential_uuid: null, ip_acl_uuid: null }))
        .status,
    ).toBe(202);
    expect((await client.get(`/Application/${id}/`)).body).toMatchObject({
      sip_auth_type: 'credential',
      credential_uuid: credential,
    });
  });
});

describe('admin application seeding', () => {
  it('creates an application with a chosen app_id, 409 when it exists', async () => {
    const path = `/__emulator/accounts/${client.account.authId}/applications/`;
    const body = { app_id: '12345678901234567', app_name: 'seeded', answer_url: 'https://example.com/seeded' };
    const reply = await client.raw('POST', path, body);
    expect(reply.status).toBe(201);
    expect(reply.body.application).toMatchObject({ app_id: '12345678901234567', app_name: 'seeded' });
    expect((await client.get('/Application/12345678901234567/')).status).toBe(200);
    expect((await client.raw('POST', path, body)).body).toEqual(
      errorWith('application 12345678901234567 already exists'),
    );
    expect((await client.raw('POST', path, { ...body, app_id: 'abc' })).body).toEqual(
      errorWith('app_id must be 1 to 25 digits'),
    );
    expect((await client.raw('POST', '/__emulator/accounts/NOBODY/applications/', body)).status).toBe(404);
  });
});
