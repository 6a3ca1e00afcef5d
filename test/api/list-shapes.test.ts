// Whole lists under each page size and envelope production is known to use (the emulator's shape variation):
// the 10DLC and Profile lists read through the client hold every object the account holds.
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { listAll } from '../../src/api/list.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { ShapeVariation } from '../../src/emulator/variation.js';
import { listBrands, listCampaigns } from '../../src/resources/tendlc-api.js';

/** Campaigns beyond the production seed's seven, so that the list runs to a second page of 10 (and many of 2). */
const extraCampaigns = Array.from({ length: 6 }, (_, index) => ({
  campaign_id: `CXTRA0${index}`,
  brand_id: 'BSTND01',
  campaign_alias: `extra-${index}`,
  usecase: 'STARTER',
  registration_status: 'ACTIVE',
}));

const running: RunningEmulator[] = [];
afterAll(async () => {
  for (const emulator of running) await emulator.close();
});

const pageSizes: Array<ShapeVariation['pageSize']> = ['requested', 10, 2];
const envelopes: Array<ShapeVariation['listEnvelope']> = ['meta', 'meta_total', 'count', 'none'];

describe('the 10DLC and Profile lists under every page size and envelope', () => {
  for (const pageSize of pageSizes) {
    for (const listEnvelope of envelopes) {
      it(`reads every campaign, brand and profile with pages of ${pageSize} and the ${listEnvelope} envelope`, async () => {
        const emulator = await startEmulator({
          shapes: 'production',
          registryDelayMs: 0,
          variation: { pageSize, listEnvelope },
          seedData: { existing: { campaigns: extraCampaigns } },
        });
        running.push(emulator);
        const client = new ApiClient({
          baseUrl: emulator.url,
          credentials: { authId: defaultAccount.authId, authToken: defaultAccount.authToken },
        });
        try {
          const account = emulator.runtime.state.accounts.get(defaultAccount.authId);
          const held = (map: ReadonlyMap<string, unknown> | undefined): string[] => [...(map?.keys() ?? [])].sort();
          expect(held(account?.campaigns).length).toBeGreaterThanOrEqual(13);

          const campaigns = await listCampaigns(client);
          expect(campaigns.map((campaign) => String(campaign.campaign_id)).sort()).toEqual(held(account?.campaigns));
          const brands = await listBrands(client);
          expect(brands.map((brand) => String(brand.brand_id)).sort()).toEqual(held(account?.brands));
          const profiles = await listAll<Record<string, unknown>>(client, '/Profile/', {
            itemsKey: 'profiles',
            idOf: (profile) => String(profile.profile_uuid),
          });
          expect(profiles.map((profile) => String(profile.profile_uuid)).sort()).toEqual(held(account?.profiles));
        } finally {
          await client.close();
        }
      });
    }
  }
});
