import { randomUUID } from 'node:crypto';
import { ApiError, type JsonObject } from './http.js';
import type { HeldObjects } from './options.js';
import { hashPassword } from './passwords.js';
import { Fields, heldId } from './held-fields.js';
import { holdOriginationUri, holdSipAcl, holdSipCredential, holdTrunk, holdTrunkAcl } from './held-voice.js';
import type { Runtime } from './runtime.js';
import type {
  AccountState,
  BrandRecord,
  BrandStatus,
  CampaignAttributes,
  CampaignRecord,
  CampaignStatus,
  HeldContact,
  PostalAddress,
  ProfileRecord,
  TrunkCredentialRecord,
} from './state.js';

/**
 * Objects an account already holds, given as the API reads them back: made long ago, by the console or
 * under older rules, so they are not judged by today's create rules. Legacy values (a `STARTER` brand, a
 * `PUBLIC_PROFIT` profile, a phone without `+`) and omitted fields are kept exactly as given and read back
 * so. Only what the emulator needs to stay coherent is checked (ids unique and well-formed, a campaign's
 * brand and a brand's profile present, value types), each a 400 naming the field. Used by the seed's
 * `existing` section and by the production shapes' starting objects.
 */
export const heldKinds = [
  'profiles',
  'brands',
  'campaigns',
  'trunk_credentials',
  'sip_credentials',
  'sip_ip_acls',
  'trunk_ip_acls',
  'origination_uris',
  'trunks',
] as const;

/** Adds every held object, kind by kind in dependency order; `onItem` wraps each one (the seed's error places). */
export function holdObjects(
  account: AccountState,
  held: HeldObjects,
  runtime: Runtime,
  onItem: (kind: (typeof heldKinds)[number], index: number, hold: () => void) => void = (_kind, _index, hold) => hold(),
): void {
  const holders = {
    profiles: holdProfile,
    brands: holdBrand,
    campaigns: holdCampaign,
    trunk_credentials: holdTrunkCredential,
    sip_credentials: holdSipCredential,
    sip_ip_acls: holdSipAcl,
    trunk_ip_acls: holdTrunkAcl,
    origination_uris: holdOriginationUri,
    trunks: holdTrunk,
  } as const;
  for (const kind of heldKinds) {
    for (const [index, item] of (held[kind] ?? []).entries())
      onItem(kind, index, () => holders[kind](account, item, runtime));
  }
}

/** Copies the fields that are present (held objects omit what they never had). */
function presentOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function oneOf<T extends string>(field: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new ApiError(400, `${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** One registry step in the past: a held registration has long been decided, and its callbacks are not sent. */
function decided<S extends string>(
  status: S,
  at: string,
): { steps: Array<{ at: string; status: S }>; notified: number } {
  return { steps: [{ at, status }], notified: 1 };
}

const profileTexts = [
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
] as const;

export function holdProfile(account: AccountState, body: JsonObject, runtime: Runtime): ProfileRecord {
  const fields = new Fields(body);
  const uuid = heldId(
    account.profiles,
    fields.text('profile_uuid'),
    /^[0-9a-f-]{36}$/,
    'profile_uuid must be a UUID',
    () => runtime.uuid(),
  );
  const primary = [...account.profiles.values()].find((profile) => profile.profile_type === 'PRIMARY');
  const type = oneOf(
    'profile_type',
    fields.text('profile_type'),
    ['PRIMARY', 'SECONDARY'],
    primary ? 'SECONDARY' : 'PRIMARY',
  );
  if (type === 'PRIMARY' && primary)
    throw new ApiError(400, `the account already has the primary profile ${primary.profile_uuid}`);
  const texts: Partial<Record<(typeof profileTexts)[number], string>> = {};
  for (const field of profileTexts) texts[field] = fields.text(field);
  const address = fields.members('address', 'string') as Partial<PostalAddress> | undefined;
  const contact = fields.members('authorized_contact', 'string') as HeldContact | undefined;
  const createdAt = fields.text('created_at') ?? runtime.nowIso();
  fields.text('primary_profile');
  // The brand this profile registered, when the account's past says so (a snapshot records it, the
  // deleted brand's included): a profile registers one brand only, ever.
  const usedBy = fields.text('used_by_brand_id') ?? null;
  fields.checkNoOthers('profile');
  const record: ProfileRecord = {
    profile_uuid: uuid,
    profile_type: type,
    primary_profile: type === 'PRIMARY' ? uuid : (primary?.profile_uuid ?? uuid),
    ...presentOnly(texts),
    ...(address ? { address } : {}),
    ...(contact ? { authorized_contact: contact } : {}),
    used_by_brand_id: usedBy,
    created_at: createdAt,
  };
  account.profiles.set(uuid, record);
  return record;
}

const brandTexts = [
  'brand_alias',
  'company_name',
  'ein',
  'ein_issuing_country',
  'entity_type',
  'vertical',
  'website',
] as const;
const brandStatuses: readonly BrandStatus[] = ['COMPLETED', 'PROCESSING', 'FAILED'];

export function holdBrand(account: AccountState, body: JsonObject, runtime: Runtime): BrandRecord {
  const fields = new Fields(body);
  const brandId = heldId(
    account.brands,
    fields.text('brand_id'),
    /^B[A-Z0-9]{6}$/,
    'brand_id must be B and 6 capital letters or digits',
    () => runtime.registryId('B'),
  );
  const profileUuid = fields.text('profile_uuid');
  const profile = profileUuid === undefined ? undefined : account.profiles.get(profileUuid);
  if (profileUuid !== undefined && !profile)
    throw new ApiError(400, `profile_uuid ${profileUuid} does not name a profile of this account`);
  if (profile && profile.used_by_brand_id !== null && profile.used_by_brand_id !== brandId)
    throw new ApiError(400, `profile_uuid ${profileUuid} already made brand ${profile.used_by_brand_id}`);
  const texts: Partial<Record<(typeof brandTexts)[number], string>> = {};
  for (const field of brandTexts) texts[field] = fields.text(field);
  const status = oneOf('registration_status', fields.text('registration_status'), brandStatuses, 'COMPLETED');
  const declined = fields.any('declined_reasons');
  if (declined !== undefined && !Array.isArray(declined)) throw new ApiError(400, 'declined_reasons must be a list');
  const address = fields.members('address', 'string') as Partial<PostalAddress> | undefined;
  const contact = fields.members('authorized_contact', 'string') as HeldContact | undefined;
  const createdAt = fields.text('created_at') ?? runtime.nowIso();
  const record: BrandRecord = {
    brand_id: brandId,
    brand_type: fields.text('brand_type') ?? 'STANDARD',
    ...(profileUuid !== undefined ? { profile_uuid: profileUuid } : {}),
    ...presentOnly(texts),
    ...(address ? { address } : {}),
    ...(contact ? { authorized_contact: contact } : {}),
    secondary_vetting: fields.flag('secondary_vetting') ?? true,
    callback: null,
    registration: decided(status, createdAt),
    declined_reasons: ((declined ?? []) as Array<{ code?: unknown; message?: unknown }>).map((reason) => ({
      code: String(reason.code ?? ''),
      message: String(reason.message ?? ''),
    })),
    created_at: createdAt,
  };
  fields.checkNoOthers('brand');
  if (profile) profile.used_by_brand_id = brandId;
  account.brands.set(brandId, record);
  return record;
}

const campaignTexts = [
  'campaign_alias',
  'vertical',
  'usecase',
  'description',
  'sample1',
  'sample2',
  'sample3',
  'sample4',
  'sample5',
  'message_flow',
  'help_message',
  'optout_message',
  'optin_message',
  'optin_keywords',
  'optout_keywords',
  'help_keywords',
  'terms_and_conditions_link',
  'privacy_policy_link',
] as const;
const campaignStatuses: readonly CampaignStatus[] = ['ACTIVE', 'PROCESSING', 'FAILED', 'EXPIRED'];

export function holdCampaign(account: AccountState, body: JsonObject, runtime: Runtime): CampaignRecord {
  const fields = new Fields(body);
  const campaignId = heldId(
    account.campaigns,
    fields.text('campaign_id'),
    /^C[A-Z0-9]{6}$/,
    'campaign_id must be C and 6 capital letters or digits',
    () => runtime.registryId('C'),
  );
  const brandId = fields.text('brand_id');
  if (brandId === undefined)
    throw new ApiError(400, 'brand_id is required: a campaign belongs to a brand of the account');
  // Production writes the source in either case; a shared campaign's brand is another account's, so
  // the account holds the campaign without its brand (a replica of such an account must load).
  const source = oneOf('campaign_source', fields.text('campaign_source')?.toLowerCase(), ['plivo', 'shared'], 'plivo');
  if (!account.brands.has(brandId) && source !== 'shared')
    throw new ApiError(
      400,
      `brand_id ${brandId} does not name a brand of this account (only a campaign_source: shared campaign may have its brand elsewhere)`,
    );
  const texts: Partial<Record<(typeof campaignTexts)[number], string>> = {};
  for (const field of campaignTexts) texts[field] = fields.text(field);
  // Read back as a comma string (`sub_usecase`), as the API shows it.
  const subUseCase = fields.text('sub_usecase');
  const status = oneOf('registration_status', fields.text('registration_status'), campaignStatuses, 'ACTIVE');
  const errorCode = fields.text('error_code');
  const errorReason = fields.text('error_reason');
  const attributes = fields.members('campaign_attributes', 'boolean') as Partial<CampaignAttributes> | undefined;
  const createdAt = fields.text('created_at') ?? runtime.nowIso();
  const record: CampaignRecord = {
    campaign_id: campaignId,
    brand_id: brandId,
    ...presentOnly(texts),
    sub_usecases: subUseCase === undefined || subUseCase === '' ? [] : subUseCase.split(','),
    ...(attributes ? { campaign_attributes: attributes } : {}),
    campaign_source: source,
    reseller_id: fields.text('reseller_id') ?? '',
    callback: null,
    registration: decided(status, createdAt),
    decline: status === 'FAILED' ? { error_code: errorCode ?? '', error_reason: errorReason ?? '' } : null,
    created_at: createdAt,
  };
  fields.checkNoOthers('campaign');
  account.campaigns.set(campaignId, record);
  return record;
}

export function holdTrunkCredential(account: AccountState, body: JsonObject, runtime: Runtime): TrunkCredentialRecord {
  const fields = new Fields(body);
  const uuid = heldId(
    account.trunkCredentials,
    fields.text('credential_uuid'),
    /^[0-9a-f-]{36}$/,
    'credential_uuid must be a UUID',
    () => runtime.uuid(),
  );
  const username = fields.text('username');
  if (username === undefined || username === '') throw new ApiError(400, 'username is required');
  const record: TrunkCredentialRecord = {
    credential_uuid: uuid,
    name: fields.text('name') ?? '',
    username,
    // Nobody knows a held credential's password: a random one, kept only as a hash like any other.
    password_hash: hashPassword(randomUUID()),
    created_at: fields.text('created_at') ?? runtime.nowIso(),
  };
  fields.checkNoOthers('trunk credential');
  account.trunkCredentials.set(uuid, record);
  return record;
}
