import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import { deleteIdempotent } from '../api/writes.js';
import { TelformError } from '../errors.js';
import { memoised, type LiveContext } from './live-side.js';

/**
 * What the live sides of Brand and Campaign share: the records the 10DLC API returns (api.md
 * "Brand", "Campaign"; api-facts.md 3a, 3d), reading one of them, the whole campaign and number
 * lists, and deletes confirmed by reading back (DESIGN.md section 7).
 */

export const brandPath = '/10dlc/Brand/';
export const campaignPath = '/10dlc/Campaign/';
export const numberPath = '/Number/';

/** A brand as `GET /10dlc/Brand/` returns it; only the fields telform reads. */
export interface RawBrand {
  brand_id?: unknown;
  brand_alias?: unknown;
  brand_type?: unknown;
  profile_uuid?: unknown;
  registration_status?: unknown;
  declined_reasons?: unknown;
}

/** A campaign as `GET /10dlc/Campaign/` returns it (unknown members are left as they come). */
export type RawCampaign = Record<string, unknown> & { campaign_id?: unknown };

/** A phone number of the account (`GET /Number/`): the campaign it is linked to and the link's status. */
export interface RawNumber {
  number?: unknown;
  tendlc_campaign_id?: unknown;
  tendlc_registration_status?: unknown;
}

/** A non-empty string, or undefined: `""` and `null` mean "not set" (DESIGN.md section 5). */
export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Status values compared and shown in upper case (api-facts.md 3d: `Active` in filters, `ACTIVE` in records). */
export function upperOf(value: unknown): string | undefined {
  const text = textOf(value);
  return text === undefined ? undefined : text.toUpperCase();
}

/** The id a record must carry; a record without one is a response telform cannot work with. */
export function requireId(record: Record<string, unknown>, field: string, path: string): string {
  const id = record[field];
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number') return String(id);
  throw new TelformError('unexpected_response', `the API returned a record without ${field} from ${path}`, { details: { path, field } });
}

export function itemPath(collection: string, id: string): string {
  return `${collection}${encodeURIComponent(id)}/`;
}

/**
 * One record by path, unwrapped from `key` (`{api_id, brand}`), tolerant of a flat body;
 * undefined on 404.
 */
export async function readRecord<T extends object>(client: ApiClient, path: string, key: string): Promise<T | undefined> {
  try {
    const { body } = await client.get<Record<string, unknown> | undefined>(path);
    if (!body || typeof body !== 'object') return undefined;
    const inner = body[key];
    return (inner && typeof inner === 'object' ? inner : body) as T;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return undefined;
    throw error;
  }
}

/** Every campaign of the account (or of one brand: the documented `brand_id` filter), read whole. */
export function listCampaigns(client: ApiClient, brandId?: string): Promise<RawCampaign[]> {
  return listAll<RawCampaign>(client, campaignPath, {
    itemsKey: 'campaigns',
    idOf: (campaign) => requireId(campaign, 'campaign_id', campaignPath),
    ...(brandId === undefined ? {} : { query: { brand_id: brandId } }),
  });
}

/**
 * Every phone number of the account, read whole and once per run (trunks count the numbers attached
 * to them, campaigns those linked to them; telform never changes a number).
 */
export function accountNumbers(context: LiveContext): Promise<Array<RawNumber & Record<string, unknown>>> {
  return memoised(context, 'numbers', () =>
    listAll<RawNumber & Record<string, unknown>>(context.client, numberPath, {
      itemsKey: 'objects',
      idOf: (number) => requireId(number, 'number', numberPath),
    }),
  );
}

/** Campaign statuses under which the API refuses a brand delete ("active campaigns", api.md Brands). */
const blockingBrandDelete = new Set(['ACTIVE', 'PROCESSING']);

/** Ids of the campaigns of `brandId` that are `ACTIVE` or `PROCESSING`, sorted. */
export function activeCampaignsOf(campaigns: readonly RawCampaign[], brandId: string): string[] {
  return campaigns
    .filter((campaign) => campaign.brand_id === brandId && blockingBrandDelete.has(upperOf(campaign.registration_status) ?? ''))
    .map((campaign) => String(campaign.campaign_id))
    .sort();
}

/**
 * Deletes a brand or campaign and confirms it by reading it back (DESIGN.md section 7): the API
 * may report a refusal only in `message` (api.md Errors rule 8), so a 2xx alone does not prove
 * the delete. A 404, on the first attempt or on a retry after a lost answer, means it is gone.
 * A refusal throws one sentence with the API's own message.
 */
export async function deleteConfirmed(client: ApiClient, path: string, what: string, key: string): Promise<void> {
  let answer: unknown;
  try {
    const result = await deleteIdempotent(client, path);
    if (result.alreadyGone) return;
    answer = result.response?.body;
  } catch (error) {
    if (error instanceof ApiRequestError) {
      throw new TelformError('delete_refused', `${what} was not deleted: the API answered ${error.status}: ${error.apiMessage}`, {
        details: { status: error.status, api_message: error.apiMessage, path },
        cause: error,
      });
    }
    throw error;
  }
  const still = await readRecord(client, path, key);
  if (still === undefined) return;
  const message = answer && typeof answer === 'object' ? textOf((answer as Record<string, unknown>).message) : undefined;
  throw new TelformError(
    'delete_refused',
    `${what} was not deleted: it is still there after the API answered "${message ?? 'no message'}"`,
    { details: { path, api_message: message ?? null } },
  );
}
