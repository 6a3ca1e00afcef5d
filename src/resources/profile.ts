import * as z from 'zod';
import { verticals } from './campaign.js';
import { friendlyName } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { profileLive } from './profile-live.js';

/** The entity types a profile takes on input. */
const entityTypes = ['PRIVATE', 'PUBLIC', 'NON_PROFIT', 'GOVERNMENT', 'INDIVIDUAL'] as const;

const stockExchanges = [
  'NASDAQ',
  'NYSE',
  'AMEX',
  'AMX',
  'ASX',
  'B3',
  'BME',
  'BSE',
  'FRA',
  'ICEX',
  'JPX',
  'JSE',
  'KRX',
  'LON',
  'NSE',
  'OMX',
  'SEHK',
  'SGX',
  'SSE',
  'STO',
  'SWX',
  'SZSE',
  'TSX',
  'TWSE',
  'VSE',
  'OTHER',
] as const;

const country = z.string().regex(/^[A-Z]{2}$/, { error: 'must be an ISO 3166 alpha-2 country code such as US' });
const email = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { error: 'must be an email address' });
/** Lengths are the official Go SDK's validators. */
const bounded = (max: number, description: string) =>
  z.string().min(1, { error: 'must not be empty' }).max(max).describe(description);

const profileSpec = builtOnce(() =>
  z
    .strictObject({
      profile_alias: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
      customer_type: z
        .enum(['DIRECT', 'RESELLER'])
        .describe('DIRECT for your own business, RESELLER for your customers.'),
      entity_type: z.enum(entityTypes).describe('Legal form of the business.'),
      company_name: bounded(100, 'Legal company name.'),
      vertical: z.enum(verticals).describe('Industry of the business.'),
      ein: bounded(100, 'Employer identification number (a STANDARD brand needs one).').optional(),
      ein_issuing_country: country.optional().describe('Country that issued the EIN.'),
      stock_symbol: bounded(100, 'Stock symbol (required for PUBLIC).').optional(),
      stock_exchange: z.enum(stockExchanges).optional().describe('Stock exchange (required for PUBLIC).'),
      alt_business_id: bounded(50, 'Alternative business id.').optional(),
      alt_business_id_type: z.enum(['DUNS', 'LEI', 'GIIN', 'NONE']).optional().describe('Kind of alt_business_id.'),
      website: bounded(100, 'Company website.').optional(),
      plivo_subaccount: bounded(20, 'Subaccount the profile belongs to.').optional(),
      business_contact_email: email(255).optional().describe('Business contact email (for PUBLIC entities).'),
      doing_business_as: bounded(100, 'Trade name (DBA).').optional(),
      address: z
        .strictObject({
          street: bounded(100, 'Street and number.'),
          city: bounded(100, 'City.'),
          state: bounded(20, 'State code, such as TX.'),
          postal_code: bounded(10, 'Postal code.'),
          country: country.describe('ISO 3166 alpha-2 country code.'),
        })
        .describe('Registered address; compared field by field.'),
      authorized_contact: z
        .strictObject({
          first_name: bounded(100, 'First name.'),
          last_name: bounded(100, 'Last name.'),
          email: email(100).describe('Email address.'),
          phone: z
            .string()
            .regex(/^\+[1-9][0-9]{1,14}$/, { error: 'must be an E.164 number such as +12025550123' })
            .describe('E.164 phone number.'),
          title: bounded(100, 'Title or salutation.').optional(),
          seniority: bounded(
            100,
            'Seniority, such as DIRECTOR, GM, VP, CEO, CFO, GENERAL_COUNSEL or OTHER.',
          ).optional(),
        })
        .describe('The person authorised to register for the business; compared field by field.'),
    })
    .describe('Profile spec.'),
);

/**
 * A 10DLC business profile (`/Profile/`): the business data a brand is
 * registered from. Profiles are synchronous (no registry review), so a brand that refers to one
 * waits for nothing.
 */
export const profile = {
  name: 'Profile',
  description: 'US 10DLC business profile: the company data a Brand is registered from.',
  get spec() {
    return profileSpec();
  },
  nameField: 'profile_alias',
  references: {},
  secrets: {},
  setFields: {},
  uniqueFields: [],
  rules: [
    {
      when: { field: 'entity_type', in: ['PUBLIC'] },
      require: ['stock_symbol', 'stock_exchange'],
      reason: 'a PUBLIC entity is identified by its listing',
    },
  ],
  checks: [],
  live: profileLive,
  snapshot: {
    collection: 'profiles',
    path: '/Profile/',
    itemsKey: 'profiles',
    idField: 'profile_uuid',
    seed: 'existing',
    fields: textFields(
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
        'created_at',
      ],
      { address: 'object', authorized_contact: 'object' },
    ),
  },
  scope: { code: 'pf', preset: 'messaging' },
} as const satisfies Kind;
