import { ApiError, json, type JsonObject } from '../http.js';
import { numbersBeingLinked, releaseNumbers } from '../number-links.js';
import { findOr404, freshId } from '../records.js';
import { campaignRegistration, decideCampaign } from '../registry.js';
import { syncRegistry, watchRegistration } from '../registry-sync.js';
import type { Route } from '../router.js';
import type { Runtime } from '../runtime.js';
import type { AccountState, CampaignRecord, CampaignStatus } from '../state.js';
import { brandStatus } from './brands.js';
import { readCampaignContent, readCampaignUpdate, type CampaignContent } from './campaign-rules.js';
import { campaignStatus, presentCampaign } from './campaign-view.js';
import { useCaseCodes } from './tendlc-codes.js';
import {
  callbackTarget,
  createdReply,
  deactivated,
  queryEnumAnyCase,
  requiredText,
  tendlcList,
  withoutAlias,
} from './tendlc-input.js';
import { variationOf } from '../variation.js';

/**
 * `/10dlc/Campaign/` (the API reference, Campaigns; production's documentation). Register and import answer 200
 * (like brand create), as do get, list, update and delete. A campaign is registered only under a
 * `COMPLETED` brand. An update is accepted only while the campaign is `FAILED`: it is billed
 * (15 USD, `campaign_vetting_review` in the account's billing ledger) and sent back to the
 * registry, which decides again from the new content. Any other update is refused with a 400.
 */

const campaignStatuses: readonly CampaignStatus[] = ['ACTIVE', 'FAILED', 'PROCESSING', 'EXPIRED'];

/** The price of the carrier vetting review each update triggers (the API reference, Limits). */
export const vettingReviewUsd = 15;

const registryCampaignId = /^C[A-Z0-9]{6}$/;

function submit(content: CampaignContent, runtime: Runtime): Pick<CampaignRecord, 'registration' | 'decline'> {
  const decision = decideCampaign(content);
  return {
    registration: campaignRegistration(decision, runtime.now(), runtime.config.registryDelayMs),
    decline: decision.decline,
  };
}

function registerCampaign(account: AccountState, body: JsonObject, runtime: Runtime): CampaignRecord {
  const content = readCampaignContent(body);
  const brandId = requiredText(body, 'brand_id');
  const callback = callbackTarget(body);
  const brand = account.brands.get(brandId);
  if (!brand) throw new ApiError(400, `brand_id ${brandId} does not name a brand of this account`);
  const status = brandStatus(brand, runtime);
  if (status !== 'COMPLETED') {
    throw new ApiError(
      400,
      `brand_id ${brandId} is ${status}; campaigns can be registered only under a COMPLETED brand`,
    );
  }
  return {
    ...content,
    campaign_id: freshId(account.campaigns, () => runtime.registryId('C')),
    brand_id: brandId,
    campaign_source: 'plivo',
    reseller_id: '',
    callback,
    ...submit(content, runtime),
    created_at: runtime.nowIso(),
  };
}

/**
 * An import stands for a campaign registered elsewhere and shared with the account from the
 * registry; the emulator has no such registry, so it accepts any well-formed id not yet in the
 * account and gives the campaign fixed content (documented in docs/emulator.md). Only the alias is the
 * caller's, and the registry rules read it as for any campaign.
 */
function importCampaign(account: AccountState, body: JsonObject, runtime: Runtime): CampaignRecord {
  const campaignId = requiredText(body, 'campaign_id');
  const campaignAlias = requiredText(body, 'campaign_alias');
  const callback = callbackTarget(body);
  if (!registryCampaignId.test(campaignId)) {
    throw new ApiError(400, 'campaign_id must be a registry campaign id: C followed by 6 capital letters or digits');
  }
  if (account.campaigns.has(campaignId))
    throw new ApiError(400, `campaign_id ${campaignId} is already a campaign of this account`);
  const content: CampaignContent = {
    campaign_alias: campaignAlias,
    vertical: 'TECHNOLOGY',
    usecase: 'CUSTOMER_CARE',
    sub_usecases: [],
    description: 'Campaign registered directly at the campaign registry and shared with this account.',
    sample1: 'Hi, this is the support team replying to your request.',
    sample2: 'Your support ticket has been updated; reply HELP for help.',
    message_flow: 'Customers opt in by texting the support number or by ticking a box on the support form.',
    help_message: 'Reply HELP for help or STOP to opt out.',
    optout_message: 'You are unsubscribed and will receive no further messages.',
    campaign_attributes: {
      affiliate_marketing: false,
      age_gated: false,
      direct_lending: false,
      embedded_link: false,
      embedded_phone: false,
      subscriber_help: true,
      subscriber_optin: true,
      subscriber_optout: true,
    },
  };
  return {
    ...content,
    campaign_id: campaignId,
    brand_id: `B${campaignId.slice(1)}`,
    campaign_source: 'shared',
    reseller_id: '',
    callback,
    ...submit(content, runtime),
    created_at: runtime.nowIso(),
  };
}

function updateCampaign(
  account: AccountState,
  campaign: CampaignRecord,
  body: JsonObject,
  runtime: Runtime,
): CampaignRecord {
  const status = campaignStatus(campaign, runtime);
  if (status !== 'FAILED') {
    throw new ApiError(
      400,
      `campaign ${campaign.campaign_id} cannot be updated while its registration_status is ${status}; only a FAILED campaign can be updated`,
    );
  }
  const changes = readCampaignUpdate(body);
  const next: CampaignRecord = { ...campaign, ...changes };
  Object.assign(next, submit(next, runtime));
  account.billing.push({
    at: runtime.nowIso(),
    item: 'campaign_vetting_review',
    amount_usd: vettingReviewUsd,
    campaign_id: campaign.campaign_id,
    brand_id: campaign.brand_id,
  });
  return next;
}

/**
 * A register or an import: the campaign is stored, its registration watched (callbacks), and the
 * API answers that the request is being processed.
 */
function submitCampaign(build: typeof registerCampaign, message: string): Route['handle'] {
  return ({ account, body, runtime }) => {
    syncRegistry(account, runtime);
    const campaign = build(account, body, runtime);
    account.campaigns.set(campaign.campaign_id, campaign);
    watchRegistration(account, runtime, campaign.registration);
    return createdReply(variationOf(runtime.config, account), 'campaign', 'campaign_id', campaign.campaign_id, message);
  };
}

export const campaignRoutes: Route[] = [
  // Before `:campaign_id`, which would match `Import` too.
  {
    method: 'POST',
    path: '/10dlc/Campaign/Import/',
    writes: true,
    handle: submitCampaign(importCampaign, 'Request to import campaign was received and is being processed.'),
  },
  {
    method: 'POST',
    path: '/10dlc/Campaign/',
    writes: true,
    handle: submitCampaign(registerCampaign, 'Request to create campaign was received and is being processed.'),
  },
  {
    method: 'GET',
    path: '/10dlc/Campaign/',
    handle: ({ account, query, accountBase, runtime }) => {
      syncRegistry(account, runtime);
      const usecase = queryEnumAnyCase(query, 'usecase', useCaseCodes);
      const brandId = query.get('brand_id') || undefined;
      const status = queryEnumAnyCase(query, 'registration_status', campaignStatuses);
      const source = queryEnumAnyCase(query, 'campaign_source', ['plivo', 'shared'] as const);
      const campaigns = [...account.campaigns.values()].filter(
        (campaign) =>
          (usecase === undefined || campaign.usecase === usecase) &&
          (brandId === undefined || campaign.brand_id === brandId) &&
          (status === undefined || campaignStatus(campaign, runtime) === status) &&
          (source === undefined || campaign.campaign_source === source),
      );
      const variation = variationOf(runtime.config, account);
      return tendlcList(
        campaigns,
        query,
        `${accountBase}/10dlc/Campaign/`,
        'campaigns',
        (campaign) => withoutAlias(presentCampaign(campaign, runtime), 'campaign_alias', variation),
        { shapes: runtime.config.shapes, variation },
      );
    },
  },
  {
    method: 'GET',
    path: '/10dlc/Campaign/:campaign_id/',
    handle: ({ account, params, runtime }) => {
      syncRegistry(account, runtime);
      const campaign = findOr404(account.campaigns, params.campaign_id as string, 'campaign');
      return json(200, { campaign: presentCampaign(campaign, runtime) });
    },
  },
  {
    method: 'POST',
    path: '/10dlc/Campaign/:campaign_id/',
    writes: true,
    handle: ({ account, params, body, runtime }) => {
      syncRegistry(account, runtime);
      const campaign = findOr404(account.campaigns, params.campaign_id as string, 'campaign');
      const next = updateCampaign(account, campaign, body, runtime);
      account.campaigns.set(next.campaign_id, next);
      watchRegistration(account, runtime, next.registration);
      return json(200, { campaign: presentCampaign(next, runtime) });
    },
  },
  {
    method: 'DELETE',
    path: '/10dlc/Campaign/:campaign_id/',
    writes: true,
    handle: ({ account, params, runtime }) => {
      syncRegistry(account, runtime);
      const campaign = findOr404(account.campaigns, params.campaign_id as string, 'campaign');
      const linking = numbersBeingLinked(account, campaign.campaign_id, runtime.now());
      if (linking.length > 0) {
        const refusal = `Campaign ${campaign.campaign_id} cannot be deleted: numbers are still being linked to it (${linking.join(', ')}).`;
        return json(400, { campaign_id: campaign.campaign_id, message: refusal, error: refusal });
      }
      releaseNumbers(account, campaign.campaign_id);
      account.campaigns.delete(campaign.campaign_id);
      return deactivated(runtime.config.shapes, { campaign_id: campaign.campaign_id, message: 'Campaign Deactivated' });
    },
  },
];
