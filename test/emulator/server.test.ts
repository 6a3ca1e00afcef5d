import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { CoreClient, errorWith, startCoreEmulator, uuidPattern } from './core-client.js';

let client: CoreClient;
beforeAll(async () => {
  client = await startCoreEmulator();
});
afterAll(async () => {
  await client.emulator.close();
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

describe('emulator server', () => {
  it('listens on loopback with an ephemeral port', () => {
    expect(client.emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves the admin health route', async () => {
    const reply = await client.raw('GET', '/__emulator/health/');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ok', accounts: expect.arrayContaining([defaultAccount.authId]) });
  });
});

describe('HTTP Basic authentication', () => {
  const path = `/v1/Account/${defaultAccount.authId}/SipAuth/Credential/`;

  it.each([
    ['no header', undefined],
    ['a wrong token', basic(defaultAccount.authId, 'nope')],
    ['an unknown account', basic('MANOBODY000000000001', defaultAccount.authToken)],
    ['another scheme', `Bearer ${defaultAccount.authToken}`],
    ['no colon', `Basic ${Buffer.from(defaultAccount.authId).toString('base64')}`],
    ['a token that is a prefix of the real one', basic(defaultAccount.authId, defaultAccount.authToken.slice(0, -1))],
  ])('answers 401 with the error body for %s', async (_label, header) => {
    const reply = await client.raw('GET', path, undefined, header ? { authorization: header } : {});
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(errorWith('Authentication failed'));
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="telform-emulator"');
  });

  it('answers 401 before 404 for an unknown path without credentials', async () => {
    expect((await client.raw('GET', `/v1/Account/${defaultAccount.authId}/NoSuchThing/`)).status).toBe(401);
  });

  it('accepts the right credentials', async () => {
    const reply = await client.raw('GET', path, undefined, {
      authorization: basic(defaultAccount.authId, defaultAccount.authToken),
    });
    expect(reply.status).toBe(200);
  });
});

describe('account isolation', () => {
  it("an account cannot read, change or list another account's resources", async () => {
    const other = await client.otherAccount('MAISOLATED0000000001', 'isolated-token');
    const id = (await client.post('/SipAuth/Credential/', { username: 'isolated', password: 'Secr3tPassw0rd' })).body
      .credential_uuid;
    const trunkAcl = (await client.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['10.9.9.9'] })).body
      .ipacl_uuid;
    // Its own credentials on its own path: the resource is simply not there.
    expect((await other.get(`/SipAuth/Credential/${id}/`)).status).toBe(404);
    expect((await other.delete(`/SipAuth/Credential/${id}/`)).status).toBe(404);
    expect((await other.get(`/Zentrunk/IPAccessControlList/${trunkAcl}/`)).status).toBe(404);
    expect((await other.get('/Zentrunk/IPAccessControlList/')).body.meta.total_count).toBe(0);
    expect((await other.post('/Zentrunk/Trunk/', { trunk_direction: 'outbound', ipacl_uuid: trunkAcl })).status).toBe(
      400,
    );
    // Its own credentials on the first account's path: refused outright.
    const crossed = await client.raw('GET', `${client.base}/SipAuth/Credential/${id}/`, undefined, {
      authorization: other.authorization(),
    });
    expect(crossed.status).toBe(401);
    expect((await client.get(`/SipAuth/Credential/${id}/`)).status).toBe(200);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path after authenticating', async () => {
    const reply = await client.get('/NoSuchThing/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(errorWith('not found'));
  });

  it('answers 404 outside /v1/Account/', async () => {
    expect((await client.raw('GET', '/v2/Account/X/')).status).toBe(404);
  });

  it.each([
    ['PUT', '/SipAuth/Credential/'],
    ['DELETE', '/SipAuth/Credential/'],
    ['PATCH', '/Zentrunk/Trunk/123/'],
    ['GET', '/SipAuth/IpAccessControlList/abc/Entry/'],
    ['DELETE', '/Application/'],
    ['POST', '/Number/'],
  ])('answers 405 for %s %s', async (method, path) => {
    const reply = await client.call(method, path);
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual(errorWith(`method ${method} is not allowed on this resource`));
  });

  it('serves paths without the trailing slash too', async () => {
    expect((await client.get('/SipAuth/Credential')).status).toBe(200);
  });

  it('answers every response with a fresh api_id', async () => {
    const first = await client.get('/Application/');
    const second = await client.get('/Application/');
    expect(first.body.api_id).toMatch(uuidPattern);
    expect(second.body.api_id).toMatch(uuidPattern);
    expect(first.body.api_id).not.toBe(second.body.api_id);
  });
});

describe('request bodies', () => {
  it('answers 400 (never 500) for malformed JSON', async () => {
    const reply = await client.call('POST', '/SipAuth/Credential/', '{"username": "x",');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith('request body is not valid JSON'));
  });

  it.each(['[1,2]', '"text"', '42', 'null'])('answers 400 for the non-object body %s', async (text) => {
    const reply = await client.call('POST', '/Zentrunk/Trunk/', text);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith('request body must be a JSON object'));
  });

  it('answers 400 naming the field for a wrong JSON type anywhere', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/SipAuth/Credential/', { username: ['a'], password: 'x' }, 'username must be a string'],
      ['/SipAuth/IpAccessControlList/', { name: { a: 1 } }, 'name must be a string'],
      ['/Application/', { app_name: true, answer_url: 'https://e.com/' }, 'app_name must be a string'],
      ['/Zentrunk/Trunk/', { trunk_direction: 1 }, 'trunk_direction must be a string'],
      ['/Zentrunk/Credential/', { username: 'abcdef', password: {} }, 'password must be a string'],
      ['/Zentrunk/IPAccessControlList/', { ip_addresses: [{}] }, 'ip_addresses[0] must be a string'],
      ['/Zentrunk/URI/', { uri: 3 }, 'uri must be a string'],
    ];
    for (const [path, body, message] of cases) {
      const reply = await client.post(path, body);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorWith(message));
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const reply = await client.call('POST', '/SipAuth/IpAccessControlList/', big);
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual(errorWith('request body is larger than 1048576 bytes'));
  });

  it('refuses an oversized chunked body (no Content-Length) with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${client.emulator.url}${client.base}/SipAuth/IpAccessControlList/`);
      const req = httpRequest(
        url,
        { method: 'POST', headers: { authorization: client.authorization(), 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"name":"');
      for (let index = 0; index < 17; index += 1) req.write(chunk);
      req.end('"}');
    });
    expect(status).toBe(413);
  });
});

describe('pagination', () => {
  it.each([
    ['limit=0', 'limit must be an integer from 1 to 20'],
    ['limit=21', 'limit must be an integer from 1 to 20'],
    ['limit=abc', 'limit must be an integer'],
    ['offset=-1', 'offset must be a non-negative integer'],
    ['offset=1.5', 'offset must be an integer'],
  ])('answers 400 for %s', async (query, message) => {
    for (const path of ['/SipAuth/Credential/', '/Application/', '/Zentrunk/Trunk/', '/Zentrunk/URI/', '/Number/']) {
      const reply = await client.get(`${path}?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorWith(message));
    }
  });

  it('answers an empty page past the end', async () => {
    const reply = await client.get('/Application/?offset=100');
    expect(reply.status).toBe(200);
    expect(reply.body.objects).toEqual([]);
    expect(reply.body.meta).toMatchObject({
      offset: 100,
      total_count: 3,
      next: null,
      previous: `${client.base}/Application/?limit=20&offset=80`,
    });
  });

  it('pages through every item exactly once', async () => {
    const other = await client.otherAccount('MAPAGING000000000001', 'paging-token');
    for (let index = 0; index < 45; index += 1)
      await other.post('/Zentrunk/URI/', { name: `p${index}`, uri: `p${index}.example.com` });
    const seen: string[] = [];
    let next: string | null = 'v1/Account/MAPAGING000000000001/Zentrunk/URI/?limit=20&offset=0';
    while (next !== null) {
      const reply = await other.raw('GET', `/${next}`, undefined, { authorization: other.authorization() });
      seen.push(...reply.body.objects.map((uri: { name: string }) => uri.name));
      next = reply.body.meta.next;
    }
    expect(seen).toEqual(Array.from({ length: 45 }, (_, index) => `p${index}`));
  });
});

describe('request log', () => {
  it('records every account request with its status, readable through the admin route', async () => {
    const before = await client.raw('GET', '/__emulator/requests/');
    const lastSeq = Math.max(0, ...before.body.requests.map((entry: { seq: number }) => entry.seq));
    await client.get('/Zentrunk/Trunk/');
    await client.post('/Zentrunk/Trunk/', {});
    const after = await client.raw(
      'GET',
      `/__emulator/requests/?since_seq=${lastSeq}&account=${defaultAccount.authId}`,
    );
    expect(
      after.body.requests.map((entry: { method: string; path: string; status: number }) => [
        entry.method,
        entry.path,
        entry.status,
      ]),
    ).toEqual([
      ['GET', `${client.base}/Zentrunk/Trunk/`, 200],
      ['POST', `${client.base}/Zentrunk/Trunk/`, 422],
    ]);
  });
});
