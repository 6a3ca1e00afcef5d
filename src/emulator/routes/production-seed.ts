import { holdObjects } from '../held.js';
import type { HeldObjects } from '../options.js';
import type { AccountInitializer } from '../runtime.js';
import type { AccountState, HeldLinkStatus } from '../state.js';

/**
 * What a new account holds besides the documented starting set when the emulator runs with the production
 * shapes: the kinds of objects real accounts hold and the API's create rules would refuse today (legacy
 * STARTER brands and campaigns, profiles with omitted fields and legacy values, a trunk credential whose
 * username has an underscore), and three hundred numbers with the full row production shows, in every link
 * status real accounts report. Everything is fictitious; ids are fixed and documented in docs/emulator.md.
 */

const heldAt = '2021-03-14T10:00:00.000Z';
const laterAt = '2022-09-02T16:30:00.000Z';

export const productionProfileUuids = {
  publicProfit: '5eed0000-0000-4000-8000-0000000000a1',
  privateProfit: '5eed0000-0000-4000-8000-0000000000a2',
  soleProprietor: '5eed0000-0000-4000-8000-0000000000a3',
} as const;

export const productionTrunkCredentialUuid = '5eed0000-0000-4000-8000-0000000000c1';

const starterAttributes = {
  age_gated: false,
  direct_lending: false,
  embedded_link: false,
  embedded_phone: false,
  subscriber_help: false,
  subscriber_optin: false,
  subscriber_optout: false,
};

export const productionObjects: HeldObjects = {
  profiles: [
    {
      profile_uuid: productionProfileUuids.publicProfit,
      profile_alias: 'acme-holdings',
      customer_type: 'DIRECT',
      entity_type: 'PUBLIC_PROFIT',
      company_name: 'Acme Holdings Ltd',
      vertical: 'TECHNOLOGY',
      ein: '29-0000011',
      ein_issuing_country: 'in',
      stock_symbol: 'ACMH',
      stock_exchange: 'NSE',
      alt_business_id_type: 'NONE',
      address: { street: '12 MG Road', city: 'Bengaluru', state: 'KA', postal_code: '560001', country: 'IN' },
      authorized_contact: {
        first_name: 'Asha',
        last_name: 'Rao',
        email: 'asha.rao@example.com',
        phone: '919742763781',
        title: 'Director',
        seniority: 'admin',
      },
      created_at: heldAt,
    },
    {
      profile_uuid: productionProfileUuids.privateProfit,
      profile_alias: 'corner-bakery',
      customer_type: 'DIRECT',
      entity_type: 'PRIVATE_PROFIT',
      company_name: 'Corner Bakery LLC',
      vertical: 'RETAIL',
      ein: '29-0000012',
      ein_issuing_country: 'US',
      address: { street: '8 Mill Lane', city: 'Boise', state: 'ID', postal_code: '83702', country: 'US' },
      authorized_contact: { first_name: 'Lena', last_name: 'Berg', email: 'lena.berg@example.com' },
      created_at: heldAt,
    },
    {
      profile_uuid: productionProfileUuids.soleProprietor,
      profile_alias: 'sam-okafor',
      entity_type: 'SOLE_PROPRIETOR',
      company_name: 'Sam Okafor',
      vertical: 'PROFESSIONAL',
      authorized_contact: { name: ' ' },
      created_at: heldAt,
    },
  ],
  brands: [
    {
      brand_id: 'BSTRT01',
      brand_alias: 'okafor-starter',
      brand_type: 'STARTER',
      profile_uuid: productionProfileUuids.soleProprietor,
      entity_type: 'SOLE_PROPRIETOR',
      company_name: 'Sam Okafor',
      vertical: 'nil',
      ein_issuing_country: 'nil',
      address: { street: '', city: '', state: '', postal_code: '', country: '' },
      authorized_contact: {},
      secondary_vetting: false,
      created_at: heldAt,
    },
    {
      brand_id: 'BSTRT02',
      brand_alias: 'legacy-starter',
      brand_type: 'STARTER',
      secondary_vetting: false,
      created_at: heldAt,
    },
    {
      brand_id: 'BSTRT03',
      brand_alias: 'bakery-starter',
      brand_type: 'STARTER',
      profile_uuid: productionProfileUuids.privateProfit,
      entity_type: 'PRIVATE_PROFIT',
      company_name: 'Corner Bakery LLC',
      vertical: 'RETAIL',
      ein: '29-0000012',
      ein_issuing_country: 'US',
      secondary_vetting: false,
      created_at: heldAt,
    },
    {
      brand_id: 'BSTND01',
      brand_alias: 'acme-standard',
      brand_type: 'STANDARD',
      profile_uuid: productionProfileUuids.publicProfit,
      entity_type: 'PUBLIC_PROFIT',
      company_name: 'Acme Holdings Ltd',
      vertical: 'TECHNOLOGY',
      ein: '29-0000011',
      ein_issuing_country: 'in',
      website: 'https://acme-holdings.example.com',
      created_at: laterAt,
    },
  ],
  campaigns: [
    // Three STARTER campaigns sharing one alias, as accounts made in the console often have.
    ...['CSTRT01', 'CSTRT02', 'CSTRT03'].map((campaignId, index) => ({
      campaign_id: campaignId,
      brand_id: index === 2 ? 'BSTRT03' : 'BSTRT01',
      campaign_alias: 'testing',
      usecase: 'STARTER',
      vertical: 'PROFESSIONAL',
      description: 'Starter campaign',
      sample1: 'Your code is 1234',
      sample2: 'See you soon',
      campaign_attributes: starterAttributes,
      created_at: heldAt,
    })),
    {
      campaign_id: 'CSTRT04',
      brand_id: 'BSTRT02',
      campaign_alias: 'otp',
      usecase: 'STARTER',
      sub_usecase: '2FA,ACCOUNT_NOTIFICATION',
      description: 'One-time passcodes for the mobile app sign in.',
      sample1: 'Code: 4821',
      campaign_attributes: { ...starterAttributes, subscriber_help: true },
      created_at: heldAt,
    },
    {
      campaign_id: 'CSTRT05',
      brand_id: 'BSTRT02',
      campaign_alias: 'testing',
      description: 'Campaign without a use case',
      created_at: heldAt,
    },
    // An old campaign read back without alias, vertical, samples or attributes.
    {
      campaign_id: 'COLD001',
      brand_id: 'BSTRT02',
      usecase: 'STARTER',
      description: 'Old starter campaign',
      created_at: heldAt,
    },
    {
      campaign_id: 'CSTND01',
      brand_id: 'BSTND01',
      campaign_alias: 'acme-support',
      usecase: 'CUSTOMER_CARE',
      vertical: 'TECHNOLOGY',
      description: 'Support conversations with Acme Holdings customers about their open tickets.',
      sample1: 'Acme support: your ticket 4411 was updated. Reply STOP to opt out.',
      sample2: 'Acme support: an agent replied to your request. Reply HELP for help.',
      campaign_attributes: {
        ...starterAttributes,
        embedded_link: true,
        subscriber_help: true,
        subscriber_optin: true,
        subscriber_optout: true,
      },
      created_at: laterAt,
    },
  ],
  trunk_credentials: [
    { credential_uuid: productionTrunkCredentialUuid, name: 'legacy-pbx', username: 'sip_user_1', created_at: heldAt },
  ],
};

/** The area codes of the held numbers: 100 fictional numbers each (555-0100 to 555-0199). */
const areas = [
  { code: '213', city: 'LOS ANGELES', region: 'CALIFORNIA, UNITED STATES' },
  { code: '312', city: 'CHICAGO', region: 'ILLINOIS, UNITED STATES' },
  { code: '415', city: 'SAN FRANCISCO', region: 'CALIFORNIA, UNITED STATES' },
] as const;

interface HeldLink {
  campaign_id: string | null;
  status: HeldLinkStatus | null;
  /** What the row shows instead of the link, as real accounts do. */
  shown?: { tendlc_campaign_id?: string | null; tendlc_registration_status?: string | null };
}

/** Every link state real accounts report, spread over the numbers; most are not linked. */
function heldLinkOf(index: number): HeldLink {
  if (index === 5) return { campaign_id: 'CSTRT02', status: 'PROCESSING' };
  switch (index % 50) {
    case 1:
      return { campaign_id: 'CSTND01', status: 'REGISTERED' };
    case 2:
      return { campaign_id: 'CSTRT01', status: 'COMPLETED' };
    case 3:
      return { campaign_id: null, status: null, shown: { tendlc_registration_status: null } };
    case 4:
      return {
        campaign_id: null,
        status: null,
        shown: { tendlc_campaign_id: null, tendlc_registration_status: 'COMPLETED' },
      };
    case 6:
      return { campaign_id: 'CSTRT03', status: 'FAILED' };
    default:
      return { campaign_id: null, status: null };
  }
}

/** The production-shaped numbers, with their rows (the columns a real number row carries, 28 in all). */
export function productionNumbers(createdAt: string): AccountState['numbers'] {
  const numbers: AccountState['numbers'] = new Map();
  let index = 0;
  for (const area of areas) {
    for (let line = 0; line < 100; line += 1, index += 1) {
      const number = `1${area.code}55501${String(line).padStart(2, '0')}`;
      const link = heldLinkOf(index);
      numbers.set(number, {
        number,
        app_id: index % 10 === 7 ? '77700000000000002' : null,
        campaign_id: link.campaign_id,
        campaign_link_status: link.status,
        link: null,
        row: {
          alias: index % 4 === 0 ? `line ${index}` : null,
          carrier: index % 3 === 0 ? 'Bandwidth' : 'Plivo',
          city: area.city,
          country: 'United States',
          region: area.region,
          monthly_rental_rate: '0.50000',
          renewal_date: '2027-03-14',
          sub_account: null,
          compliance_application_id: null,
          compliance_status: 'no',
          mms_enabled: index % 2 === 0,
          mms_rate: '0.00000',
          sms_rate: '0.00000',
          voice_rate: '0.00850',
          active: true,
          cnam_lookup: 'disabled',
          toll_free_sms_verification: index % 50 === 8 ? 'verified' : null,
          toll_free_sms_verification_id: null,
          toll_free_sms_verification_order_status: null,
          ...(link.shown ?? {}),
        },
        created_at: createdAt,
      });
    }
  }
  return numbers;
}

/** Adds the production objects and numbers to a new account, when the emulator runs with the production shapes. */
export const seedProductionObjects: AccountInitializer = {
  name: 'production-objects',
  newAccountsOnly: true,
  initialize: (account, runtime) => {
    if (runtime.config.shapes !== 'production') return;
    holdObjects(account, productionObjects, runtime);
    for (const [number, record] of productionNumbers(heldAt)) account.numbers.set(number, record);
  },
};
