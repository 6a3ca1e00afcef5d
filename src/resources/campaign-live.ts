import type { ApiClient } from '../api/client.js';
import { OutcomeUnknownError } from '../api/errors.js';
import { cannotTell, createWithRecovery } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import type { LiveObject, LiveSide, ResolvedSpec } from './live-side.js';
import {
  itemPath,
  readRecord,
  requireId,
  text,
  upperText,
  createdId,
  createdIdIn,
  type CreateAnswer,
} from './api-records.js';
import {
  accountCampaigns,
  numbersIfReadable,
  campaignPath,
  deleteConfirmed,
  listCampaigns,
  type RawCampaign,
  type RawNumber,
} from './tendlc-api.js';

/**
 * The live side of Campaign: register or import, read back
 * in the manifest's shape, update (a billed vetting review, never re-sent), delete (irreversible,
 * confirmed by reading back).
 */

const importPath = '/10dlc/Campaign/Import/';

/** Where a campaign create answer holds the new id: `campaign_id`, `campaignId`, or under `campaign` (SDK fixtures show each). */
const campaignCreateAnswer: CreateAnswer = { idField: 'campaign_id', under: ['campaign'] };

/** The eight `campaign_attributes` booleans, flat in the manifest (the register request takes them under `campaign_attributes`). */
export const campaignAttributes = [
  'subscriber_optin',
  'subscriber_optout',
  'subscriber_help',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'age_gated',
  'affiliate_marketing',
] as const;

/** What an update may change (the documented fields, plus samples 3–5 and the links, which production also takes). */
export const updatableFields = [
  'campaign_alias',
  'description',
  'sample1',
  'sample2',
  'sample3',
  'sample4',
  'sample5',
  'message_flow',
  'help_message',
  'optout_message',
  'optout_keywords',
  'optin_message',
  'optin_keywords',
  'help_keywords',
  'terms_and_conditions_link',
  'privacy_policy_link',
] as const;

/** Register inputs no update takes: a change registers a new campaign (and deletes the old one). */
const replaceOn = ['brand_id', 'vertical', 'usecase', 'sub_usecases', ...campaignAttributes, 'import'];

/** Text fields returned as sent (optional ones only when supplied). */
const textFields = ['vertical', 'usecase', ...updatableFields.filter((field) => field !== 'campaign_alias')];

/** Enumerated codes among the text fields. */
const codeFields = new Set(['vertical', 'usecase']);

/** Use cases that carry `sub_usecases` (returned as `sub_usecase` only for them). */
const withSubUsecases = new Set(['MIXED', 'LOW_VOLUME']);

/** Create inputs a read does not return: compared with the ledger by the engine. */
const unreadable = ['url', 'method'];

function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'True') return true;
  if (value === 'false' || value === 'False') return false;
  return undefined;
}

/**
 * The comma list `sub_usecase` as the manifest's array `sub_usecases`, for the
 * use cases that carry it; absent otherwise.
 */
function subUsecasesOf(raw: RawCampaign, usecase: string | undefined): string[] | undefined {
  if (usecase === undefined || !withSubUsecases.has(usecase)) return undefined;
  const value = raw.sub_usecase ?? raw.sub_usecases;
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  const codes = items.map((item) => item.trim().toUpperCase()).filter((item) => item !== '');
  return codes.length > 0 ? codes : undefined;
}

/**
 * A live campaign in the manifest's shape. A campaign imported from the registry
 * (`campaign_source: shared`) is written in manifests as `import: { campaign_id }` with its alias
 * only, so that is its shape here too.
 */
export function normaliseCampaignSpec(raw: RawCampaign): Record<string, unknown> {
  const id = requireId(raw, 'campaign_id', campaignPath);
  const spec: Record<string, unknown> = {};
  const alias = text(raw.campaign_alias);
  if (alias !== undefined) spec.campaign_alias = alias;
  if (text(raw.campaign_source)?.toLowerCase() === 'shared') {
    spec.import = { campaign_id: id };
    return spec;
  }
  const brandId = text(raw.brand_id);
  if (brandId !== undefined) spec.brand_id = brandId;
  for (const field of textFields) {
    // Codes compared in upper case, as the manifest's enums write them (docs/commands.md, plan).
    const value = codeFields.has(field) ? upperText(raw[field]) : text(raw[field]);
    if (value !== undefined) spec[field] = value;
  }
  const subUsecases = subUsecasesOf(raw, upperText(raw.usecase));
  if (subUsecases !== undefined) spec.sub_usecases = subUsecases;
  const attributes =
    raw.campaign_attributes && typeof raw.campaign_attributes === 'object'
      ? (raw.campaign_attributes as Record<string, unknown>)
      : raw;
  for (const attribute of campaignAttributes) {
    const value = booleanOf(attributes[attribute]);
    if (value !== undefined) spec[attribute] = value;
  }
  return spec;
}

interface NumberCounts {
  linked: number;
  processing: number;
}

/** Linked numbers per campaign, from the numbers' `tendlc_campaign_id` and `tendlc_registration_status`. */
function countNumbers(numbers: readonly RawNumber[]): Map<string, NumberCounts> {
  const counts = new Map<string, NumberCounts>();
  for (const number of numbers) {
    const campaignId = text(number.tendlc_campaign_id);
    if (campaignId === undefined) continue;
    const count = counts.get(campaignId) ?? { linked: 0, processing: 0 };
    count.linked += 1;
    if (upperText(number.tendlc_registration_status) === 'PROCESSING') count.processing += 1;
    counts.set(campaignId, count);
  }
  return counts;
}

/**
 * Register fields a campaign read may leave out although they were sent: production's reads carry
 * seven of the eight attributes, no message flow or replies, and older ones no vertical, samples or
 * attributes at all. The alias and brand are not among them: they name and place the campaign.
 */
const mayBeUnread = ['campaign_alias', ...textFields, 'sub_usecases', ...campaignAttributes].sort();

/** A member the body leaves out (or gives as null): unknown, where `""` or `false` is a value. */
function missing(record: Record<string, unknown>, field: string): boolean {
  return !(field in record) || record[field] === null;
}

/** The fields of `mayBeUnread` this read did not return (none for an imported campaign: it has no register fields). */
function unreadCampaignFields(raw: RawCampaign, spec: Record<string, unknown>): string[] {
  if (spec.import !== undefined) return [];
  const attributes =
    raw.campaign_attributes && typeof raw.campaign_attributes === 'object'
      ? (raw.campaign_attributes as Record<string, unknown>)
      : raw;
  const unread: string[] = textFields.filter((field) => missing(raw, field));
  // sub_usecases are read only for the use cases that take them; an unknown use case leaves them unknown too.
  if (
    missing(raw, 'usecase') ||
    (withSubUsecases.has(upperText(raw.usecase) ?? '') && missing(raw, 'sub_usecase') && missing(raw, 'sub_usecases'))
  ) {
    unread.push('sub_usecases');
  }
  for (const attribute of campaignAttributes) if (missing(attributes, attribute)) unread.push(attribute);
  // List rows may carry no alias at all (two SDKs' list mocks): unknown, not removed.
  if (missing(raw, 'campaign_alias')) unread.push('campaign_alias');
  return unread.sort();
}

const noNumbers: NumberCounts = { linked: 0, processing: 0 };

/** A live campaign; `numbers` undefined: its linked numbers could not be read (403), so they are unknown. */
export function normaliseCampaign(raw: RawCampaign, numbers: NumberCounts | undefined): LiveObject {
  const id = requireId(raw, 'campaign_id', campaignPath);
  const errorCode = text(raw.error_code);
  const errorReason = text(raw.error_reason);
  const spec = normaliseCampaignSpec(raw);
  const unread = unreadCampaignFields(raw, spec);
  const createdAt = text(raw.created_at);
  return {
    id,
    spec,
    // When the registry made it: settling a lost register claims only a campaign made since.
    ...(createdAt === undefined ? {} : { createdAt }),
    ...(unread.length === 0 ? {} : { unread }),
    registry: {
      registration_status: upperText(raw.registration_status) ?? 'UNKNOWN',
      ...(errorCode === undefined ? {} : { error_code: errorCode }),
      ...(errorReason === undefined ? {} : { error_reason: errorReason }),
    },
    facts: numbers === undefined ? {} : { numbers: numbers.linked, numbersProcessing: numbers.processing },
  };
}

function importIdOf(spec: Record<string, unknown>): string | undefined {
  const value = spec.import;
  return value && typeof value === 'object' ? text((value as Record<string, unknown>).campaign_id) : undefined;
}

/** `url` and, with it, `method` (a callback method means nothing without a URL). */
function callbackOf(spec: ResolvedSpec): Record<string, unknown> {
  const url = text(spec.url);
  return url === undefined ? {} : { url, method: spec.method };
}

/** The register request: only what the manifest gives. */
export function registerBody(spec: ResolvedSpec): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of ['campaign_alias', 'brand_id', ...textFields]) {
    const value = text(spec[field]);
    if (value !== undefined) body[field] = value;
  }
  if (Array.isArray(spec.sub_usecases) && spec.sub_usecases.length > 0) body.sub_usecases = [...spec.sub_usecases];
  for (const attribute of campaignAttributes) {
    if (typeof spec[attribute] === 'boolean') body[attribute] = spec[attribute];
  }
  return { ...body, ...callbackOf(spec) };
}

function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): string =>
    JSON.stringify(
      Array.isArray(value) ? [...value].map(String).sort() : value === '' || value === null ? undefined : value,
    );
  return canonical(a) === canonical(b);
}

/**
 * Whether a live campaign is the one a register request made: same alias and brand, and the same
 * register-only fields. During a create-before-delete replace the old campaign has the same alias
 * but differs in one of those fields, so it is never taken for the new one.
 */
function isRegisteredFrom(raw: RawCampaign, spec: ResolvedSpec): boolean {
  const live = normaliseCampaignSpec(raw);
  if (live.import !== undefined) return false;
  // A field the read leaves out cannot tell the two apart; the ones it returns must match. List rows
  // may carry no alias at all.
  const unread = unreadCampaignFields(raw, live);
  return ['campaign_alias', ...replaceOn.filter((field) => field !== 'import')].every(
    (field) => unread.includes(field) || sameValue(live[field], spec[field]),
  );
}

async function registerCampaign(client: ApiClient, spec: ResolvedSpec): Promise<string> {
  const brandId = text(spec.brand_id);
  const outcome = await createWithRecovery<Record<string, unknown>>(
    client,
    campaignPath,
    registerBody(spec),
    async () => {
      const campaigns = (await listCampaigns(client, brandId)).filter((campaign) => isRegisteredFrom(campaign, spec));
      const [found] = campaigns;
      // Only one candidate that shows the alias is known to be this registration; anything else cannot tell.
      if (campaigns.length === 1 && found && !missing(found, 'campaign_alias')) return String(found.campaign_id);
      return campaigns.length === 0 ? undefined : cannotTell;
    },
    4,
    // A registration is a billed vetting submission: never sent again on doubt.
    false,
  );
  if (outcome.kind === 'recovered') return String(outcome.found);
  return createdId(outcome.response.body, campaignCreateAnswer, campaignPath);
}

/** Import (it takes `campaign_alias`, `campaign_id`, `url`, `method`); the campaign keeps the registry's id. */
async function importCampaign(client: ApiClient, spec: ResolvedSpec, campaignId: string): Promise<string> {
  const body = { campaign_id: campaignId, campaign_alias: spec.campaign_alias, ...callbackOf(spec) };
  const outcome = await createWithRecovery<Record<string, unknown>>(client, importPath, body, async () =>
    (await readRecord(client, itemPath(campaignPath, campaignId), 'campaign')) === undefined ? undefined : campaignId,
  );
  if (outcome.kind === 'recovered') return campaignId;
  return createdIdIn(outcome.response.body, campaignCreateAnswer) ?? campaignId;
}

/**
 * Sends an update once, in the client's `billable` mode: each accepted update is a 15 USD vetting
 * review, so an answer lost after sending is never followed by a second
 * request. The campaign is read back instead: if it shows the new values the update happened.
 */
async function sendUpdate(client: ApiClient, id: string, body: Record<string, unknown>): Promise<void> {
  const path = itemPath(campaignPath, id);
  try {
    await client.request('POST', path, { body, mode: 'billable' });
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const after = await readRecord<RawCampaign>(client, path, 'campaign');
    const spec = after === undefined ? undefined : normaliseCampaignSpec(after);
    if (spec !== undefined && Object.entries(body).every(([field, value]) => sameValue(spec[field], value))) return;
    throw new TelformError(
      'update_outcome_unknown',
      `Campaign ${id}: the update got no answer and the campaign does not show it; it was not sent again because each update is a billed 15 USD vetting review (run plan again to see whether it is still needed)`,
      { details: { campaign_id: id }, cause: error },
    );
  }
}

export const campaignLive: LiveSide = {
  product: '10DLC',
  createAnswer: campaignCreateAnswer,
  // An imported campaign is named by its registry id, a registered one by its alias (docs/state-and-safety.md).
  naturalKey(spec) {
    const imported = importIdOf(spec);
    return imported === undefined ? text(spec.campaign_alias) : `import:${imported}`;
  },

  async list(context) {
    const [campaigns, numbers] = await Promise.all([accountCampaigns(context), numbersIfReadable(context)]);
    const counts = numbers && countNumbers(numbers);
    return campaigns.map((campaign) =>
      normaliseCampaign(campaign, counts ? (counts.get(String(campaign.campaign_id)) ?? noNumbers) : undefined),
    );
  },

  async read(context, id) {
    const raw = await readRecord<RawCampaign>(context.client, itemPath(campaignPath, id), 'campaign');
    if (raw === undefined) return undefined;
    const numbers = await numbersIfReadable(context);
    return normaliseCampaign(raw, numbers ? (countNumbers(numbers).get(id) ?? noNumbers) : undefined);
  },

  async create({ client }, spec) {
    const imported = importIdOf(spec);
    return {
      id: imported === undefined ? await registerCampaign(client, spec) : await importCampaign(client, spec, imported),
    };
  },

  async update({ client }, { id, desired, changedFields }) {
    const fixed = changedFields.filter((field) => !(updatableFields as readonly string[]).includes(field));
    if (fixed.length > 0) {
      throw new TelformError(
        'not_updatable',
        `Campaign ${id}: ${fixed.join(', ')} cannot be changed by a campaign update`,
      );
    }
    // The API reads "" as "not given": an update cannot remove a value.
    const cleared = changedFields.filter((field) => text(desired[field]) === undefined);
    if (cleared.length > 0) {
      throw new TelformError(
        'not_updatable',
        `Campaign ${id}: ${cleared.join(', ')} cannot be removed by an update (the API ignores empty values); give it a value in the manifest`,
      );
    }
    if (changedFields.length === 0) return;
    await sendUpdate(client, id, Object.fromEntries(changedFields.map((field) => [field, desired[field]])));
  },

  delete: ({ client }, id) => deleteConfirmed(client, itemPath(campaignPath, id), `Campaign ${id}`, 'campaign'),

  fields: {
    updatable: [...updatableFields],
    replaceOn,
    // The callback of a registration cannot be changed: no update takes `url`/`method`.
    immutable: unreadable,
    unreadable,
    mayBeUnread,
  },
  // A delete is read back to confirm it.
  requests: { delete: 2 },
  billableUpdateUsd: 15,
  // Campaigns are independent registrations: the new one is registered before the old one goes.
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: true,

  updateRefusal(live) {
    const status = live.registry?.registration_status ?? 'UNKNOWN';
    return status === 'FAILED' ? undefined : `campaigns can be updated only while FAILED (now ${status})`;
  },

  // Numbers are linked to a campaign only once it is ACTIVE (the API refuses a link before).
  readiness(live) {
    const status = live.registry?.registration_status;
    if (status === 'ACTIVE') return 'ready';
    if (status === 'FAILED' || status === 'EXPIRED') return 'failed';
    return 'pending';
  },

  deleteRefusal(live) {
    const processing = live.facts?.numbersProcessing ?? 0;
    if (processing === 0) return undefined;
    return `${processing} phone number(s) are still being linked to the campaign; the API refuses to delete a campaign while numbers are in processing`;
  },
};
