import type { JsonObject } from '../http.js';
import { statusAt } from '../registry.js';
import type { Runtime } from '../runtime.js';
import type { CampaignRecord, CampaignStatus } from '../state.js';
import { multiUseCases } from './tendlc-codes.js';

/**
 * How a campaign is returned (the API reference, Campaign; production's documentation): `sub_usecase` as a comma
 * list only for `MIXED`/`LOW_VOLUME`, optional texts only when supplied, `error_code` and
 * `error_reason` only while `FAILED`, and the carriers' `mno_metadata` (the emulator gives every
 * campaign the same throughput figures).
 */

/** Keys and value shapes of production's fixtures (production's documentation); a fresh object per reply. */
function mnoMetadata(): JsonObject {
  return {
    'AT&T': { tpm: 4500 },
    'T-Mobile': { brand_tier: 'TOP' },
    'US Cellular': { tpm: 4500 },
    'Verizon Wireless': { tpm: 4500 },
  };
}

const optionalTexts = [
  'sample3',
  'sample4',
  'sample5',
  'optin_message',
  'optin_keywords',
  'optout_keywords',
  'help_keywords',
  'terms_and_conditions_link',
  'privacy_policy_link',
] as const;

export function campaignStatus(campaign: CampaignRecord, runtime: Runtime): CampaignStatus {
  return statusAt(campaign.registration, runtime.now());
}

/**
 * Fields production does not read back (the SDKs' campaign fixtures): sent at registration, stored, and
 * left out of every read in the production shapes; `affiliate_marketing` is likewise missing from the
 * read's `campaign_attributes`, which has seven keys.
 */
export const unreadCampaignFields = ['message_flow', 'help_message', 'optout_message'] as const;
export const unreadCampaignAttributes = ['affiliate_marketing'] as const;

/** The stored value of `field`, if the campaign has one (a held campaign may lack fields the API requires now). */
function present(field: string, value: unknown): JsonObject {
  return value === undefined ? {} : { [field]: value };
}

export function presentCampaign(campaign: CampaignRecord, runtime: Runtime): JsonObject {
  const status = campaignStatus(campaign, runtime);
  const production = runtime.config.shapes === 'production';
  const optional: JsonObject = {};
  for (const field of optionalTexts) {
    const value = campaign[field];
    if (value !== undefined) optional[field] = value;
  }
  const unread: JsonObject = {};
  if (!production) for (const field of unreadCampaignFields) Object.assign(unread, present(field, campaign[field]));
  let attributes: JsonObject | undefined;
  if (campaign.campaign_attributes) {
    attributes = { ...campaign.campaign_attributes };
    if (production) for (const attribute of unreadCampaignAttributes) delete attributes[attribute];
  }
  const showsSubUseCases =
    (campaign.usecase !== undefined && multiUseCases.includes(campaign.usecase)) || campaign.sub_usecases.length > 0;
  return {
    campaign_id: campaign.campaign_id,
    ...present('campaign_alias', campaign.campaign_alias),
    brand_id: campaign.brand_id,
    reseller_id: campaign.reseller_id,
    ...present('usecase', campaign.usecase),
    ...(showsSubUseCases ? { sub_usecase: campaign.sub_usecases.join(',') } : {}),
    registration_status: status,
    ...present('vertical', campaign.vertical),
    ...present('description', campaign.description),
    ...present('sample1', campaign.sample1),
    ...present('sample2', campaign.sample2),
    ...unread,
    ...optional,
    ...present('campaign_attributes', attributes),
    mno_metadata: mnoMetadata(),
    ...(status === 'FAILED' && campaign.decline ? { ...campaign.decline } : {}),
    created_at: campaign.created_at,
    campaign_source: campaign.campaign_source,
  };
}
