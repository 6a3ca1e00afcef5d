import type { ApiClient } from '../api/client.js';
import { listAll } from '../api/list.js';
import { cannotTell, createWithRecovery } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import type { LiveObject, LiveSide, ResolvedSpec } from './live-side.js';
import { itemPath, readRecord, requireId, text, upperText, createdId, type CreateAnswer } from './api-records.js';
import { accountBrands, deleteConfirmed, listBrands, unlessRefused, type RawBrand } from './tendlc-api.js';

/**
 * The live side of Profile (`/Profile/`): create, update of the fields the
 * profile update takes, delete (refused for the account's primary profile, and by telform while a
 * brand was registered from it: the brand keeps pointing at it).
 */

const profilePath = '/Profile/';

/** Top-level text fields, as sent and returned. */
const textFields = [
  'profile_alias',
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
];

/** Codes compared in upper case. */
const codeFields = new Set(['customer_type', 'entity_type', 'vertical', 'stock_exchange', 'alt_business_id_type']);

const addressFields = ['street', 'city', 'state', 'postal_code', 'country'];
const contactFields = ['first_name', 'last_name', 'email', 'phone', 'title', 'seniority'];

/** What `POST /Profile/{uuid}/` changes. */
const updatable = [
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
  'address',
  'authorized_contact',
];

/** Everything else is fixed once created: a change makes a new profile. */
const replaceOn = ['profile_alias', 'customer_type', 'stock_symbol', 'stock_exchange'];

type RawProfile = Record<string, unknown>;

function nested(raw: unknown, fields: readonly string[]): Record<string, string> | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const field of fields) {
    const value = text((raw as Record<string, unknown>)[field]);
    if (value !== undefined) out[field] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A live profile in the manifest's shape; `""` is absent (the API returns `""` for unset fields). */
export function normaliseProfile(raw: RawProfile, brands: readonly string[] | undefined): LiveObject {
  const id = requireId(raw, 'profile_uuid', profilePath);
  const spec: Record<string, unknown> = {};
  for (const field of textFields) {
    const value = codeFields.has(field) ? upperText(raw[field]) : text(raw[field]);
    if (value !== undefined) spec[field] = value;
  }
  const address = nested(raw.address, addressFields);
  const contact = nested(raw.authorized_contact, contactFields);
  if (address) spec.address = address;
  if (contact) spec.authorized_contact = contact;
  // List rows may carry no alias (unknown, not removed); the creation time lets a lost create be told apart.
  const createdAt = text((raw as Record<string, unknown>).created_at);
  return {
    id,
    spec,
    ...(text((raw as Record<string, unknown>).profile_alias) === undefined ? { unread: ['profile_alias'] } : {}),
    ...(createdAt === undefined ? {} : { createdAt }),
    // Undefined brands: the brand list was refused (403), so which brands refer to it is unknown.
    facts: {
      primary: upperText(raw.profile_type) === 'PRIMARY',
      ...(brands === undefined ? { unreadContext: 'brands' as const } : { brands: [...brands].sort() }),
    },
  };
}

function listProfiles(client: ApiClient): Promise<RawProfile[]> {
  return listAll<RawProfile>(client, profilePath, {
    itemsKey: 'profiles',
    idOf: (raw) => requireId(raw, 'profile_uuid', profilePath),
  });
}

/** Brand ids by the profile they were registered from. */
function brandsByProfile(brands: readonly RawBrand[]): Map<string, string[]> {
  const byProfile = new Map<string, string[]>();
  for (const brand of brands) {
    const profileUuid = text(brand.profile_uuid);
    if (profileUuid === undefined) continue;
    byProfile.set(profileUuid, [...(byProfile.get(profileUuid) ?? []), String(brand.brand_id)]);
  }
  return byProfile;
}

function body(spec: ResolvedSpec, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = spec[field];
    if (value !== undefined && value !== null && value !== '') out[field] = value;
  }
  return out;
}

/** Whether a listed profile is the one a create with `spec` made (lost-answer recovery). */
function isCreatedFrom(raw: RawProfile, spec: ResolvedSpec): boolean {
  const live = normaliseProfile(raw, []).spec;
  return ['profile_alias', 'company_name', ...replaceOn].every(
    (field) => JSON.stringify(live[field]) === JSON.stringify(spec[field]),
  );
}

/**
 * Fields the manifest dropped that the profile still holds. The API reads `""` as "not given",
 * so an update cannot remove them.
 */
function removedFields(desired: ResolvedSpec, live: Record<string, unknown>, changed: readonly string[]): string[] {
  const removed: string[] = [];
  for (const field of changed) {
    const before = live[field];
    const after = desired[field];
    if (after === undefined) removed.push(field);
    else if (before && typeof before === 'object' && after && typeof after === 'object') {
      for (const key of Object.keys(before))
        if ((after as Record<string, unknown>)[key] === undefined) removed.push(`${field}.${key}`);
    }
  }
  return removed;
}

/** Where a profile create answer holds the new id: `profile_uuid`, `profileUuid`, or under `profile`. */
const profileCreateAnswer: CreateAnswer = { idField: 'profile_uuid', under: ['profile'] };

export const profileLive: LiveSide = {
  product: '10DLC',
  createAnswer: profileCreateAnswer,
  naturalKey: (spec) => text(spec.profile_alias),

  async list(context) {
    // The brands are read for context only (which refer to a profile): a list refused 403 leaves that unknown.
    const [profiles, brands] = await Promise.all([listProfiles(context.client), unlessRefused(accountBrands(context))]);
    const byProfile = brands && brandsByProfile(brands);
    return profiles.map((raw) => normaliseProfile(raw, byProfile && (byProfile.get(String(raw.profile_uuid)) ?? [])));
  },

  async read({ client }, id) {
    const raw = await readRecord<RawProfile>(client, itemPath(profilePath, id), 'profile');
    if (raw === undefined) return undefined;
    const brands = await unlessRefused(listBrands(client));
    return normaliseProfile(raw, brands && (brandsByProfile(brands).get(id) ?? []));
  },

  async create({ client }, spec) {
    const request = body(spec, [...textFields, 'address', 'authorized_contact']);
    const outcome = await createWithRecovery<Record<string, unknown>>(client, profilePath, request, async () => {
      const profiles = await listProfiles(client);
      const found = profiles.find((raw) => isCreatedFrom(raw, spec));
      if (found !== undefined) return String(found.profile_uuid);
      // Rows read without their alias might be the one: absence is not proven.
      return profiles.some((raw) => text(raw.profile_alias) === undefined) ? cannotTell : undefined;
    });
    if (outcome.kind === 'recovered') return { id: String(outcome.found) };
    return { id: createdId(outcome.response.body, profileCreateAnswer, profilePath) };
  },

  async update({ client }, { id, desired, live, changedFields }) {
    const fixed = changedFields.filter((field) => !updatable.includes(field));
    if (fixed.length > 0)
      throw new TelformError(
        'not_updatable',
        `Profile ${id}: ${fixed.join(', ')} cannot be changed by a profile update`,
      );
    const removed = removedFields(desired, live.spec, changedFields);
    if (removed.length > 0) {
      throw new TelformError(
        'not_updatable',
        `Profile ${id}: ${removed.join(', ')} cannot be removed by an update (the API ignores empty values); give it a value in the manifest`,
      );
    }
    if (changedFields.length === 0) return;
    // The nested objects are sent whole: the API merges them with the stored ones field by field.
    await client.request('POST', itemPath(profilePath, id), { body: body(desired, changedFields), mode: 'idempotent' });
  },

  delete: ({ client }, id) => deleteConfirmed(client, itemPath(profilePath, id), `Profile ${id}`, 'profile'),

  fields: { updatable, replaceOn, immutable: [], unreadable: [], mayBeUnread: ['profile_alias'] },
  billableUpdateUsd: 0,
  // A new profile can exist beside the old one (a brand holds on to the old one anyway).
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,

  deleteRefusal(live, deletedFirst) {
    if (live.facts?.primary) return "it is the account's primary profile, which the API never deletes";
    if (live.facts?.unreadContext === 'brands')
      return 'the brands could not be read (the API answered 403 to the brand list), so one may still refer to it: the worst is assumed';
    const brands = (live.facts?.brands ?? []).filter((id) => !deletedFirst.has(id));
    if (brands.length === 0) return undefined;
    return `Brand ${brands.join(', ')} was registered from it and still refers to it; delete the brand first`;
  },
};
