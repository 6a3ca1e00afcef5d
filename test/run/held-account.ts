// Generated production-shaped accounts for property tests: the held objects real accounts show (legacy values,
// omitted fields, numbers in every link status), with consistent references, as an emulator seed.
import fc from 'fast-check';
import type { SeedInput } from '../../src/emulator/index.js';

export type Held = Record<string, unknown>;
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arbitrary, { nil: undefined });
/** Drops the keys whose value was not generated: a held object omits what it never had. */
const compact = (object: Held): Held =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
const word = fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/);
const alias = fc.oneof(fc.constant('testing'), word);

const contact = fc
  .record({
    first_name: maybe(fc.constantFrom('Ana', 'Raj', ' ')),
    last_name: maybe(fc.constantFrom('Lee', 'Iyer')),
    email: maybe(fc.constantFrom('ops@example.com', 'a.b@example.com')),
    phone: maybe(fc.constantFrom('919742763781', '+14155550123', '14155550123')),
    seniority: maybe(fc.constantFrom('admin', 'C_LEVEL', 'DIRECTOR')),
    name: maybe(fc.constant(' ')),
  })
  .map(compact);

const address = fc.oneof(
  fc.constant({ street: '', city: '', state: '', postal_code: '', country: '' }),
  fc.record({
    street: fc.constant('1 Main St'),
    city: fc.constant('Austin'),
    state: fc.constant('TX'),
    postal_code: fc.constant('73301'),
    country: fc.constantFrom('US', 'IN'),
  }),
);

const profile = fc
  .record({
    profile_alias: maybe(alias),
    customer_type: maybe(fc.constantFrom('DIRECT', 'RESELLER')),
    entity_type: maybe(fc.constantFrom('PUBLIC_PROFIT', 'PRIVATE_PROFIT', 'SOLE_PROPRIETOR', 'PRIVATE', 'NON_PROFIT')),
    company_name: maybe(fc.constantFrom('Acme Inc.', 'Blue Fin Co', 'Sam Okafor')),
    vertical: maybe(fc.constantFrom('TECHNOLOGY', 'RETAIL', 'nil')),
    ein: maybe(fc.constantFrom('29-0000021', '123456789')),
    ein_issuing_country: maybe(fc.constantFrom('US', 'in', 'nil')),
    alt_business_id_type: maybe(fc.constantFrom('NONE', 'DUNS')),
    website: maybe(fc.constantFrom('https://example.com', 'example.com')),
    address: maybe(address),
    authorized_contact: maybe(contact),
  })
  .map(compact);

const brand = fc
  .record({
    brand_alias: maybe(alias),
    brand_type: fc.constantFrom('STARTER', 'STANDARD'),
    entity_type: maybe(fc.constantFrom('SOLE_PROPRIETOR', 'PRIVATE_PROFIT', 'PUBLIC_PROFIT')),
    company_name: maybe(fc.constantFrom('Acme Inc.', 'Sam Okafor')),
    vertical: maybe(fc.constantFrom('nil', 'RETAIL')),
    ein_issuing_country: maybe(fc.constantFrom('nil', 'US', 'in')),
    address: maybe(address),
    authorized_contact: maybe(fc.oneof(fc.constant({}), contact)),
    onProfile: fc.boolean(),
  })
  .map(compact);

const attributeNames = [
  'age_gated',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'subscriber_help',
  'subscriber_optin',
  'subscriber_optout',
];
const campaign = fc
  .record({
    campaign_alias: maybe(alias),
    usecase: maybe(fc.constantFrom('STARTER', 'CUSTOMER_CARE', 'MIXED')),
    sub_usecase: maybe(fc.constant('2FA,ACCOUNT_NOTIFICATION')),
    vertical: maybe(fc.constantFrom('TECHNOLOGY', 'PROFESSIONAL')),
    description: maybe(
      fc.constantFrom('Starter campaign', 'Support conversations with customers about their open tickets.'),
    ),
    sample1: maybe(fc.constantFrom('Code: 4821', 'Your ticket was updated; reply STOP to opt out.')),
    sample2: maybe(fc.constantFrom('See you soon', 'An agent replied; reply HELP for help.')),
    campaign_attributes: maybe(
      fc
        .subarray(attributeNames)
        .chain((names) =>
          fc
            .tuple(...names.map(() => fc.boolean()))
            .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]]))),
        ),
    ),
    registration_status: fc.constantFrom('ACTIVE', 'ACTIVE', 'EXPIRED', 'FAILED'),
    brandIndex: fc.nat(),
  })
  .map(compact);

const trunkCredential = fc
  .record({ username: fc.stringMatching(/^[a-z]{2,6}_[a-z0-9]{1,6}$/), name: maybe(word) })
  .map(compact);
const linkStatus = fc.constantFrom('REGISTERED', 'COMPLETED', 'FAILED', 'none', 'null', 'completed-without-campaign');

/** A generated account: held objects with consistent references, and numbers linked to its campaigns. */
export const heldAccount = fc
  .record({
    profiles: fc.array(profile, { maxLength: 3 }),
    brands: fc.array(brand, { minLength: 1, maxLength: 3 }),
    campaigns: fc.array(campaign, { maxLength: 4 }),
    trunkCredentials: fc.array(trunkCredential, { maxLength: 2 }),
    numbers: fc.array(fc.record({ status: linkStatus, campaignIndex: fc.nat() }), { maxLength: 6 }),
  })
  .map(({ profiles, brands, campaigns, trunkCredentials, numbers }): SeedInput => {
    const hex = (index: number): string => index.toString(16).padStart(2, '0');
    const heldProfiles = profiles.map((item, index) => ({
      ...item,
      profile_uuid: `0b5e0000-0000-4000-8000-0000000000${hex(index)}`,
    }));
    let profileCursor = 0;
    const heldBrands = brands.map(({ onProfile, ...item }, index) => {
      const profileUuid =
        onProfile && profileCursor < heldProfiles.length ? heldProfiles[profileCursor++]?.profile_uuid : undefined;
      return compact({ ...item, brand_id: `BGEN0${hex(index)}`, profile_uuid: profileUuid });
    });
    const heldCampaigns = campaigns.map(({ brandIndex, ...item }, index) => ({
      ...item,
      campaign_id: `CGEN0${hex(index)}`,
      brand_id: heldBrands[(brandIndex as number) % heldBrands.length]?.brand_id,
    }));
    const active = heldCampaigns.filter((item) => (item as Held).registration_status === 'ACTIVE');
    const heldNumbers = numbers.map(({ status, campaignIndex }, index) => {
      const number = `161755501${String(index).padStart(2, '0')}`;
      const target = active[campaignIndex % Math.max(active.length, 1)];
      if ((status === 'REGISTERED' || status === 'COMPLETED' || status === 'FAILED') && target) {
        return { number, campaign_id: target.campaign_id, campaign_link_status: status };
      }
      if (status === 'null') return { number, row: { tendlc_registration_status: null, carrier: 'Plivo' } };
      if (status === 'completed-without-campaign')
        return { number, row: { tendlc_campaign_id: null, tendlc_registration_status: 'COMPLETED' } };
      return { number };
    });
    return {
      existing: {
        profiles: heldProfiles,
        brands: heldBrands,
        campaigns: heldCampaigns,
        trunk_credentials: trunkCredentials,
      },
      numbers: heldNumbers,
    };
  });
