import { ApiError, json, type JsonObject } from '../http.js';
import { findOr404, freshId } from '../records.js';
import { brandRegistration, decideBrand, statusAt } from '../registry.js';
import { syncRegistry, watchRegistration } from '../registry-sync.js';
import type { Route } from '../router.js';
import type { Runtime } from '../runtime.js';
import type { AccountState, BrandRecord, BrandStatus } from '../state.js';
import { numbersBeingLinked, releaseNumbers } from '../number-links.js';
import { campaignStatus } from './campaign-view.js';
import { useCases } from './tendlc-codes.js';
import {
  callbackTarget,
  createdReply,
  deactivated,
  flag,
  queryEnumAnyCase,
  requiredText,
  tendlcList,
  text,
  withoutAlias,
} from './tendlc-input.js';
import { variationOf, type ShapeVariation } from '../variation.js';

/**
 * `/10dlc/Brand/` (the API reference, Brands; production's documentation). Brands cannot be updated. A brand is
 * registered from a profile that exists, holds an EIN (`STANDARD`, the only type the API reference knows) and
 * never made another brand, even a deleted one. Create answers 200 (production's documentation). Delete is
 * refused while the brand has campaigns that are `ACTIVE` or `PROCESSING`, or numbers still being
 * linked to one of its campaigns; the refusal is a 400 whose body carries the reason in `message`
 * (the API reference Errors, rule 8) and in `error`. Otherwise it is irreversible and also deactivates the
 * brand's `FAILED` and `EXPIRED` campaigns.
 */

const brandStatuses: readonly BrandStatus[] = ['PROCESSING', 'COMPLETED', 'FAILED'];

export function brandStatus(brand: BrandRecord, runtime: Runtime): BrandStatus {
  return statusAt(brand.registration, runtime.now());
}

/** The brand as the API returns it: vetting only once completed, reasons only when failed. */
export function presentBrand(brand: BrandRecord, runtime: Runtime, variation?: ShapeVariation): JsonObject {
  const status = brandStatus(brand, runtime);
  return {
    brand_id: brand.brand_id,
    brand_alias: brand.brand_alias,
    // Some production reads leave the type out (the Node SDK's brand mock).
    ...(variation?.brandTypeUnread ? {} : { brand_type: brand.brand_type }),
    company_name: brand.company_name,
    ein: brand.ein,
    ein_issuing_country: brand.ein_issuing_country,
    entity_type: brand.entity_type,
    vertical: brand.vertical,
    website: brand.website,
    profile_uuid: brand.profile_uuid,
    registration_status: status,
    // Production's documentation shows `vetting_status: ACTIVE` with `vetting_score: 80`; secondary vetting off means none.
    ...(status === 'COMPLETED' && brand.secondary_vetting ? { vetting_score: 80, vetting_status: 'ACTIVE' } : {}),
    ...(status === 'FAILED' ? { declined_reasons: brand.declined_reasons.map((reason) => ({ ...reason })) } : {}),
    ...(brand.address ? { address: { ...brand.address } } : {}),
    ...(brand.authorized_contact ? { authorized_contact: { ...brand.authorized_contact } } : {}),
    created_at: brand.created_at,
  };
}

function createBrand(account: AccountState, body: JsonObject, runtime: Runtime): BrandRecord {
  const profileUuid = requiredText(body, 'profile_uuid');
  const brandAlias = requiredText(body, 'brand_alias');
  const brandType = text(body, 'brand_type') ?? 'STANDARD';
  if (brandType !== 'STANDARD') throw new ApiError(400, 'brand_type must be STANDARD');
  const secondaryVetting = flag(body, 'secondary_vetting') ?? true;
  const callback = callbackTarget(body);
  const profile = account.profiles.get(profileUuid);
  if (!profile) throw new ApiError(400, `profile_uuid ${profileUuid} does not name a profile of this account`);
  if (profile.used_by_brand_id !== null) {
    throw new ApiError(
      400,
      `profile_uuid ${profileUuid} was already used to create brand ${profile.used_by_brand_id}; a profile makes one brand only`,
    );
  }
  if ((profile.ein ?? '') === '')
    throw new ApiError(400, `profile_uuid ${profileUuid} holds no EIN; a STANDARD brand needs a profile with one`);
  const submittedAt = runtime.now();
  const brandId = freshId(account.brands, () => runtime.registryId('B'));
  const decision = decideBrand({ brand_alias: brandAlias });
  profile.used_by_brand_id = brandId;
  return {
    brand_id: brandId,
    brand_alias: brandAlias,
    brand_type: 'STANDARD',
    profile_uuid: profileUuid,
    company_name: profile.company_name,
    ein: profile.ein,
    ein_issuing_country: profile.ein_issuing_country,
    entity_type: profile.entity_type,
    vertical: profile.vertical,
    website: profile.website,
    address: { ...profile.address },
    authorized_contact: { ...profile.authorized_contact },
    secondary_vetting: secondaryVetting,
    callback,
    registration: brandRegistration(decision, submittedAt, runtime.config.registryDelayMs),
    declined_reasons: decision.declinedReasons,
    created_at: submittedAt.toISOString(),
  };
}

/** Why the brand cannot be deleted now, or undefined when it can. */
function deleteRefusal(account: AccountState, brand: BrandRecord, runtime: Runtime): string | undefined {
  const campaigns = [...account.campaigns.values()].filter((campaign) => campaign.brand_id === brand.brand_id);
  const active = campaigns
    .filter((campaign) => ['ACTIVE', 'PROCESSING'].includes(campaignStatus(campaign, runtime)))
    .map((campaign) => campaign.campaign_id);
  if (active.length > 0) {
    return `Brand ${brand.brand_id} cannot be deleted: it has active campaigns (${active.join(', ')}); delete them first.`;
  }
  const linking = campaigns.flatMap((campaign) => numbersBeingLinked(account, campaign.campaign_id, runtime.now()));
  if (linking.length > 0) {
    return `Brand ${brand.brand_id} cannot be deleted: numbers are still being linked to its campaigns (${linking.join(', ')}).`;
  }
  return undefined;
}

export const brandRoutes: Route[] = [
  {
    method: 'POST',
    path: '/10dlc/Brand/',
    writes: true,
    handle: ({ account, body, runtime }) => {
      syncRegistry(account, runtime);
      const brand = createBrand(account, body, runtime);
      account.brands.set(brand.brand_id, brand);
      watchRegistration(account, runtime, brand.registration);
      return createdReply(
        variationOf(runtime.config, account),
        'brand',
        'brand_id',
        brand.brand_id,
        'Request to create brand was received and is being processed.',
      );
    },
  },
  {
    method: 'GET',
    path: '/10dlc/Brand/',
    handle: ({ account, query, accountBase, runtime }) => {
      syncRegistry(account, runtime);
      // Python's SDK sends `status` for `registration_status` (production's documentation).
      const status =
        queryEnumAnyCase(query, 'registration_status', brandStatuses) ??
        queryEnumAnyCase(query, 'status', brandStatuses);
      const type = queryEnumAnyCase(query, 'type', ['STANDARD']);
      const brands = [...account.brands.values()].filter(
        (brand) =>
          (status === undefined || brandStatus(brand, runtime) === status) &&
          (type === undefined || brand.brand_type === type),
      );
      const variation = variationOf(runtime.config, account);
      return tendlcList(
        brands,
        query,
        `${accountBase}/10dlc/Brand/`,
        'brands',
        (brand) => withoutAlias(presentBrand(brand, runtime, variation), 'brand_alias', variation),
        { shapes: runtime.config.shapes, variation },
      );
    },
  },
  {
    method: 'GET',
    path: '/10dlc/Brand/:brand_id/',
    handle: ({ account, params, runtime }) => {
      syncRegistry(account, runtime);
      const brand = findOr404(account.brands, params.brand_id as string, 'brand');
      return json(200, { brand: presentBrand(brand, runtime, variationOf(runtime.config, account)) });
    },
  },
  {
    method: 'GET',
    path: '/10dlc/Brand/:brand_id/usecases/',
    handle: ({ account, params, runtime }) => {
      syncRegistry(account, runtime);
      const brand = findOr404(account.brands, params.brand_id as string, 'brand');
      return json(200, { brand_id: brand.brand_id, use_cases: useCases.map((useCase) => ({ ...useCase })) });
    },
  },
  {
    method: 'DELETE',
    path: '/10dlc/Brand/:brand_id/',
    writes: true,
    handle: ({ account, params, runtime }) => {
      syncRegistry(account, runtime);
      const brand = findOr404(account.brands, params.brand_id as string, 'brand');
      const refusal = deleteRefusal(account, brand, runtime);
      if (refusal !== undefined) return json(400, { brand_id: brand.brand_id, message: refusal, error: refusal });
      for (const campaign of [...account.campaigns.values()]) {
        if (campaign.brand_id !== brand.brand_id) continue;
        releaseNumbers(account, campaign.campaign_id);
        account.campaigns.delete(campaign.campaign_id);
      }
      account.brands.delete(brand.brand_id);
      return deactivated(runtime.config.shapes, { brand_id: brand.brand_id, message: 'Brand Deactivated' });
    },
  },
];
