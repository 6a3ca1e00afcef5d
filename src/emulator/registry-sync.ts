import { sendCallback, type CallbackPayload } from './callbacks.js';
import { stepsReached } from './registry.js';
import type { Runtime } from './runtime.js';
import type {
  AccountState,
  BrandRecord,
  BrandStatus,
  CampaignRecord,
  CampaignStatus,
  NumberLinkStatus,
  NumberRecord,
  Registration,
} from './state.js';

/**
 * Turns the registry's timed decisions into status callbacks. Statuses themselves are computed
 * from timestamps on every read (registry.ts); this module only makes sure each status reached
 * has its callback fired, once. It runs lazily — on every 10DLC request and on the admin clock
 * route — and from an unref'd timer set for the next due step, so a callback goes out even when
 * nobody reads, without the timer ever deciding a status.
 */

/** Callback `status` values (production's documentation); `expired` is the emulator's own addition. */
const brandCallbackStatus: Record<BrandStatus, string> = {
  PROCESSING: 'created',
  COMPLETED: 'registered',
  FAILED: 'rejected',
};
const campaignCallbackStatus: Record<CampaignStatus, string> = {
  PROCESSING: 'created',
  ACTIVE: 'registered',
  FAILED: 'rejected',
  EXPIRED: 'expired',
};
const linkCallbackStatus: Record<NumberLinkStatus, string> = {
  PROCESSING: 'created',
  COMPLETED: 'success',
  FAILED: 'failed',
};

/** Fires the due callbacks of every brand and campaign of `account`. */
export function syncRegistry(account: AccountState, runtime: Runtime): void {
  const now = runtime.now();
  for (const brand of account.brands.values()) {
    for (const index of dueSteps(brand.registration, now)) {
      if (brand.callback) sendCallback(runtime, account.authId, brand.callback, brandPayload(brand, index));
    }
  }
  for (const campaign of account.campaigns.values()) {
    for (const index of dueSteps(campaign.registration, now)) {
      if (campaign.callback) sendCallback(runtime, account.authId, campaign.callback, campaignPayload(campaign, index));
    }
  }
  for (const number of account.numbers.values()) {
    const link = number.link;
    if (!link || number.campaign_id === null) continue;
    for (const index of dueSteps(link.registration, now)) {
      if (link.callback) sendCallback(runtime, account.authId, link.callback, linkPayload(number, index));
    }
  }
}

/** Fires the due callbacks of every account (the admin clock route). */
export function syncAllRegistries(runtime: Runtime): void {
  for (const account of runtime.state.accounts.values()) syncRegistry(account, runtime);
}

/**
 * Call after a submission: fires its due callbacks now (the `created` one) and sets an unref'd
 * timer for each later step, which only runs `syncRegistry`.
 */
export function watchRegistration<S extends string>(
  account: AccountState,
  runtime: Runtime,
  registration: Registration<S>,
): void {
  syncRegistry(account, runtime);
  const now = runtime.now().getTime();
  const times = new Set(registration.steps.map(({ at }) => Date.parse(at)).filter((time) => time > now));
  for (const time of times) {
    const delay = Math.min(time - now, 2 ** 31 - 1);
    const timer = setTimeout(() => {
      const current = runtime.state.accounts.get(account.authId);
      if (current) syncRegistry(current, runtime);
    }, delay);
    timer.unref();
  }
}

/** Indexes of the steps reached but not yet notified; marks them notified. */
function dueSteps<S extends string>(registration: Registration<S>, now: Date): number[] {
  const reached = stepsReached(registration, now);
  const due: number[] = [];
  for (let index = registration.notified; index < reached; index += 1) due.push(index);
  if (reached > registration.notified) registration.notified = reached;
  return due;
}

function brandPayload(brand: BrandRecord, index: number): CallbackPayload {
  const step = brand.registration.steps[index] as { at: string; status: BrandStatus };
  return {
    type: 'brand',
    brand_id: brand.brand_id,
    status: brandCallbackStatus[step.status],
    registration_status: step.status,
    timestamp: step.at,
    ...(step.status === 'FAILED' ? { declined_reasons: brand.declined_reasons } : {}),
  };
}

function campaignPayload(campaign: CampaignRecord, index: number): CallbackPayload {
  const step = campaign.registration.steps[index] as { at: string; status: CampaignStatus };
  return {
    type: 'campaign',
    campaign_id: campaign.campaign_id,
    brand_id: campaign.brand_id,
    status: campaignCallbackStatus[step.status],
    registration_status: step.status,
    timestamp: step.at,
    ...(step.status === 'FAILED' && campaign.decline ? campaign.decline : {}),
  };
}

/** A `number_linking` callback; the unlinking ones are sent by the unlink route itself (number-link-routes.ts). */
function linkPayload(number: NumberRecord, index: number): CallbackPayload {
  const link = number.link as NonNullable<NumberRecord['link']>;
  const step = link.registration.steps[index] as { at: string; status: NumberLinkStatus };
  return {
    type: 'number_linking',
    campaign_id: number.campaign_id as string,
    number: number.number,
    status: linkCallbackStatus[step.status],
    registration_status: step.status,
    timestamp: step.at,
    ...(step.status === 'FAILED' && link.failure
      ? { error_code: link.failure.code, error_reason: link.failure.reason }
      : {}),
  };
}
