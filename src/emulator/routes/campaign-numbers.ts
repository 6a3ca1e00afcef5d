import { sendCallback } from '../callbacks.js';
import { ApiError, json, type JsonObject } from '../http.js';
import { forgetHeldLink, linkStatus, numbersOfCampaign, unlink } from '../number-links.js';
import { findOr404 } from '../records.js';
import { decideNumberLink, numberLinkRegistration } from '../registry.js';
import { syncRegistry, watchRegistration } from '../registry-sync.js';
import type { Route, RouteContext } from '../router.js';
import type { AccountState, CampaignRecord, NumberRecord } from '../state.js';
import { campaignStatus } from './campaign-view.js';
import { normalizeNumber } from './numbers.js';
import { callbackTarget, tendlcPage } from './tendlc-input.js';
import { variationOf } from '../variation.js';
import type { Shapes } from '../options.js';

/**
 * Linking the account's phone numbers to a 10DLC campaign (`/10dlc/Campaign/{id}/Number/`, as
 * production documents it; the API reference is silent). A link goes through the registry simulator: it is
 * `PROCESSING` for the registry delay, then `COMPLETED`, or `FAILED` with `error_code` and
 * `error_reason` for a number ending in 0000 (registry.ts). Rules where production's documents are
 * silent, each a 400 naming the number or campaign, checked for every number before anything changes:
 * only an `ACTIVE` campaign takes numbers; only numbers of the account can be linked; a number belongs
 * to at most one campaign (a `FAILED` link holds nothing, so the number can be linked again); linking a
 * number again to the campaign it is linked or being linked to changes nothing. An unlink takes effect
 * at once (a number still `PROCESSING` cannot be unlinked). Every success answers 200, as the rest of
 * the 10DLC area.
 */

const collectionPath = '/10dlc/Campaign/:campaign_id/Number/';
const itemPath = '/10dlc/Campaign/:campaign_id/Number/:number/';

/** `numbers`: a non-empty array of E.164 numbers (a `+` is optional); repeats count once. */
function readNumbers(body: JsonObject): string[] {
  const raw = body.numbers;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ApiError(400, 'numbers must be a non-empty array of phone numbers');
  const numbers = raw.map((item, index) => {
    const number = typeof item === 'string' ? normalizeNumber(item) : undefined;
    if (number === undefined) {
      throw new ApiError(400, `numbers[${index}] must be a phone number in E.164 (8 to 15 digits, with or without +)`);
    }
    return number;
  });
  return [...new Set(numbers)];
}

/** The campaign's part of every reply of these routes. */
function campaignHeader(campaign: CampaignRecord): JsonObject {
  return { campaign_id: campaign.campaign_id, campaign_alias: campaign.campaign_alias, usecase: campaign.usecase };
}

/** A link entry; production's entries are `{number, status}` only, so the failure's code and reason are an ideal-shapes extra. */
function presentLink(record: NumberRecord, now: Date, shapes: Shapes): JsonObject {
  const status = linkStatus(record, now);
  const failure = status === 'FAILED' && shapes === 'ideal' ? record.link?.failure : null;
  return {
    number: record.number,
    status,
    ...(failure ? { error_code: failure.code, error_reason: failure.reason } : {}),
  };
}

/** The number in the path, which must be linked (in any status) to the campaign; 404 otherwise. */
function linkedNumber(account: AccountState, campaign: CampaignRecord, raw: string): NumberRecord {
  const number = normalizeNumber(raw) ?? raw;
  const record = account.numbers.get(number);
  if (!record || record.campaign_id !== campaign.campaign_id) {
    throw new ApiError(404, `number ${number} is not linked to campaign ${campaign.campaign_id}`);
  }
  return record;
}

function findCampaign({ account, params, runtime }: RouteContext): CampaignRecord {
  syncRegistry(account, runtime);
  return findOr404(account.campaigns, params.campaign_id as string, 'campaign');
}

/** Checks every number against the rules above; returns the records to (re)link. */
function numbersToLink(
  account: AccountState,
  campaign: CampaignRecord,
  numbers: readonly string[],
  now: Date,
): NumberRecord[] {
  const records: NumberRecord[] = [];
  for (const number of numbers) {
    const record = account.numbers.get(number);
    if (!record) throw new ApiError(400, `number ${number} is not a number of this account`);
    const status = linkStatus(record, now);
    if (status === null || status === 'FAILED') {
      records.push(record);
    } else if (record.campaign_id !== campaign.campaign_id) {
      throw new ApiError(
        400,
        `number ${number} is already linked to campaign ${record.campaign_id}; unlink it from that campaign first`,
      );
    }
  }
  return records;
}

export const campaignNumberRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: (context) => {
      const { account, body, runtime } = context;
      const campaign = findCampaign(context);
      const numbers = readNumbers(body);
      const callback = callbackTarget(body);
      const status = campaignStatus(campaign, runtime);
      if (status !== 'ACTIVE') {
        throw new ApiError(
          400,
          `campaign ${campaign.campaign_id} is ${status}; numbers can be linked only to an ACTIVE campaign`,
        );
      }
      const now = runtime.now();
      for (const record of numbersToLink(account, campaign, numbers, now)) {
        const failure = decideNumberLink(record.number);
        record.campaign_id = campaign.campaign_id;
        record.campaign_link_status = null;
        forgetHeldLink(record);
        record.link = {
          registration: numberLinkRegistration(failure, now, runtime.config.registryDelayMs),
          failure,
          callback,
        };
        watchRegistration(account, runtime, record.link.registration);
      }
      return json(200, {
        message: `Request to link ${numbers.join(', ')} to campaign ${campaign.campaign_id} was received and is being processed`,
      });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: (context) => {
      const { account, query, accountBase, runtime } = context;
      const campaign = findCampaign(context);
      const now = runtime.now();
      const shapes = runtime.config.shapes;
      const page = tendlcPage(
        numbersOfCampaign(account, campaign.campaign_id),
        query,
        `${accountBase}/10dlc/Campaign/${campaign.campaign_id}/Number/`,
        { shapes, variation: variationOf(runtime.config, account) },
      );
      return json(200, {
        ...campaignHeader(campaign),
        ...page.envelope,
        phone_numbers: page.items.map((record) => presentLink(record, now, shapes)),
      });
    },
  },
  {
    method: 'GET',
    path: itemPath,
    handle: (context) => {
      const campaign = findCampaign(context);
      const record = linkedNumber(context.account, campaign, context.params.number as string);
      return json(200, {
        ...campaignHeader(campaign),
        phone_numbers: [presentLink(record, context.runtime.now(), context.runtime.config.shapes)],
      });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: (context) => {
      const { account, params, query, body, runtime } = context;
      const campaign = findCampaign(context);
      const record = linkedNumber(account, campaign, params.number as string);
      // The SDKs send `url` and `method` of a DELETE in the query (Java) or in a JSON body (Python).
      const callback = callbackTarget({ url: query.get('url'), method: query.get('method'), ...body });
      if (linkStatus(record, runtime.now()) === 'PROCESSING') {
        throw new ApiError(
          400,
          `number ${record.number} is still being linked to campaign ${campaign.campaign_id}; it can be unlinked once the link is COMPLETED or FAILED`,
        );
      }
      unlink(record);
      if (callback) {
        const timestamp = runtime.nowIso();
        for (const status of ['created', 'success']) {
          void sendCallback(runtime, account.authId, callback, {
            type: 'number_unlinking',
            campaign_id: campaign.campaign_id,
            number: record.number,
            status,
            timestamp,
          });
        }
      }
      return json(200, {
        message: `Request to unlink ${record.number} from campaign ${campaign.campaign_id} was received and is being processed`,
      });
    },
  },
];
