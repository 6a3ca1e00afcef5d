import { ApiError, json } from '../http.js';
import type { AdminRoute } from '../router.js';
import { statusAt } from '../registry.js';
import { syncRegistry } from '../registry-sync.js';
import type { Registration, RegistrationStep } from '../state.js';
import { requireAccount } from './admin-seed.js';

/**
 * The registry's decision taken by a test instead of its rules (`decline` in an alias): a brand or
 * campaign still `PROCESSING` is approved or declined now, at the emulator's clock, and its status
 * callback fires. A registration already decided is a 409: the registry decides once. Spread into
 * `adminRoutes`.
 */

const manualDecline = {
  brand: {
    code: 'TCR_MANUAL_DECLINE',
    message: "The registry declined the brand (decided through the emulator's admin route).",
  },
  campaign: {
    error_code: 'CAMPAIGN_VETTING_DECLINED',
    error_reason: "The carriers declined the campaign in vetting (decided through the emulator's admin route).",
  },
};

/** The registration's steps from now: PROCESSING until now, then `status` (no later expiry). */
function decideNow<S extends string>(registration: Registration<S>, status: S, now: Date): void {
  const first = registration.steps[0] as RegistrationStep<S>;
  registration.steps = [first, { at: now.toISOString(), status }];
}

export const adminRegistryRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/__emulator/accounts/:auth_id/registry/',
    handle: ({ runtime, params, body }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      const { decision, brand_id: brandId, campaign_id: campaignId } = body;
      if (decision !== 'approve' && decision !== 'decline')
        throw new ApiError(400, 'decision must be approve or decline');
      if ((typeof brandId === 'string') === (typeof campaignId === 'string'))
        throw new ApiError(400, 'give either brand_id or campaign_id');
      const now = runtime.now();
      if (typeof brandId === 'string') {
        const brand = account.brands.get(brandId);
        if (!brand) throw new ApiError(404, `brand ${brandId} not found`);
        const status = statusAt(brand.registration, now);
        if (status !== 'PROCESSING')
          throw new ApiError(409, `brand ${brandId} is already ${status}: the registry decides once`);
        decideNow(brand.registration, decision === 'approve' ? 'COMPLETED' : 'FAILED', now);
        brand.declined_reasons = decision === 'approve' ? [] : [manualDecline.brand];
      } else {
        const campaign = account.campaigns.get(campaignId as string);
        if (!campaign) throw new ApiError(404, `campaign ${String(campaignId)} not found`);
        const status = statusAt(campaign.registration, now);
        if (status !== 'PROCESSING')
          throw new ApiError(409, `campaign ${String(campaignId)} is already ${status}: the registry decides once`);
        decideNow(campaign.registration, decision === 'approve' ? 'ACTIVE' : 'FAILED', now);
        campaign.decline = decision === 'approve' ? null : manualDecline.campaign;
      }
      // The decision's status callback goes out now, as a due step's does.
      syncRegistry(account, runtime);
      return json(200, { decision, status: decision === 'approve' ? (brandId ? 'COMPLETED' : 'ACTIVE') : 'FAILED' });
    },
  },
];
