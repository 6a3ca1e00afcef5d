import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { brandLive } from '../../src/resources/brand.js';
import { campaignLive } from '../../src/resources/campaign-live.js';
import { profileLive } from '../../src/resources/profile-live.js';
import { startTendlcEmulator } from '../emulator/tendlc-client.js';
import { liveAccount, requestLog } from './brand-campaign-harness.js';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
});

afterAll(async () => {
  await emulator.close();
});

describe('listing the 10DLC kinds of an account', () => {
  it('reads the brand and the campaign lists once for Profile, Brand and Campaign together', async () => {
    const { account, client } = await liveAccount(emulator);
    const context = { client, memo: new Map<string, Promise<unknown>>() };
    await Promise.all([profileLive.list(context), brandLive.list(context), campaignLive.list(context)]);
    const gets = (await requestLog(account))
      .filter((request) => request.method === 'GET')
      .map((request) => request.path);
    expect(gets.filter((path) => path === '/10dlc/Brand/')).toEqual(['/10dlc/Brand/']);
    expect(gets.filter((path) => path === '/10dlc/Campaign/')).toEqual(['/10dlc/Campaign/']);
  });
});
