import * as z from 'zod';
import { createWithRecovery } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import { callbackMethod, friendlyName, httpUrl, reference, uuid } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields, type SnapshotJson } from './snapshot-record.js';
import type { LiveObject, LiveSide } from './live-side.js';
import { itemPath, readRecord, requireId, text, upperText, createdId, type CreateAnswer } from './api-records.js';
import {
  accountBrands,
  accountCampaigns,
  activeCampaignsOf,
  brandPath,
  deleteConfirmed,
  listBrands,
  listCampaigns,
  unlessRefused,
  type RawBrand,
} from './tendlc-api.js';

/** Create inputs a brand read does not return; the engine compares them with the ledger. */
const unreadable = ['secondary_vetting', 'url', 'method'];

/**
 * A live brand in the manifest's shape: `profile_uuid`, `brand_alias`, `brand_type`. The company
 * data the API copies from the profile is the profile's business, not the brand's spec.
 */
export function normaliseBrand(raw: RawBrand, activeCampaigns: readonly string[] | undefined): LiveObject {
  const id = requireId(raw as Record<string, unknown>, 'brand_id', brandPath);
  const spec: Record<string, unknown> = {};
  const profileUuid = text(raw.profile_uuid);
  const alias = text(raw.brand_alias);
  const type = upperText(raw.brand_type);
  if (profileUuid !== undefined) spec.profile_uuid = profileUuid;
  if (alias !== undefined) spec.brand_alias = alias;
  if (type !== undefined) spec.brand_type = type;
  const reasons = Array.isArray(raw.declined_reasons)
    ? raw.declined_reasons
        .filter((reason): reason is Record<string, unknown> => reason !== null && typeof reason === 'object')
        .map((reason) => ({ code: String(reason.code ?? ''), message: String(reason.message ?? '') }))
    : [];
  // A read without `brand_type` (production's reads may leave it out) leaves it unknown, never the schema's default.
  // So may list rows leave out the alias (two SDKs' list mocks).
  const missing = [...(alias === undefined ? ['brand_alias'] : []), ...(type === undefined ? ['brand_type'] : [])];
  const unread = missing.length > 0 ? { unread: missing } : {};
  const createdAt = text((raw as Record<string, unknown>).created_at);
  return {
    id,
    spec,
    ...unread,
    ...(createdAt === undefined ? {} : { createdAt }),
    registry: {
      registration_status: upperText(raw.registration_status) ?? 'UNKNOWN',
      ...(reasons.length > 0 ? { declined_reasons: reasons } : {}),
    },
    // Undefined: the campaign list was refused (403), so whether campaigns hold the brand back is unknown.
    facts: activeCampaigns === undefined ? { unreadContext: 'campaigns' } : { activeCampaigns: [...activeCampaigns] },
  };
}

/**
 * Brands through `/10dlc/Brand/`. The API has no brand update, so every field is
 * immutable (a change is `blocked`); a delete is irreversible, refused while the brand has active
 * campaigns, and confirmed by reading the brand back (docs/commands.md, connecting to the API).
 */
/** Where a brand create answer holds the new id: `brand_id`, `brandId`, or under `brand` (SDK fixtures show each). */
const brandCreateAnswer: CreateAnswer = { idField: 'brand_id', under: ['brand'] };

export const brandLive: LiveSide = {
  product: '10DLC',
  createAnswer: brandCreateAnswer,
  // A profile makes one brand only, so the profile names the brand.
  naturalKey: (spec) => text(spec.profile_uuid),
  naturalKeyWord: 'profile',

  async list(context) {
    // The campaigns are read for context only (what holds a brand back): a list refused 403 leaves that unknown.
    const [brands, campaigns] = await Promise.all([accountBrands(context), unlessRefused(accountCampaigns(context))]);
    return brands.map((brand) =>
      normaliseBrand(brand, campaigns && activeCampaignsOf(campaigns, String(brand.brand_id))),
    );
  },

  async read({ client }, id) {
    const raw = await readRecord<RawBrand>(client, itemPath(brandPath, id), 'brand');
    if (raw === undefined) return undefined;
    const campaigns = await unlessRefused(listCampaigns(client, id));
    return normaliseBrand(raw, campaigns && activeCampaignsOf(campaigns, id));
  },

  async create({ client }, spec) {
    const profileUuid = text(spec.profile_uuid);
    if (profileUuid === undefined) throw new TelformError('bad_spec', 'a brand needs profile_uuid');
    const url = text(spec.url);
    const body: Record<string, unknown> = {
      profile_uuid: profileUuid,
      brand_alias: spec.brand_alias,
      brand_type: spec.brand_type,
      secondary_vetting: spec.secondary_vetting,
      // `method` only means something with a callback `url`.
      ...(url === undefined ? {} : { url, method: spec.method }),
    };
    // A lost answer is recovered by the profile: it can have made this brand only (docs/state-and-safety.md).
    const outcome = await createWithRecovery<Record<string, unknown>>(
      client,
      brandPath,
      body,
      async () => {
        const found = (await listBrands(client)).find((brand) => brand.profile_uuid === profileUuid);
        return found === undefined ? undefined : String(found.brand_id);
      },
      4,
      // A brand registration is vetted and irreversible: never sent again on doubt.
      false,
    );
    if (outcome.kind === 'recovered') return { id: String(outcome.found) };
    return { id: createdId(outcome.response.body, brandCreateAnswer, brandPath) };
  },

  async update(_context, request) {
    throw new TelformError(
      'not_updatable',
      `Brand ${request.id}: ${request.changedFields.join(', ')} cannot be changed, the API has no brand update`,
    );
  },

  delete: ({ client }, id) => deleteConfirmed(client, itemPath(brandPath, id), `Brand ${id}`, 'brand'),

  fields: {
    updatable: [],
    replaceOn: [],
    immutable: ['profile_uuid', 'brand_alias', 'brand_type', ...unreadable],
    unreadable,
    mayBeUnread: ['brand_alias', 'brand_type'],
  },
  // A read also lists the brand's campaigns; a delete is read back.
  requests: { read: 2, delete: 2 },
  billableUpdateUsd: 0,
  // Never used (no field forces a replace); a profile cannot make a second brand anyway.
  replaceStrategy: 'delete_before_create',
  irreversibleDelete: true,

  deleteRefusal(live, deletedFirst) {
    if (live.facts?.unreadContext === 'campaigns')
      return 'its campaigns could not be read (the API answered 403 to the campaign list), and the API refuses to delete a brand that has active campaigns: the worst is assumed';
    // Campaigns this plan deletes first do not hold the brand back.
    const active = (live.facts?.activeCampaigns ?? []).filter((id) => !deletedFirst.has(id));
    if (active.length === 0) return undefined;
    return `the brand has ${active.length} active or processing campaign(s) (${active.join(', ')}); the API refuses to delete a brand until they are deleted`;
  },

  readiness(live) {
    const status = live.registry?.registration_status;
    if (status === 'COMPLETED') return 'ready';
    if (status === 'FAILED') return 'failed';
    return 'pending';
  },
};

const brandSpec = builtOnce(() =>
  z
    .strictObject({
      profile_uuid: reference(uuid, 'Profile', 'a profile uuid'),
      brand_alias: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
      // STANDARD is the only documented value (STARTER, seen in older material, is not accepted).
      brand_type: z.enum(['STANDARD']).default('STANDARD').describe('STANDARD (needs a profile with an EIN).'),
      secondary_vetting: z.boolean().default(true).describe('Ask for secondary vetting (standard registration).'),
      url: httpUrl.optional().describe('Callback URL for registration status updates.'),
      method: callbackMethod,
    })
    .describe('Brand spec.'),
);

/**
 * A 10DLC brand registered from an existing profile. Brands cannot be updated
 * and a profile makes one brand only, so `profile_uuid` is unique among brands.
 */
/**
 * A brand as a snapshot keeps it. A brand read does not say whether secondary vetting was asked for;
 * a completed brand shows its vetting only when it was, so that is what the replica holds.
 */
function withSecondaryVetting(
  record: Readonly<Record<string, unknown>>,
  kept: Record<string, SnapshotJson>,
): SnapshotJson {
  if (kept.secondary_vetting === undefined && String(record.registration_status ?? '').toUpperCase() === 'COMPLETED')
    return { ...kept, secondary_vetting: record.vetting_status !== undefined && record.vetting_status !== null };
  return kept;
}

export const brand = {
  name: 'Brand',
  description: 'US 10DLC brand: the business behind your messaging, registered from an existing profile.',
  get spec() {
    return brandSpec();
  },
  nameField: 'brand_alias',
  references: { profile_uuid: 'Profile' },
  secrets: {},
  setFields: {},
  uniqueFields: ['profile_uuid'],
  rules: [],
  checks: [],
  live: brandLive,
  // Registered for vetting; a read always carries a status (UNKNOWN when the API gives none).
  registry: {
    vetted: true,
    unregistered: 'UNKNOWN',
    callback: { types: ['brand'], idField: 'brand_id', untyped: true },
    // The profile a deleted brand was made from has had its one brand: the API refuses it another.
    registersOnce: (spec) =>
      `the API lets a profile register one brand, ever, and profile ${profileLabel(spec.profile_uuid)} registered this one, so it cannot be registered again from it; a brand registered anew needs a new profile, in the manifests`,
  },
  snapshot: {
    collection: 'brands',
    path: brandPath,
    itemsKey: 'brands',
    idField: 'brand_id',
    seed: 'existing',
    fields: textFields(
      [
        'brand_id',
        'brand_type',
        'profile_uuid',
        'brand_alias',
        'company_name',
        'ein',
        'ein_issuing_country',
        'entity_type',
        'vertical',
        'website',
        'registration_status',
        'created_at',
      ],
      { address: 'object', authorized_contact: 'object', secondary_vetting: 'flag', declined_reasons: 'list' },
    ),
    project: withSecondaryVetting,
  },
  scope: { code: 'br', preset: 'messaging' },
} as const satisfies Kind;

/** The profile a brand names, as a reader knows it: `Profile/name` for a `{ ref }`, else its uuid. */
function profileLabel(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'ref' in value && typeof value.ref === 'string')
    return `Profile/${value.ref}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
