import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, startCoreEmulator } from './core-client.js';

/**
 * Whatever a client sends to the core API's write routes, the answer is a success or a 4xx with the
 * `{api_id, error}` body: never a 500 (issue #2, item 5). Bodies are random objects over the fields
 * these routes read, with values of every JSON type, real ids of the account among them.
 */

let client: CoreClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  client = await startCoreEmulator();
  ids.sipCredential = (
    await client.post('/SipAuth/Credential/', { username: 'fuzz-user', password: 'Secr3tPassw0rd' })
  ).body.credential_uuid;
  ids.sipAcl = (await client.post('/SipAuth/IpAccessControlList/', { name: 'fuzz' })).body.ip_acl_uuid;
  ids.trunkAcl = (await client.post('/Zentrunk/IPAccessControlList/', { ip_addresses: ['10.0.0.1'] })).body.ipacl_uuid;
  ids.trunkCredential = (
    await client.post('/Zentrunk/Credential/', { username: 'fuzzuser', password: 'fuzz!pass' })
  ).body.credential_uuid;
  ids.uri = (await client.post('/Zentrunk/URI/', { uri: 'fuzz.example.com' })).body.uri_uuid;
  ids.trunk = (
    await client.post('/Zentrunk/Trunk/', { trunk_direction: 'inbound', primary_uri_uuid: ids.uri })
  ).body.trunk_id;
  await client.seedNumber({ number: '14155550999' });
});
afterAll(async () => {
  await client.emulator.close();
});

const fields = [
  'username',
  'password',
  'name',
  'entries',
  'ip',
  'cidr_prefix',
  'description',
  'app_id',
  'app_name',
  'answer_url',
  'answer_method',
  'hangup_url',
  'public_uri',
  'sip_auth_type',
  'ip_acl_uuid',
  'credential_uuid',
  'trunk_direction',
  'trunk_status',
  'secure',
  'ipacl_uuid',
  'primary_uri_uuid',
  'fallback_uri_uuid',
  'ip_addresses',
  'uri',
  'authentication_needed',
  'number',
  'campaign_id',
  'campaign_link_status',
];

function bodies(): fc.Arbitrary<Record<string, unknown>> {
  const realIds = fc.constantFrom(...Object.values(ids), '77700000000000001');
  const plausible = fc.constantFrom(
    '',
    'outbound',
    'inbound',
    'enabled',
    'credential',
    'ip_acl',
    'ip_acl_and_credential',
    '10.0.0.1',
    '10.0.0.0/8',
    'https://e.com/',
    'Secr3tPassw0rd',
    'abc!12',
    'PROCESSING',
  );
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    realIds,
    plausible,
    fc.array(fc.oneof(plausible, fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 }),
  );
  return fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 6 });
}

describe('the core API never answers 500', () => {
  const routes = (): Array<[string, string]> => [
    ['POST', '/SipAuth/Credential/'],
    ['POST', `/SipAuth/Credential/${ids.sipCredential}/`],
    ['POST', '/SipAuth/IpAccessControlList/'],
    ['POST', `/SipAuth/IpAccessControlList/${ids.sipAcl}/`],
    ['POST', `/SipAuth/IpAccessControlList/${ids.sipAcl}/Entry/`],
    ['POST', '/Application/'],
    ['POST', '/Application/77700000000000002/'],
    ['POST', '/Zentrunk/Trunk/'],
    ['POST', `/Zentrunk/Trunk/${ids.trunk}/`],
    ['POST', '/Zentrunk/Credential/'],
    ['POST', `/Zentrunk/Credential/${ids.trunkCredential}/`],
    ['POST', '/Zentrunk/IPAccessControlList/'],
    ['POST', `/Zentrunk/IPAccessControlList/${ids.trunkAcl}/`],
    ['POST', '/Zentrunk/URI/'],
    ['POST', `/Zentrunk/URI/${ids.uri}/`],
    ['POST', '/Number/14155550999/'],
  ];

  it('for random bodies on every write route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 15 }), bodies(), async (index, body) => {
        const [method, path] = routes()[index] as [string, string];
        const reply = await client.call(method, path, body);
        expect(reply.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        if (reply.status >= 400) expect(Object.keys(reply.body)).toEqual(['api_id', 'error']);
      }),
      { numRuns: 600 },
    );
  });

  it('for random bodies on the admin seed routes', async () => {
    const base = `/__emulator/accounts/${client.account.authId}`;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(`${base}/numbers/`, `${base}/applications/`), bodies(), async (path, body) => {
        const reply = await client.raw('POST', path, body);
        expect(reply.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it('for random query strings on the lists', async () => {
    const lists = [
      '/SipAuth/Credential/',
      '/SipAuth/IpAccessControlList/',
      '/Application/',
      '/Zentrunk/Trunk/',
      '/Zentrunk/Credential/',
      '/Zentrunk/IPAccessControlList/',
      '/Zentrunk/URI/',
      '/Number/',
    ];
    const key = fc.constantFrom('limit', 'offset', 'trunk_status', 'trunk_direction', 'secure', 'ipacl_uuid', 'app_id');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.dictionary(key, fc.string({ maxLength: 6 }), { maxKeys: 4 }),
        async (path, query) => {
          const reply = await client.get(`${path}?${new URLSearchParams(query).toString()}`);
          expect(reply.status, `${path} ${JSON.stringify(query)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
  });
});
