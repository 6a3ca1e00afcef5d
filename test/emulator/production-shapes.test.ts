import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { shapesFromEnvironment } from '../../src/emulator/options.js';
import { productionProfileUuids } from '../../src/emulator/routes/production-seed.js';
import { call, type HttpAnswer } from './fixtures/http.js';

const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const base = `/v1/Account/${defaultAccount.authId}`;

let directory: string;
const running: RunningEmulator[] = [];
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telform-shapes-'));
});
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  await rm(directory, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ registryDelayMs: 0, ...options });
  running.push(emulator);
  return emulator;
}

type Body = Record<string, unknown>;

async function get(emulator: RunningEmulator, path: string): Promise<HttpAnswer & { body: Body }> {
  return (await call(emulator.url, `${base}${path}`, { auth })) as HttpAnswer & { body: Body };
}

async function post(emulator: RunningEmulator, path: string, body: unknown): Promise<HttpAnswer & { body: Body }> {
  return (await call(emulator.url, `${base}${path}`, { auth, method: 'POST', body })) as HttpAnswer & { body: Body };
}

/** Every page of a 10DLC list, following `next` (production's meta has no total). */
async function all(emulator: RunningEmulator, path: string, key: string): Promise<Body[]> {
  const items: Body[] = [];
  let next: string | null = `${base}${path}`;
  while (next !== null) {
    const answer = (await call(emulator.url, next, { auth })) as HttpAnswer & { body: Body };
    expect(answer.status).toBe(200);
    items.push(...(answer.body[key] as Body[]));
    next = (answer.body.meta as { next: string | null }).next;
  }
  return items;
}

const campaignBody = {
  brand_id: '',
  campaign_alias: 'fresh-support',
  vertical: 'TECHNOLOGY',
  usecase: 'CUSTOMER_CARE',
  description: 'Support conversations with customers about their open tickets and orders.',
  sample1: 'Your ticket 123 was updated; reply STOP to opt out of these messages.',
  sample2: 'An agent replied to your request; reply HELP for help with this line.',
  message_flow: 'Customers opt in by ticking a box on the support form before a ticket is opened.',
  help_message: 'Reply HELP for help or STOP to opt out.',
  optout_message: 'You are unsubscribed and will receive no further messages.',
  subscriber_optin: true,
  subscriber_optout: true,
  subscriber_help: true,
  affiliate_marketing: false,
  age_gated: false,
  direct_lending: false,
  embedded_link: false,
  embedded_phone: false,
};

describe('the production shapes', () => {
  it('hold legacy brands, campaigns and profiles as real accounts do, with omitted fields', async () => {
    const emulator = await start({ shapes: 'production' });
    const brands = await all(emulator, '/10dlc/Brand/', 'brands');
    expect(brands.filter((brand) => brand.brand_type === 'STARTER').map((brand) => brand.brand_id)).toEqual([
      'BSTRT01',
      'BSTRT02',
      'BSTRT03',
    ]);
    const bare = brands.find((brand) => brand.brand_id === 'BSTRT02') as Body;
    expect(bare).not.toHaveProperty('profile_uuid');
    expect(bare).not.toHaveProperty('entity_type');
    expect(bare).not.toHaveProperty('company_name');
    const okafor = brands.find((brand) => brand.brand_id === 'BSTRT01') as Body;
    expect(okafor).toMatchObject({ vertical: 'nil', ein_issuing_country: 'nil', authorized_contact: {} });
    expect(okafor.address).toEqual({ street: '', city: '', state: '', postal_code: '', country: '' });

    const campaigns = await all(emulator, '/10dlc/Campaign/', 'campaigns');
    expect(campaigns.filter((campaign) => campaign.campaign_alias === 'testing')).toHaveLength(4);
    expect(campaigns.find((campaign) => campaign.campaign_id === 'CSTRT05')).not.toHaveProperty('usecase');
    expect(campaigns.find((campaign) => campaign.campaign_id === 'CSTRT04')).toMatchObject({
      usecase: 'STARTER',
      sub_usecase: '2FA,ACCOUNT_NOTIFICATION',
    });
    const old = campaigns.find((campaign) => campaign.campaign_id === 'COLD001') as Body;
    for (const field of ['campaign_alias', 'vertical', 'sample1', 'sample2', 'campaign_attributes'])
      expect(old).not.toHaveProperty(field);

    const profile = (await get(emulator, `/Profile/${productionProfileUuids.publicProfit}/`)).body.profile as Body;
    expect(profile).toMatchObject({
      entity_type: 'PUBLIC_PROFIT',
      ein_issuing_country: 'in',
      alt_business_id_type: 'NONE',
    });
    expect(profile.authorized_contact).toMatchObject({ phone: '919742763781', seniority: 'admin' });
    expect(profile).not.toHaveProperty('website');
    const sole = (await get(emulator, `/Profile/${productionProfileUuids.soleProprietor}/`)).body.profile as Body;
    expect(sole.authorized_contact).toEqual({ name: ' ' });
    expect(sole).not.toHaveProperty('address');
    expect(sole).not.toHaveProperty('ein');

    const credential = (await get(emulator, '/Zentrunk/Credential/')).body.objects as Body[];
    expect(credential.map((item) => item.username)).toEqual(['sip_user_1']);
  });

  it('read 10DLC and Profile lists with meta {limit, next, offset} only', async () => {
    const emulator = await start({ shapes: 'production' });
    for (const [path, key] of [
      ['/10dlc/Brand/?limit=2', 'brands'],
      ['/10dlc/Campaign/?limit=2', 'campaigns'],
      ['/Profile/?limit=2', 'profiles'],
    ] as const) {
      const answer = await get(emulator, path);
      expect(Object.keys(answer.body.meta as Body).sort()).toEqual(['limit', 'next', 'offset']);
      expect((answer.body[key] as Body[]).length).toBe(2);
    }
    const ideal = await start({ shapes: 'ideal' });
    expect(Object.keys((await get(ideal, '/10dlc/Brand/')).body.meta as Body).sort()).toEqual([
      'limit',
      'next',
      'offset',
      'previous',
      'total_count',
    ]);
  });

  it('read a campaign back without message_flow, help_message, optout_message and affiliate_marketing (ideal shapes keep them)', async () => {
    for (const shapes of ['production', 'ideal'] as const) {
      const emulator = await start({ shapes });
      const brand = await post(emulator, '/10dlc/Brand/', {
        profile_uuid: '5eed0000-0000-4000-8000-000000000002',
        brand_alias: 'bluebird',
      });
      expect(brand.status).toBe(200);
      await call(emulator.url, '/__emulator/clock/', { method: 'POST', body: { advance_ms: 1 } });
      const created = await post(emulator, '/10dlc/Campaign/', { ...campaignBody, brand_id: brand.body.brand_id });
      expect(created.status).toBe(200);
      const campaign = (await get(emulator, `/10dlc/Campaign/${created.body.campaign_id as string}/`)).body
        .campaign as Body;
      const attributes = campaign.campaign_attributes as Body;
      if (shapes === 'production') {
        for (const field of ['message_flow', 'help_message', 'optout_message'])
          expect(campaign).not.toHaveProperty(field);
        expect(Object.keys(attributes)).toHaveLength(7);
        expect(attributes).not.toHaveProperty('affiliate_marketing');
      } else {
        expect(campaign).toMatchObject({
          message_flow: campaignBody.message_flow,
          help_message: campaignBody.help_message,
        });
        expect(attributes).toHaveProperty('affiliate_marketing', false);
      }
      expect(campaign).toMatchObject({ vertical: 'TECHNOLOGY', sample1: campaignBody.sample1 });
    }
  });

  it('hold three hundred numbers more, with full rows and every link status real accounts show', async () => {
    const emulator = await start({ shapes: 'production' });
    const rows: Body[] = [];
    let next: string | null = `${base}/Number/`;
    while (next !== null) {
      const answer = (await call(emulator.url, next.startsWith('/') ? next : `/${next}`, { auth })) as HttpAnswer & {
        body: Body;
      };
      rows.push(...(answer.body.objects as Body[]));
      next = (answer.body.meta as { next: string | null }).next;
    }
    expect(rows).toHaveLength(305);
    const held = rows.filter((row) => 'carrier' in row);
    expect(held).toHaveLength(300);
    for (const row of held) expect(Object.keys(row).length).toBeGreaterThanOrEqual(25);
    const statuses = new Set(held.map((row) => String(row.tendlc_registration_status)));
    expect([...statuses].sort()).toEqual(['COMPLETED', 'PROCESSING', 'REGISTERED', 'UNREGISTERED', 'null']);
    expect(held.some((row) => row.tendlc_registration_status === 'COMPLETED' && row.tendlc_campaign_id === null)).toBe(
      true,
    );
    expect(held.some((row) => row.toll_free_sms_verification === 'verified')).toBe(true);
    const registered = held.find((row) => row.tendlc_registration_status === 'REGISTERED') as Body;
    const link = await get(emulator, `/10dlc/Campaign/CSTND01/Number/${registered.number as string}/`);
    expect(link.body.phone_numbers).toEqual([{ number: registered.number, status: 'REGISTERED' }]);
  });

  it('read unset SIP auth fields of applications as null (ideal: "")', async () => {
    const production = await start({ shapes: 'production' });
    expect((await get(production, '/Application/77700000000000001/')).body).toMatchObject({
      sip_auth_type: null,
      ip_acl_uuid: null,
      credential_uuid: null,
    });
    const ideal = await start({ shapes: 'ideal' });
    expect((await get(ideal, '/Application/77700000000000001/')).body).toMatchObject({
      sip_auth_type: '',
      ip_acl_uuid: '',
      credential_uuid: '',
    });
  });

  it('answer a brand or campaign delete without api_id, as production may', async () => {
    const emulator = await start({ shapes: 'production' });
    const campaign = (await call(emulator.url, `${base}/10dlc/Campaign/CSTRT04/`, {
      auth,
      method: 'DELETE',
    })) as HttpAnswer;
    expect(campaign).toMatchObject({ status: 200, body: { message: 'Campaign Deactivated', campaign_id: 'CSTRT04' } });
    expect(campaign.body).not.toHaveProperty('api_id');
    const ideal = await start({ shapes: 'ideal' });
    const brand = await post(ideal, '/10dlc/Brand/', {
      profile_uuid: '5eed0000-0000-4000-8000-000000000002',
      brand_alias: 'bluebird',
    });
    const deleted = (await call(ideal.url, `${base}/10dlc/Brand/${brand.body.brand_id as string}/`, {
      auth,
      method: 'DELETE',
    })) as HttpAnswer;
    expect(deleted.body).toHaveProperty('api_id');
  });

  it('ideal shapes hold only the documented starting set', async () => {
    const emulator = await start({ shapes: 'ideal' });
    expect((await get(emulator, '/10dlc/Brand/')).body.brands).toEqual([]);
    expect((await get(emulator, '/Zentrunk/Credential/')).body.objects).toEqual([]);
    expect(((await get(emulator, '/Number/')).body.meta as Body).total_count).toBe(5);
  });

  it('a legacy profile updated in one field is not judged again on the values it holds', async () => {
    const emulator = await start({ shapes: 'production' });
    const updated = await post(emulator, `/Profile/${productionProfileUuids.publicProfit}/`, {
      website: 'https://acme.example.com',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.profile).toMatchObject({ entity_type: 'PUBLIC_PROFIT', website: 'https://acme.example.com' });
    const refused = await post(emulator, `/Profile/${productionProfileUuids.publicProfit}/`, {
      entity_type: 'PUBLIC_PROFIT',
    });
    expect(refused.status).toBe(400);
  });
});

describe('the default shapes', () => {
  it('are production, unless TELFORM_EMULATOR_SHAPES names others', () => {
    expect(shapesFromEnvironment({})).toBe('production');
    expect(shapesFromEnvironment({ TELFORM_EMULATOR_SHAPES: 'ideal' })).toBe('ideal');
    expect(() => shapesFromEnvironment({ TELFORM_EMULATOR_SHAPES: 'real' })).toThrow(
      'TELFORM_EMULATOR_SHAPES must be production or ideal, not "real"',
    );
  });
});

describe('--products', () => {
  it('answers 403 to a product the account lacks, and serves the rest', async () => {
    const emulator = await start({ products: ['10dlc'], shapes: 'ideal' });
    const trunking = await get(emulator, '/Zentrunk/Credential/');
    expect(trunking.status).toBe(403);
    expect(trunking.body.error).toBe('SIP trunking not enabled');
    expect((await get(emulator, '/Trunking/Trunk/')).status).toBe(403);
    expect((await get(emulator, '/10dlc/Brand/')).status).toBe(200);
    expect((await get(emulator, '/SipAuth/Credential/')).status).toBe(200);

    expect((await call(emulator.url, '/__emulator/health/')) as HttpAnswer).toMatchObject({
      body: { shapes: 'ideal', products: ['10dlc'] },
    });

    const voiceOnly = await start({ products: [] });
    const brands = await get(voiceOnly, '/10dlc/Brand/');
    expect(brands.status).toBe(403);
    expect(brands.body.error).toBe('10DLC not enabled');
    expect((await get(voiceOnly, '/Profile/')).status).toBe(403);
    expect((await get(voiceOnly, '/Application/')).status).toBe(200);
  });

  it('refuses an unknown product', async () => {
    await expect(startEmulator({ products: ['voice' as never] })).rejects.toThrow(
      'unknown product "voice" (the products are sip-trunking, 10dlc, or none)',
    );
  });
});

describe('held objects (seed "existing") and data files', () => {
  it('keeps legacy values and omitted fields as given, through a save and a load', async () => {
    const dataFile = join(directory, 'emulator.json');
    const seedData = {
      existing: {
        profiles: [
          {
            profile_uuid: '0b5e0000-0000-4000-8000-000000000001',
            entity_type: 'PUBLIC_PROFIT',
            authorized_contact: { phone: '919742763781' },
          },
        ],
        brands: [{ brand_id: 'BHELD01', brand_type: 'STARTER', profile_uuid: '0b5e0000-0000-4000-8000-000000000001' }],
        campaigns: [{ campaign_id: 'CHELD01', brand_id: 'BHELD01', usecase: 'STARTER', sample1: 'short' }],
        trunk_credentials: [{ username: 'sip_user_2' }],
      },
    };
    const first = await start({ shapes: 'ideal', dataFile, seedData });
    const before = (await get(first, '/10dlc/Campaign/CHELD01/')).body.campaign;
    await first.close();
    running.splice(0);
    const second = await start({ shapes: 'ideal', dataFile });
    expect((await get(second, '/10dlc/Campaign/CHELD01/')).body.campaign).toEqual({
      ...(before as Body),
      mno_metadata: expect.any(Object),
    });
    const brand = (await get(second, '/10dlc/Brand/BHELD01/')).body.brand as Body;
    expect(brand).toMatchObject({ brand_type: 'STARTER', profile_uuid: '0b5e0000-0000-4000-8000-000000000001' });
    expect(brand).not.toHaveProperty('company_name');
    const profile = (await get(second, '/Profile/0b5e0000-0000-4000-8000-000000000001/')).body.profile as Body;
    expect(profile.authorized_contact).toEqual({ phone: '919742763781' });
    expect(profile).not.toHaveProperty('company_name');
  });

  it('does not add the production objects to an account loaded from a data file', async () => {
    const dataFile = join(directory, 'emulator.json');
    const first = await start({ shapes: 'ideal', dataFile });
    await first.close();
    running.splice(0);
    const second = await start({ shapes: 'production', dataFile });
    expect((await get(second, '/10dlc/Brand/')).body.brands).toEqual([]);
  });

  it('names the place and the field of a held object it cannot keep', async () => {
    await expect(
      start({ seedData: { existing: { campaigns: [{ campaign_id: 'CHELD02', brand_id: 'BNONE01' }] } } }),
    ).rejects.toThrow(
      'seed data (existing.campaigns[0]): the emulator refused this item (400): brand_id BNONE01 does not name a brand of this account (only a campaign_source: shared campaign may have its brand elsewhere).',
    );
    await expect(
      start({ seedData: { existing: { brands: [{ brand_id: 'BHELD03', brand_typo: 'STARTER' }] } } }),
    ).rejects.toThrow('unknown field brand_typo for a held brand');
  });

  it('holds a campaign shared with the account, whose brand belongs to another account (issue 46 item 5)', async () => {
    const emulator = await start({
      shapes: 'ideal',
      seedData: {
        existing: {
          campaigns: [
            { campaign_id: 'CSHRD01', brand_id: 'BOTHER1', campaign_source: 'SHARED', usecase: 'CUSTOMER_CARE' },
          ],
        },
      },
    });
    expect((await get(emulator, '/10dlc/Campaign/CSHRD01/')).body.campaign).toMatchObject({
      campaign_id: 'CSHRD01',
      brand_id: 'BOTHER1',
      campaign_source: 'shared',
    });
    expect((await get(emulator, '/10dlc/Brand/')).body.brands).toEqual([]);
  });
});
