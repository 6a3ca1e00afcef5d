import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TelformError } from '../../src/util/errors.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { brand, brandLive } from '../../src/resources/brand.js';
import { liveContext, type LiveObject } from '../../src/resources/live-side.js';
import { seeded, startTendlcEmulator, testRegistryDelayMs } from '../emulator/tendlc-client.js';
import {
  asNextApplyWould,
  diffWithManifest,
  liveAccount,
  manifestSpec,
  requestLog,
  setFaults,
} from './brand-campaign-harness.js';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(async () => {
  await setFaults(emulator, null);
});

const [profileA, profileB, profileC, profileD] = seeded.withEin;

const createSpec = (profileUuid: string, alias: string): Record<string, unknown> => ({
  profile_uuid: profileUuid,
  brand_alias: alias,
  brand_type: 'STANDARD',
  secondary_vetting: true,
  method: 'POST',
});

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Brand live side', () => {
  it('creates a brand that is PROCESSING, then COMPLETED after the registry delay', async () => {
    const { account, context } = await liveAccount(emulator);
    const { id } = await brandLive.create(context, createSpec(profileA, 'northwind'));
    expect(id).toMatch(/^B[A-Z0-9]{6}$/);

    const listed = await brandLive.list(liveContext(context.client));
    expect(listed).toEqual([
      {
        id,
        spec: { profile_uuid: profileA, brand_alias: 'northwind', brand_type: 'STANDARD' },
        createdAt: expect.any(String),
        registry: { registration_status: 'PROCESSING' },
        facts: { activeCampaigns: [] },
      },
    ]);
    expect(brandLive.readiness?.(listed[0] as LiveObject)).toBe('pending');

    await account.advance(testRegistryDelayMs);
    const read = await brandLive.read(context, id);
    expect(read?.registry).toEqual({ registration_status: 'COMPLETED' });
    expect(brandLive.readiness?.(read as LiveObject)).toBe('ready');
  });

  it('normalises a live brand to exactly the validated manifest spec (empty diff)', async () => {
    const { context } = await liveAccount(emulator);
    const desired = await manifestSpec(
      `apiVersion: telform/v1\nkind: Brand\nmetadata:\n  name: bluebird\nspec:\n  profile_uuid: ${profileB}\n  url: https://example.com/brand-status\n`,
    );
    const { id } = await brandLive.create(context, desired);
    const live = await brandLive.read(context, id);
    expect(live?.spec).toEqual({ profile_uuid: profileB, brand_alias: 'bluebird', brand_type: 'STANDARD' });
    expect(diffWithManifest(brand, live as LiveObject, desired)).toEqual({ patch: [], changedFields: [] });
    expect(brandLive.naturalKey(live?.spec ?? {})).toBe(brandLive.naturalKey(desired));
    expect(brandLive.naturalKey(desired)).toBe(profileB);
  });

  it('reports a declined brand as FAILED with its reasons, and its readiness as failed', async () => {
    const { account, context } = await liveAccount(emulator);
    const { id } = await brandLive.create(context, createSpec(profileC, 'decline-me'));
    await account.advance(testRegistryDelayMs);
    const [live] = await brandLive.list(liveContext(context.client));
    expect(live?.id).toBe(id);
    expect(live?.registry?.registration_status).toBe('FAILED');
    expect(live?.registry?.declined_reasons).toEqual([{ code: 'TCR_IDENTITY_MISMATCH', message: expect.any(String) }]);
    expect(brandLive.readiness?.(live as LiveObject)).toBe('failed');
  });

  it('reads an unknown brand as undefined', async () => {
    const { context } = await liveAccount(emulator);
    expect(await brandLive.read(context, 'BNOSUCH')).toBeUndefined();
  });

  it('deletes a brand, confirmed by reading it back; deleting it again is not an error', async () => {
    const { account, context } = await liveAccount(emulator);
    const { id } = await brandLive.create(context, createSpec(profileD, 'lumen'));
    await brandLive.delete(context, id, undefined);
    expect(await brandLive.read(context, id)).toBeUndefined();
    await brandLive.delete(context, id, undefined);
    const deletes = (await requestLog(account)).filter((entry) => entry.method === 'DELETE');
    expect(deletes.map((entry) => entry.status)).toEqual([200, 404]);
  });

  it('predicts the refusal of deleting a brand with an active campaign, and surfaces the API message when tried', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(profileA);
    const campaignId = await account.createCampaign(brandId);

    const [live] = await brandLive.list(liveContext(context.client));
    expect(live?.facts).toEqual({ activeCampaigns: [campaignId] });
    expect(brandLive.deleteRefusal?.(live as LiveObject, new Set())).toBe(
      `the brand has 1 active or processing campaign(s) (${campaignId}); the API refuses to delete a brand until they are deleted`,
    );
    expect(brandLive.deleteRefusal?.(live as LiveObject, new Set([campaignId]))).toBeUndefined();
    expect((await brandLive.read(context, brandId))?.facts).toEqual({ activeCampaigns: [campaignId] });

    const error = await thrown(brandLive.delete(context, brandId, live));
    expect(error).toBeInstanceOf(TelformError);
    expect((error as TelformError).code).toBe('delete_refused');
    expect((error as Error).message).toBe(
      `Brand ${brandId} was not deleted: the API answered 400: Brand ${brandId} cannot be deleted: it has active campaigns (${campaignId}); delete them first.`,
    );
    expect((await brandLive.read(context, brandId))?.id).toBe(brandId);
  });

  it('has no update: every field is immutable, so a change is blocked, and update refuses', async () => {
    expect(brandLive.fields).toEqual({
      updatable: [],
      replaceOn: [],
      immutable: ['profile_uuid', 'brand_alias', 'brand_type', 'secondary_vetting', 'url', 'method'],
      unreadable: ['secondary_vetting', 'url', 'method'],
      mayBeUnread: ['brand_alias', 'brand_type'],
    });
    expect(brandLive.irreversibleDelete).toBe(true);
    const { context } = await liveAccount(emulator);
    const error = await thrown(
      brandLive.update(context, {
        id: 'BAAAAAA',
        desired: {},
        live: { id: 'BAAAAAA', spec: {} },
        changedFields: ['brand_alias'],
        secretFields: [],
      }),
    );
    expect((error as Error).message).toBe('Brand BAAAAAA: brand_alias cannot be changed, the API has no brand update');
  });

  it('recovers a lost create response by profile: one POST, one brand', async () => {
    const { account, context } = await liveAccount(emulator);
    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=7' });
    const { id } = await brandLive.create(context, createSpec(profileB, 'bluebird'));
    await setFaults(emulator, null);

    const brands = await brandLive.list(liveContext(context.client));
    expect(brands.map((item) => item.id)).toEqual([id]);
    const posts = (await requestLog(account)).filter((entry) => entry.method === 'POST');
    expect(posts).toEqual([{ method: 'POST', path: '/10dlc/Brand/', status: 200, fault: 'lost_response' }]);
  });

  it('converges with 500s, resets and lost responses on every method: one brand per profile', async () => {
    const { account, context } = await liveAccount(emulator);
    await setFaults(emulator, { faults: '500=0.2,reset=0.2,lost=0.2,seed=11' });
    const ids: string[] = [];
    const failures: string[] = [];
    for (const [index, profile] of seeded.withEin.entries()) {
      // What a plan and apply do: adopt the brand found by profile, else create it.
      const result = await asNextApplyWould(async () => {
        const found = (await brandLive.list(liveContext(context.client))).find(
          (item) => item.spec.profile_uuid === profile,
        );
        return found?.id ?? (await brandLive.create(context, createSpec(profile, `brand-${index}`))).id;
      });
      ids.push(result.value);
      failures.push(...result.failures);
    }
    const listed = (await asNextApplyWould(() => brandLive.list(liveContext(context.client)))).value;
    await setFaults(emulator, null);

    expect(new Set(ids).size).toBe(4);
    expect(listed.map((item) => item.id).sort()).toEqual([...ids].sort());
    expect(listed.map((item) => item.spec.profile_uuid).sort()).toEqual([...seeded.withEin].sort());
    expect(failures.filter((code) => !['retries_exhausted', 'partial_list'].includes(code))).toEqual([]);
    const log = await requestLog(account);
    expect(new Set(log.map((entry) => entry.fault).filter(Boolean))).toEqual(
      new Set(['error500', 'reset', 'lost_response']),
    );
    // A second brand on a used profile would have been refused with a 400: none was ever sent.
    expect(log.filter((entry) => entry.method === 'POST' && entry.status === 400)).toEqual([]);
  });
});
