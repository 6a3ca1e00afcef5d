import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import { deleteIdempotent } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import { readRecord, requireId, text, upperText } from './api-records.js';
import { memoised, type LiveContext } from './live-side.js';

/**
 * The 10DLC API as the live sides of Profile, Brand and Campaign use it: the records it returns,
 * the whole campaign and number lists, and deletes confirmed by reading back (docs/commands.md, connecting to the API).
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

/** Every campaign of the account (or of one brand: the documented `brand_id` filter), read whole. */
export function listCampaigns(client: ApiClient, brandId?: string): Promise<RawCampaign[]> {
  return listAll<RawCampaign>(client, campaignPath, {
    itemsKey: 'campaigns',
    idOf: (campaign) => requireId(campaign, 'campaign_id', campaignPath),
    ...(brandId === undefined ? {} : { query: { brand_id: brandId } }),
  });
}

/** Every brand of the account, read whole. */
export function listBrands(client: ApiClient): Promise<RawBrand[]> {
  return listAll<RawBrand>(client, brandPath, {
    itemsKey: 'brands',
    idOf: (brand) => requireId(brand as Record<string, unknown>, 'brand_id', brandPath),
  });
}

/**
 * The brand and campaign lists, read once per run when the account is listed: Brand and Profile
 * both need every brand, Brand and Campaign every campaign; reading each twice doubled their pages.
 */
export function accountBrands(context: LiveContext): Promise<RawBrand[]> {
  return memoised(context, 'brands', () => listBrands(context.client));
}

export function accountCampaigns(context: LiveContext): Promise<RawCampaign[]> {
  return memoised(context, 'campaigns', () => listCampaigns(context.client));
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

/** What a list refused with 403 (an account's permissions) reads as, for a list read only for context: undefined. */
export async function unlessRefused<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 403) return undefined;
    throw error;
  }
}

/**
 * The account's phone numbers, or undefined when the account may not read them (403): a trunk's or a
 * campaign's count of numbers is then unknown, and the run goes on (the PhoneNumber kind's own read, skipped
 * as a helpful kind refused, says so once).
 */
export async function numbersIfReadable(
  context: LiveContext,
): Promise<Array<RawNumber & Record<string, unknown>> | undefined> {
  try {
    return await accountNumbers(context);
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 403) return undefined;
    throw error;
  }
}

/** Campaign statuses under which the API refuses a brand delete (the API says "active campaigns"). */
const blockingBrandDelete = new Set(['ACTIVE', 'PROCESSING']);

/** Ids of the campaigns of `brandId` that are `ACTIVE` or `PROCESSING`, sorted. */
export function activeCampaignsOf(campaigns: readonly RawCampaign[], brandId: string): string[] {
  return campaigns
    .filter(
      (campaign) =>
        campaign.brand_id === brandId && blockingBrandDelete.has(upperText(campaign.registration_status) ?? ''),
    )
    .map((campaign) => String(campaign.campaign_id))
    .sort();
}

/**
 * Deletes a brand or campaign and confirms it by reading it back (docs/commands.md, connecting to the API): the API
 * may report a refusal only in `message`, so a 2xx alone does not prove
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
      throw new TelformError(
        'delete_refused',
        `${what} was not deleted: the API answered ${error.status}: ${error.apiMessage}`,
        {
          details: { status: error.status, api_message: error.apiMessage, path },
          cause: error,
        },
      );
    }
    throw error;
  }
  const still = await readRecord(client, path, key);
  if (still === undefined) return;
  const message = answer && typeof answer === 'object' ? text((answer as Record<string, unknown>).message) : undefined;
  throw new TelformError(
    'delete_refused',
    `${what} was not deleted: it is still there after the API answered "${message ?? 'no message'}"`,
    { details: { path, api_message: message ?? null } },
  );
}
