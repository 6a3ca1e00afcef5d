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

export function presentCampaign(campaign: CampaignRecord, runtime: Runtime): JsonObject {
  const status = campaignStatus(campaign, runtime);
  const optional: JsonObject = {};
  for (const field of optionalTexts) {
    const value = campaign[field];
    if (value !== undefined) optional[field] = value;
  }
  return {
    campaign_id: campaign.campaign_id,
    campaign_alias: campaign.campaign_alias,
    brand_id: campaign.brand_id,
    reseller_id: campaign.reseller_id,
    usecase: campaign.usecase,
    ...(multiUseCases.includes(campaign.usecase) ? { sub_usecase: campaign.sub_usecases.join(',') } : {}),
    registration_status: status,
    vertical: campaign.vertical,
    description: campaign.description,
    sample1: campaign.sample1,
    sample2: campaign.sample2,
    message_flow: campaign.message_flow,
    help_message: campaign.help_message,
    optout_message: campaign.optout_message,
    ...optional,
    campaign_attributes: { ...campaign.campaign_attributes },
    mno_metadata: mnoMetadata(),
    ...(status === 'FAILED' && campaign.decline ? { ...campaign.decline } : {}),
    created_at: campaign.created_at,
    campaign_source: campaign.campaign_source,
  };
}
