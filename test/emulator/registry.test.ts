import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import {
  brandRegistration,
  campaignRegistration,
  decideBrand,
  decideCampaign,
  statusAt,
  stepsReached,
} from '../../src/emulator/registry.js';
import { seeded, TendlcClient, testRegistryDelayMs } from './tendlc-client.js';

const start = new Date('2026-01-01T00:00:00.000Z');
const at = (offsetMs: number): Date => new Date(start.getTime() + offsetMs);

describe('registry rules', () => {
  it('completes a brand unless its alias mentions "decline", in any case', () => {
    expect(decideBrand({ brand_alias: 'acme' })).toEqual({ status: 'COMPLETED', declinedReasons: [] });
    const declined = decideBrand({ brand_alias: 'Acme-DeClInE' });
    expect(declined.status).toBe('FAILED');
    expect(declined.declinedReasons).toHaveLength(1);
    expect(declined.declinedReasons[0]).toMatchObject({ code: 'TCR_IDENTITY_MISMATCH' });
  });

  it('declines a campaign whose alias or description mentions "decline", before any "expire"', () => {
    const plain = { campaign_alias: 'reminders', description: 'Reminders for patients of the practice.' };
    expect(decideCampaign(plain)).toEqual({ status: 'ACTIVE', expires: false, decline: null });
    expect(decideCampaign({ ...plain, campaign_alias: 'DECLINED' }).status).toBe('FAILED');
    expect(decideCampaign({ ...plain, description: 'please decline' }).decline).toMatchObject({
      error_code: 'CAMPAIGN_VETTING_DECLINED',
    });
    expect(decideCampaign({ ...plain, campaign_alias: 'decline-and-expire' })).toMatchObject({
      status: 'FAILED',
      expires: false,
    });
    expect(decideCampaign({ ...plain, description: 'will Expire' })).toEqual({
      status: 'ACTIVE',
      expires: true,
      decline: null,
    });
  });
});

describe('registration timeline', () => {
  it('is PROCESSING until the delay has passed, then the decision, from timestamps alone', () => {
    const registration = brandRegistration(decideBrand({ brand_alias: 'acme' }), start, 5_000);
    expect(registration.steps).toEqual([
      { at: '2026-01-01T00:00:00.000Z', status: 'PROCESSING' },
      { at: '2026-01-01T00:00:05.000Z', status: 'COMPLETED' },
    ]);
    expect(statusAt(registration, at(0))).toBe('PROCESSING');
    expect(statusAt(registration, at(4_999))).toBe('PROCESSING');
    expect(statusAt(registration, at(5_000))).toBe('COMPLETED');
    expect(statusAt(registration, at(-1))).toBe('PROCESSING');
    expect(stepsReached(registration, at(5_000))).toBe(2);
  });

  it('adds EXPIRED one more delay after ACTIVE for an expiring campaign', () => {
    const registration = campaignRegistration(
      decideCampaign({ campaign_alias: 'expire', description: 'x' }),
      start,
      1_000,
    );
    expect(registration.steps.map((step) => step.status)).toEqual(['PROCESSING', 'ACTIVE', 'EXPIRED']);
    expect(statusAt(registration, at(999))).toBe('PROCESSING');
    expect(statusAt(registration, at(1_000))).toBe('ACTIVE');
    expect(statusAt(registration, at(1_999))).toBe('ACTIVE');
    expect(statusAt(registration, at(2_000))).toBe('EXPIRED');
  });

  it('with a delay of 0 is decided at once', () => {
    const registration = campaignRegistration(
      decideCampaign({ campaign_alias: 'decline', description: 'x' }),
      start,
      0,
    );
    expect(statusAt(registration, start)).toBe('FAILED');
    expect(stepsReached(registration, start)).toBe(2);
  });
});

describe('a restarted emulator', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'telform-registry-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('shows the status its stored timestamps give, whatever its own registry delay', async () => {
    const dataFile = join(directory, 'state.json');
    const first = await startEmulator({ dataFile, registryDelayMs: testRegistryDelayMs });
    const account = first.config.accounts[0]!;
    const before = new TendlcClient(first, account.authId, account.authToken);
    const brandId = await before.createBrand(seeded.withEin[0], 'survives-restart');
    await first.close();

    // A shorter delay now does not shorten the registration decided before the restart.
    const second = await startEmulator({ dataFile, registryDelayMs: 1 });
    try {
      const after = new TendlcClient(second, account.authId, account.authToken);
      expect((await after.get(`/10dlc/Brand/${brandId}/`)).body.brand.registration_status).toBe('PROCESSING');
      await after.advance(testRegistryDelayMs);
      expect((await after.get(`/10dlc/Brand/${brandId}/`)).body.brand.registration_status).toBe('COMPLETED');
    } finally {
      await second.close();
    }
  });
});
