import type { AccountInitializer } from '../runtime.js';
import type { ProfileRecord } from '../state.js';

/**
 * The profiles every new account starts with, so a fresh emulator can register brands and the
 * examples can name them. Their uuids are fixed and documented in docs/emulator.md: profiles 1 to
 * 4 hold an EIN (one STANDARD brand each), profile 5 is an individual
 * without one. Profile 1 is the account's primary profile. All data is fictitious.
 */
export const seededProfileUuids = [
  '5eed0000-0000-4000-8000-000000000001',
  '5eed0000-0000-4000-8000-000000000002',
  '5eed0000-0000-4000-8000-000000000003',
  '5eed0000-0000-4000-8000-000000000004',
  '5eed0000-0000-4000-8000-000000000005',
] as const;

interface SeedProfile {
  alias: string;
  entityType: string;
  company: string;
  vertical: string;
  ein: string;
  website: string;
  street: string;
  city: string;
  state: string;
  postalCode: string;
  contact: [first: string, last: string, title: string, seniority: string];
}

const seeds: SeedProfile[] = [
  {
    alias: 'northwind-dental',
    entityType: 'PRIVATE',
    company: 'Northwind Dental Group Inc.',
    vertical: 'HEALTHCARE',
    ein: '81-0000001',
    website: 'https://northwind-dental.example.com',
    street: '100 Harbor Way',
    city: 'Austin',
    state: 'TX',
    postalCode: '73301',
    contact: ['Dana', 'Whitfield', 'Operations Director', 'DIRECTOR'],
  },
  {
    alias: 'bluebird-logistics',
    entityType: 'PRIVATE',
    company: 'Bluebird Logistics LLC',
    vertical: 'TRANSPORTATION',
    ein: '81-0000002',
    website: 'https://bluebird-logistics.example.com',
    street: '2200 Freight Road',
    city: 'Columbus',
    state: 'OH',
    postalCode: '43215',
    contact: ['Marcus', 'Lee', 'General Manager', 'GM'],
  },
  {
    alias: 'cedar-street-realty',
    entityType: 'PRIVATE',
    company: 'Cedar Street Realty Co.',
    vertical: 'REAL_ESTATE',
    ein: '81-0000003',
    website: 'https://cedar-street-realty.example.com',
    street: '45 Cedar Street',
    city: 'Portland',
    state: 'OR',
    postalCode: '97205',
    contact: ['Priya', 'Natarajan', 'Chief Executive', 'CEO'],
  },
  {
    alias: 'lumen-fitness',
    entityType: 'PRIVATE',
    company: 'Lumen Fitness Studios LLC',
    vertical: 'ENTERTAINMENT',
    ein: '81-0000004',
    website: 'https://lumen-fitness.example.com',
    street: '9 Lakeside Drive',
    city: 'Madison',
    state: 'WI',
    postalCode: '53703',
    contact: ['Tomas', 'Alvarez', 'Vice President', 'VP'],
  },
  {
    alias: 'jordan-rivera',
    entityType: 'INDIVIDUAL',
    company: 'Jordan Rivera',
    vertical: 'PROFESSIONAL',
    ein: '',
    website: '',
    street: '17 Elm Court',
    city: 'Denver',
    state: 'CO',
    postalCode: '80202',
    contact: ['Jordan', 'Rivera', 'Owner', 'OTHER'],
  },
];

function seededProfile(seed: SeedProfile, index: number, createdAt: string): ProfileRecord {
  const uuid = seededProfileUuids[index] as string;
  const [first, last, title, seniority] = seed.contact;
  return {
    profile_uuid: uuid,
    profile_alias: seed.alias,
    profile_type: index === 0 ? 'PRIMARY' : 'SECONDARY',
    primary_profile: seededProfileUuids[0],
    customer_type: 'DIRECT',
    entity_type: seed.entityType,
    company_name: seed.company,
    vertical: seed.vertical,
    ein: seed.ein,
    ein_issuing_country: seed.ein === '' ? '' : 'US',
    stock_symbol: '',
    stock_exchange: '',
    alt_business_id: '',
    alt_business_id_type: '',
    website: seed.website,
    plivo_subaccount: '',
    business_contact_email: '',
    doing_business_as: '',
    address: { street: seed.street, city: seed.city, state: seed.state, postal_code: seed.postalCode, country: 'US' },
    authorized_contact: {
      first_name: first,
      last_name: last,
      email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
      phone: `+1202555010${index + 1}`,
      title,
      seniority,
    },
    used_by_brand_id: null,
    created_at: createdAt,
  };
}

/** Adds the five documented profiles to a new account. */
export const seedProfiles: AccountInitializer = {
  name: 'profiles',
  initialize: (account, runtime) => {
    const createdAt = runtime.nowIso();
    seeds.forEach((seed, index) => {
      const profile = seededProfile(seed, index, createdAt);
      account.profiles.set(profile.profile_uuid, profile);
    });
  },
};
