import { ApiError, json, type JsonObject } from '../http.js';
import { findOr404, freshId } from '../records.js';
import type { Route } from '../router.js';
import type { AccountState, AuthorizedContact, HeldContact, PostalAddress, ProfileRecord } from '../state.js';
import {
  altBusinessIdTypes,
  customerTypes,
  entityTypes,
  profileTypes,
  stockExchanges,
  verticals,
} from './tendlc-codes.js';
import {
  checkEnum,
  checkMaxLength,
  createdReply,
  object,
  queryEnumAnyCase,
  requiredText,
  tendlcList,
  text,
  withoutAlias,
} from './tendlc-input.js';
import { variationOf } from '../variation.js';

/**
 * `/Profile/`: the business data brands are registered from (production's documentation). Length
 * limits are those of the official Go SDK's validators; `authorized_contact.title` and
 * `seniority` take any text (production's documentation). Status codes (production's are not
 * documented): 200 for every success, like the rest of the 10DLC area.
 */

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const e164Pattern = /^\+[1-9]\d{1,14}$/;
const countryPattern = /^[A-Z]{2}$/;

/** Fields `POST /Profile/{uuid}/` changes (production's documentation). */
const updatableTextFields = [
  'entity_type',
  'company_name',
  'vertical',
  'website',
  'plivo_subaccount',
  'ein',
  'ein_issuing_country',
  'alt_business_id',
  'alt_business_id_type',
  'business_contact_email',
  'doing_business_as',
  'stock_symbol',
  'stock_exchange',
] as const;

export function presentProfile(profile: ProfileRecord): JsonObject {
  const { used_by_brand_id: _internal, ...visible } = profile;
  // A held profile may omit its address or contact; it is then read back without them.
  return {
    ...visible,
    ...(profile.address ? { address: { ...profile.address } } : {}),
    ...(profile.authorized_contact ? { authorized_contact: { ...profile.authorized_contact } } : {}),
  };
}

function readAddress(value: JsonObject | undefined, current: Partial<PostalAddress> | undefined): PostalAddress {
  if (value === undefined && current === undefined) throw new ApiError(400, 'address is required');
  const read = (field: keyof PostalAddress): string => {
    const given = value === undefined ? undefined : text(value, field, `address.${field}`);
    const result = given ?? current?.[field];
    if (result === undefined) throw new ApiError(400, `address.${field} is required`);
    return result;
  };
  const address = {
    street: read('street'),
    city: read('city'),
    state: read('state'),
    postal_code: read('postal_code'),
    country: read('country'),
  };
  checkMaxLength('address.street', address.street, 100);
  checkMaxLength('address.city', address.city, 100);
  checkMaxLength('address.state', address.state, 20);
  checkMaxLength('address.postal_code', address.postal_code, 10);
  if (!countryPattern.test(address.country))
    throw new ApiError(400, 'address.country must be an ISO 3166 alpha-2 code such as US');
  return address;
}

function readContact(value: JsonObject | undefined, current: HeldContact | undefined): AuthorizedContact {
  if (value === undefined && current === undefined) throw new ApiError(400, 'authorized_contact is required');
  const read = (field: keyof AuthorizedContact, required: boolean): string => {
    const given = value === undefined ? undefined : text(value, field, `authorized_contact.${field}`);
    const result = given ?? current?.[field];
    if (result === undefined && required) throw new ApiError(400, `authorized_contact.${field} is required`);
    return result ?? '';
  };
  const contact = {
    first_name: read('first_name', true),
    last_name: read('last_name', true),
    email: read('email', true),
    phone: read('phone', true),
    title: read('title', false),
    seniority: read('seniority', false),
  };
  checkMaxLength('authorized_contact.email', contact.email, 100);
  if (!emailPattern.test(contact.email)) throw new ApiError(400, 'authorized_contact.email must be an email address');
  if (!e164Pattern.test(contact.phone))
    throw new ApiError(400, 'authorized_contact.phone must be an E.164 number such as +12025550123');
  return contact;
}

/**
 * The checks a profile passes after create (every field) and after update (the fields the update sends:
 * a value the profile already holds, such as a legacy `PUBLIC_PROFIT`, is not judged again).
 */
function checkProfile(profile: ProfileRecord, sent?: ReadonlySet<string>): void {
  const judged = (...fields: string[]): boolean => sent === undefined || fields.some((field) => sent.has(field));
  const value = (field: keyof ProfileRecord): string => {
    const held = profile[field];
    return typeof held === 'string' ? held : '';
  };
  if (judged('customer_type')) checkEnum('customer_type', value('customer_type'), customerTypes);
  if (judged('entity_type')) checkEnum('entity_type', value('entity_type'), entityTypes);
  if (judged('company_name')) checkMaxLength('company_name', value('company_name'), 100);
  if (judged('vertical')) checkEnum('vertical', value('vertical'), verticals);
  if (judged('ein')) checkMaxLength('ein', value('ein'), 100);
  if (
    judged('ein_issuing_country') &&
    value('ein_issuing_country') !== '' &&
    !countryPattern.test(value('ein_issuing_country'))
  ) {
    throw new ApiError(400, 'ein_issuing_country must be an ISO 3166 alpha-2 code such as US');
  }
  if (judged('entity_type', 'stock_symbol', 'stock_exchange') && value('entity_type') === 'PUBLIC') {
    if (value('stock_symbol') === '') throw new ApiError(400, 'stock_symbol is required when entity_type is PUBLIC');
    if (value('stock_exchange') === '')
      throw new ApiError(400, 'stock_exchange is required when entity_type is PUBLIC');
  }
  if (judged('stock_exchange') && value('stock_exchange') !== '')
    checkEnum('stock_exchange', value('stock_exchange'), stockExchanges);
  if (judged('alt_business_id')) checkMaxLength('alt_business_id', value('alt_business_id'), 50);
  if (judged('alt_business_id_type') && value('alt_business_id_type') !== '') {
    checkEnum('alt_business_id_type', value('alt_business_id_type'), altBusinessIdTypes);
  }
  if (judged('website')) checkMaxLength('website', value('website'), 100);
  if (judged('plivo_subaccount')) checkMaxLength('plivo_subaccount', value('plivo_subaccount'), 20);
  if (judged('business_contact_email') && value('business_contact_email') !== '') {
    checkMaxLength('business_contact_email', value('business_contact_email'), 255);
    if (!emailPattern.test(value('business_contact_email')))
      throw new ApiError(400, 'business_contact_email must be an email address');
  }
  if (judged('doing_business_as')) checkMaxLength('doing_business_as', value('doing_business_as'), 100);
}

function primaryProfileOf(account: AccountState): ProfileRecord | undefined {
  return [...account.profiles.values()].find((profile) => profile.profile_type === 'PRIMARY');
}

function createProfile(account: AccountState, body: JsonObject, uuid: string, now: string): ProfileRecord {
  const profileAlias = requiredText(body, 'profile_alias');
  const customerType = requiredText(body, 'customer_type');
  const entityType = requiredText(body, 'entity_type');
  const companyName = requiredText(body, 'company_name');
  const vertical = requiredText(body, 'vertical');
  const primary = primaryProfileOf(account);
  const optional = (field: string): string => text(body, field) ?? '';
  const profile: ProfileRecord = {
    profile_uuid: uuid,
    profile_alias: profileAlias,
    profile_type: primary ? 'SECONDARY' : 'PRIMARY',
    primary_profile: primary?.profile_uuid ?? uuid,
    customer_type: customerType,
    entity_type: entityType,
    company_name: companyName,
    vertical,
    ein: optional('ein'),
    ein_issuing_country: optional('ein_issuing_country'),
    stock_symbol: optional('stock_symbol'),
    stock_exchange: optional('stock_exchange'),
    alt_business_id: optional('alt_business_id'),
    alt_business_id_type: optional('alt_business_id_type'),
    website: optional('website'),
    plivo_subaccount: optional('plivo_subaccount'),
    business_contact_email: optional('business_contact_email'),
    doing_business_as: optional('doing_business_as'),
    address: readAddress(object(body, 'address'), undefined),
    authorized_contact: { ...readContact(object(body, 'authorized_contact'), undefined) },
    used_by_brand_id: null,
    created_at: now,
  };
  checkProfile(profile);
  return profile;
}

function updatedProfile(current: ProfileRecord, body: JsonObject): ProfileRecord {
  const next: ProfileRecord = { ...current };
  const sent = new Set<string>();
  for (const field of updatableTextFields) {
    const value = text(body, field);
    if (value !== undefined) {
      next[field] = value;
      sent.add(field);
    }
  }
  // An address or contact sent is merged member by member with what the profile holds, and the result must be whole.
  const address = object(body, 'address');
  if (address !== undefined) next.address = readAddress(address, current.address);
  const contact = object(body, 'authorized_contact');
  if (contact !== undefined) next.authorized_contact = { ...readContact(contact, current.authorized_contact) };
  checkProfile(next, sent);
  return next;
}

export const profileRoutes: Route[] = [
  {
    method: 'POST',
    path: '/Profile/',
    writes: true,
    handle: ({ account, body, runtime }) => {
      const uuid = freshId(account.profiles, () => runtime.uuid());
      const profile = createProfile(account, body, uuid, runtime.nowIso());
      account.profiles.set(uuid, profile);
      return createdReply(
        variationOf(runtime.config, account),
        'profile',
        'profile_uuid',
        uuid,
        'Profile created successfully.',
      );
    },
  },
  {
    method: 'GET',
    path: '/Profile/',
    handle: ({ account, query, accountBase, runtime }) => {
      const entityType = queryEnumAnyCase(query, 'entity_type', entityTypes);
      const type = queryEnumAnyCase(query, 'type', profileTypes);
      const vertical = queryEnumAnyCase(query, 'vertical', verticals);
      const profiles = [...account.profiles.values()].filter(
        (profile) =>
          (entityType === undefined || profile.entity_type === entityType) &&
          (type === undefined || profile.profile_type === type) &&
          (vertical === undefined || profile.vertical === vertical),
      );
      // Production's profile list carries no total_count (production's documentation).
      const variation = variationOf(runtime.config, account);
      const present = (profile: ProfileRecord): JsonObject =>
        withoutAlias(presentProfile(profile), 'profile_alias', variation);
      return tendlcList(profiles, query, `${accountBase}/Profile/`, 'profiles', present, {
        shapes: runtime.config.shapes,
        withTotal: false,
        variation,
      });
    },
  },
  {
    method: 'GET',
    path: '/Profile/:profile_uuid/',
    handle: ({ account, params }) => {
      const profile = findOr404(account.profiles, params.profile_uuid as string, 'profile');
      return json(200, { profile: presentProfile(profile) });
    },
  },
  {
    method: 'POST',
    path: '/Profile/:profile_uuid/',
    writes: true,
    handle: ({ account, params, body }) => {
      const current = findOr404(account.profiles, params.profile_uuid as string, 'profile');
      const next = updatedProfile(current, body);
      account.profiles.set(next.profile_uuid, next);
      return json(200, { profile: presentProfile(next) });
    },
  },
  {
    method: 'DELETE',
    path: '/Profile/:profile_uuid/',
    writes: true,
    handle: ({ account, params }) => {
      const profile = findOr404(account.profiles, params.profile_uuid as string, 'profile');
      if (profile.profile_type === 'PRIMARY') {
        throw new ApiError(
          400,
          `profile ${profile.profile_uuid} is the primary profile of the account and cannot be deleted`,
        );
      }
      account.profiles.delete(profile.profile_uuid);
      return json(200, { message: 'Profile deleted successfully.' });
    },
  },
];
