import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  errorWith,
  freshAccount,
  profileBody,
  seeded,
  startTendlcEmulator,
  uuidPattern,
  type TendlcClient,
} from './tendlc-client.js';

let emulator: RunningEmulator;
let client: TendlcClient;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
  client = await freshAccount(emulator);
});
afterAll(async () => {
  await emulator.close();
});

describe('seeded profiles', () => {
  it('gives every new account five profiles with fixed uuids; 1–4 hold an EIN, 5 does not', async () => {
    const reply = await client.get('/Profile/');
    expect(reply.status).toBe(200);
    const uuids = reply.body.profiles.map((profile: { profile_uuid: string }) => profile.profile_uuid);
    expect(uuids).toEqual([...seeded.withEin, seeded.withoutEin]);
    const companies = new Set(reply.body.profiles.map((profile: { company_name: string }) => profile.company_name));
    expect(companies.size).toBe(5);
    for (const profile of reply.body.profiles.slice(0, 4)) {
      expect(profile).toMatchObject({
        entity_type: 'PRIVATE',
        ein: expect.stringMatching(/^\d{2}-\d{7}$/),
        ein_issuing_country: 'US',
      });
    }
    expect(reply.body.profiles[4]).toMatchObject({ entity_type: 'INDIVIDUAL', ein: '', ein_issuing_country: '' });
  });

  it('makes profile 1 the primary profile and the others secondary', async () => {
    const first = await client.get(`/Profile/${seeded.withEin[0]}/`);
    expect(first.status).toBe(200);
    expect(first.body.profile).toMatchObject({ profile_type: 'PRIMARY', primary_profile: seeded.withEin[0] });
    const second = await client.get(`/Profile/${seeded.withEin[1]}/`);
    expect(second.body.profile).toMatchObject({ profile_type: 'SECONDARY', primary_profile: seeded.withEin[0] });
  });

  it('returns the whole profile record without internal fields', async () => {
    const reply = await client.get(`/Profile/${seeded.withEin[0]}/`);
    expect(Object.keys(reply.body)).toEqual(['api_id', 'profile']);
    expect(Object.keys(reply.body.profile).sort()).toEqual(
      [
        'profile_uuid',
        'profile_alias',
        'profile_type',
        'primary_profile',
        'customer_type',
        'entity_type',
        'company_name',
        'vertical',
        'ein',
        'ein_issuing_country',
        'stock_symbol',
        'stock_exchange',
        'alt_business_id',
        'alt_business_id_type',
        'website',
        'plivo_subaccount',
        'business_contact_email',
        'doing_business_as',
        'address',
        'authorized_contact',
        'created_at',
      ].sort(),
    );
    expect(Object.keys(reply.body.profile.address).sort()).toEqual([
      'city',
      'country',
      'postal_code',
      'state',
      'street',
    ]);
  });
});

describe('profile list', () => {
  it('pages with links that start with a slash and no total_count (as production documents it)', async () => {
    const reply = await client.get('/Profile/?limit=2&offset=2');
    expect(reply.status).toBe(200);
    expect(reply.body.meta).toEqual({
      limit: 2,
      offset: 2,
      previous: `${client.base}/Profile/?limit=2&offset=0`,
      next: `${client.base}/Profile/?limit=2&offset=4`,
    });
    expect(reply.body.profiles.map((profile: { profile_uuid: string }) => profile.profile_uuid)).toEqual(
      seeded.withEin.slice(2, 4),
    );
  });

  it('filters by entity_type, type and vertical, in any case', async () => {
    const individual = await client.get('/Profile/?entity_type=individual');
    expect(individual.body.profiles.map((profile: { profile_uuid: string }) => profile.profile_uuid)).toEqual([
      seeded.withoutEin,
    ]);
    const primary = await client.get('/Profile/?type=PRIMARY');
    expect(primary.body.profiles.map((profile: { profile_uuid: string }) => profile.profile_uuid)).toEqual([
      seeded.withEin[0],
    ]);
    const secondary = await client.get('/Profile/?type=SECONDARY');
    expect(secondary.body.profiles).toHaveLength(4);
    const healthcare = await client.get('/Profile/?vertical=HEALTHCARE');
    expect(healthcare.body.profiles.map((profile: { profile_uuid: string }) => profile.profile_uuid)).toEqual([
      seeded.withEin[0],
    ]);
  });

  it('refuses an unknown filter value with 400', async () => {
    const reply = await client.get('/Profile/?type=TERTIARY');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith('type must be one of PRIMARY, SECONDARY'));
  });
});

describe('profile create', () => {
  it('answers 200 with the new uuid and a message, and serves the profile', async () => {
    const account = await freshAccount(emulator);
    const reply = await account.post('/Profile/', profileBody({ stock_symbol: '' }));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Profile created successfully.',
      profile_uuid: expect.stringMatching(uuidPattern),
    });
    const read = await account.get(`/Profile/${reply.body.profile_uuid}/`);
    expect(read.body.profile).toMatchObject({
      profile_alias: 'test-profile',
      profile_type: 'SECONDARY',
      primary_profile: seeded.withEin[0],
      company_name: 'Test Company Inc.',
      ein: '81-9999999',
      stock_symbol: '',
      authorized_contact: { title: 'Owner', seniority: 'CEO', phone: '+12025550199' },
    });
    const list = await account.get('/Profile/');
    expect(list.body.profiles).toHaveLength(6);
  });

  it('accepts a PUBLIC profile with its stock symbol and exchange', async () => {
    const reply = await client.post(
      '/Profile/',
      profileBody({ entity_type: 'PUBLIC', stock_symbol: 'TST', stock_exchange: 'NASDAQ' }),
    );
    expect(reply.status).toBe(200);
  });

  it('accepts any text as contact title and seniority (as production documents it)', async () => {
    const reply = await client.post(
      '/Profile/',
      profileBody({
        authorized_contact: { ...(profileBody().authorized_contact as object), title: 'Mr.', seniority: 'admin' },
      }),
    );
    expect(reply.status).toBe(200);
  });

  const contact = profileBody().authorized_contact as Record<string, unknown>;
  const address = profileBody().address as Record<string, unknown>;
  const refusals: [string, Record<string, unknown>, string][] = [
    ['profile_alias missing', { profile_alias: '' }, 'profile_alias is required'],
    ['customer_type missing', { customer_type: undefined }, 'customer_type is required'],
    ['entity_type missing', { entity_type: null }, 'entity_type is required'],
    ['company_name missing', { company_name: '' }, 'company_name is required'],
    ['vertical missing', { vertical: undefined }, 'vertical is required'],
    ['customer_type unknown', { customer_type: 'PARTNER' }, 'customer_type must be one of DIRECT, RESELLER'],
    [
      'entity_type unknown',
      { entity_type: 'PRIVATE_PROFIT' },
      'entity_type must be one of PRIVATE, PUBLIC, NON_PROFIT, GOVERNMENT, INDIVIDUAL',
    ],
    [
      'vertical unknown',
      { vertical: 'SPACE' },
      expect.stringMatching(/^vertical must be one of PROFESSIONAL, /) as unknown as string,
    ],
    ['company_name too long', { company_name: 'x'.repeat(101) }, 'company_name must be at most 100 characters'],
    ['address missing', { address: undefined }, 'address is required'],
    ['address not an object', { address: 'Main St' }, 'address must be an object'],
    ['address.city missing', { address: { ...address, city: '' } }, 'address.city is required'],
    [
      'address.country not alpha-2',
      { address: { ...address, country: 'USA' } },
      'address.country must be an ISO 3166 alpha-2 code such as US',
    ],
    ['authorized_contact missing', { authorized_contact: undefined }, 'authorized_contact is required'],
    [
      'contact email missing',
      { authorized_contact: { ...contact, email: '' } },
      'authorized_contact.email is required',
    ],
    [
      'contact email malformed',
      { authorized_contact: { ...contact, email: 'alex' } },
      'authorized_contact.email must be an email address',
    ],
    [
      'contact phone not E.164',
      { authorized_contact: { ...contact, phone: '202-555-0199' } },
      'authorized_contact.phone must be an E.164 number such as +12025550123',
    ],
    [
      'PUBLIC without stock_symbol',
      { entity_type: 'PUBLIC', stock_exchange: 'NYSE' },
      'stock_symbol is required when entity_type is PUBLIC',
    ],
    [
      'PUBLIC without stock_exchange',
      { entity_type: 'PUBLIC', stock_symbol: 'TST' },
      'stock_exchange is required when entity_type is PUBLIC',
    ],
    [
      'ein_issuing_country not alpha-2',
      { ein_issuing_country: 'United States' },
      'ein_issuing_country must be an ISO 3166 alpha-2 code such as US',
    ],
    [
      'business_contact_email malformed',
      { business_contact_email: 'nobody' },
      'business_contact_email must be an email address',
    ],
    [
      'alt_business_id_type unknown',
      { alt_business_id_type: 'VAT' },
      'alt_business_id_type must be one of DUNS, LEI, GIIN, NONE',
    ],
    ['a field of the wrong type', { website: 42 }, 'website must be a string'],
  ];
  it.each(refusals)('refuses %s with 400 naming the field', async (_name, overrides, message) => {
    const reply = await client.post('/Profile/', profileBody(overrides));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith(message));
  });
});

describe('profile get, update and delete', () => {
  it('answers 404 for an unknown profile', async () => {
    const reply = await client.get('/Profile/00000000-0000-4000-8000-000000000000/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(errorWith('profile 00000000-0000-4000-8000-000000000000 not found'));
  });

  it('updates the given fields, merges address and contact, ignores "" and returns the whole profile', async () => {
    const account = await freshAccount(emulator);
    const uuid = seeded.withEin[2];
    const reply = await account.post(`/Profile/${uuid}/`, {
      company_name: 'Cedar Street Realty Holdings',
      website: '',
      address: { city: 'Salem', street: '' },
      authorized_contact: { email: 'new.person@example.com' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.profile).toMatchObject({
      profile_uuid: uuid,
      company_name: 'Cedar Street Realty Holdings',
      website: 'https://cedar-street-realty.example.com',
      address: { street: '45 Cedar Street', city: 'Salem', state: 'OR', country: 'US' },
      authorized_contact: { first_name: 'Priya', email: 'new.person@example.com' },
    });
    const read = await account.get(`/Profile/${uuid}/`);
    expect(read.body.profile).toEqual(reply.body.profile);
  });

  it('refuses an update that breaks a rule and keeps the profile unchanged', async () => {
    const account = await freshAccount(emulator);
    const uuid = seeded.withEin[3];
    const before = await account.get(`/Profile/${uuid}/`);
    const reply = await account.post(`/Profile/${uuid}/`, { company_name: 'New Name', entity_type: 'PUBLIC' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorWith('stock_symbol is required when entity_type is PUBLIC'));
    const after = await account.get(`/Profile/${uuid}/`);
    expect(after.body.profile).toEqual(before.body.profile);
  });

  it('deletes a secondary profile with a message; it is gone afterwards', async () => {
    const account = await freshAccount(emulator);
    const reply = await account.delete(`/Profile/${seeded.withoutEin}/`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      api_id: expect.stringMatching(uuidPattern),
      message: 'Profile deleted successfully.',
    });
    expect((await account.get(`/Profile/${seeded.withoutEin}/`)).status).toBe(404);
  });

  it('refuses to delete the primary profile', async () => {
    const reply = await client.delete(`/Profile/${seeded.withEin[0]}/`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      errorWith(`profile ${seeded.withEin[0]} is the primary profile of the account and cannot be deleted`),
    );
  });
});
