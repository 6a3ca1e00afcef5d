import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/api/errors.js';
import { TelformError } from '../../src/util/errors.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { campaign } from '../../src/resources/campaign.js';
import { campaignLive } from '../../src/resources/campaign-live.js';
import { liveContext, type LiveContext, type LiveObject } from '../../src/resources/live-side.js';
import { campaignBody, seeded, startTendlcEmulator, testRegistryDelayMs } from '../emulator/tendlc-client.js';
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

/** A campaign manifest under `brandId`, with `extra` YAML lines appended to its spec. */
function campaignManifest(name: string, brandId: string, extra: string[] = []): string {
  return [
    'apiVersion: telform/v1',
    'kind: Campaign',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  brand_id: ${brandId}`,
    '  vertical: HEALTHCARE',
    '  description: Appointment reminders and confirmations sent to patients of the practice.',
    '  sample1: "Hi Sam, your appointment is on May 3 at 10:00. Reply C to confirm."',
    '  sample2: "Your appointment is confirmed. Reply STOP to opt out, HELP for help."',
    '  subscriber_optin: true',
    '  subscriber_optout: true',
    '  subscriber_help: true',
    '  direct_lending: false',
    '  embedded_link: false',
    '  embedded_phone: false',
    '  age_gated: false',
    '  affiliate_marketing: false',
    '  message_flow: Patients opt in by ticking a box on the signed intake form at their first visit.',
    '  help_message: "Northwind Dental: call 555-0100 for help. Reply STOP to opt out."',
    '  optout_message: You are unsubscribed from Northwind Dental reminders.',
    ...extra.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

/** The spec the engine sends for a register: manifest fields with the brand's live id. */
function registerSpec(brandId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...campaignBody(brandId), method: 'POST', ...overrides };
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** The one campaign, as a new run would list it (a fresh view: the run memo would keep the first list). */
async function only(context: LiveContext): Promise<LiveObject> {
  const listed = await campaignLive.list(liveContext(context.client));
  expect(listed).toHaveLength(1);
  return listed[0] as LiveObject;
}

describe('Campaign live side: register, read, normalise', () => {
  it('registers a campaign whose normalised live spec equals the validated manifest spec', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[0]);
    const desired = await manifestSpec(
      campaignManifest('reminders', brandId, [
        'usecase: ACCOUNT_NOTIFICATION',
        'sample3: "Reminder: your cleaning is tomorrow at 9:00. Reply C to confirm."',
        'optin_keywords: START,YES',
        'help_keywords: HELP,INFO',
        'privacy_policy_link: https://northwind.example.com/privacy',
        'url: http://127.0.0.1:9/campaign-status',
      ]),
    );
    const { id } = await campaignLive.create(context, desired);
    expect(id).toMatch(/^C[A-Z0-9]{6}$/);

    const live = await only(context);
    expect(live.id).toBe(id);
    expect(live.registry).toEqual({ registration_status: 'PROCESSING' });
    expect(live.facts).toEqual({ numbers: 0, numbersProcessing: 0 });
    expect(live.spec).not.toHaveProperty('url');
    expect(live.spec).not.toHaveProperty('sub_usecases');
    expect(diffWithManifest(campaign, live, desired)).toEqual({ patch: [], changedFields: [] });
    expect(campaignLive.naturalKey(live.spec)).toBe('reminders');
    expect(campaignLive.naturalKey(desired)).toBe('reminders');

    await account.advance(testRegistryDelayMs);
    expect((await campaignLive.read(context, id))?.registry).toEqual({ registration_status: 'ACTIVE' });
  });

  it("reads a MIXED campaign's sub_usecase comma list back as the sub_usecases set", async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[1]);
    const desired = await manifestSpec(
      campaignManifest('mixed', brandId, ['usecase: MIXED', 'sub_usecases: [MARKETING, 2FA, CUSTOMER_CARE]']),
    );
    const { id } = await campaignLive.create(context, desired);
    const raw = await account.get(`/10dlc/Campaign/${id}/`);
    expect(raw.body.campaign.sub_usecase).toBe('MARKETING,2FA,CUSTOMER_CARE');

    const live = await only(context);
    expect(live.spec.sub_usecases).toEqual(['MARKETING', '2FA', 'CUSTOMER_CARE']);
    expect(live.spec).toMatchObject({ usecase: 'MIXED', subscriber_optin: true, direct_lending: false });
    expect(diffWithManifest(campaign, live, desired)).toEqual({ patch: [], changedFields: [] });
    // Order carries no meaning in a set.
    const reordered = { ...desired, sub_usecases: ['2FA', 'CUSTOMER_CARE', 'MARKETING'] };
    expect(diffWithManifest(campaign, live, reordered).changedFields).toEqual([]);
  });

  it('reports a declined campaign with its error code and reason; only a FAILED one may be updated', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[2]);
    await campaignLive.create(context, registerSpec(brandId, { campaign_alias: 'will-decline' }));
    const processing = await only(context);
    expect(campaignLive.updateRefusal?.(processing)).toBe(
      'campaigns can be updated only while FAILED (now PROCESSING)',
    );

    await account.advance(testRegistryDelayMs);
    const failed = await only(context);
    expect(failed.registry).toEqual({
      registration_status: 'FAILED',
      error_code: 'CAMPAIGN_VETTING_DECLINED',
      error_reason: expect.any(String),
    });
    expect(campaignLive.updateRefusal?.(failed)).toBeUndefined();
  });

  it('reads an unknown campaign as undefined', async () => {
    const { context } = await liveAccount(emulator);
    expect(await campaignLive.read(context, 'CNOSUCH')).toBeUndefined();
  });

  it('states its field rules as data', () => {
    expect(campaignLive.fields.updatable).toEqual([
      'campaign_alias',
      'description',
      'sample1',
      'sample2',
      'sample3',
      'sample4',
      'sample5',
      'message_flow',
      'help_message',
      'optout_message',
      'optout_keywords',
      'optin_message',
      'optin_keywords',
      'help_keywords',
      'terms_and_conditions_link',
      'privacy_policy_link',
    ]);
    expect([...campaignLive.fields.replaceOn].sort()).toEqual(
      [
        'brand_id',
        'vertical',
        'usecase',
        'sub_usecases',
        'subscriber_optin',
        'subscriber_optout',
        'subscriber_help',
        'direct_lending',
        'embedded_link',
        'embedded_phone',
        'age_gated',
        'affiliate_marketing',
        'import',
      ].sort(),
    );
    expect(campaignLive.fields.unreadable).toEqual(['url', 'method']);
    expect(campaignLive.billableUpdateUsd).toBe(15);
    expect(campaignLive.replaceStrategy).toBe('create_before_delete');
    expect(campaignLive.irreversibleDelete).toBe(true);
    // Every spec field has exactly one rule (or is the alias/import identity).
    const ruled = new Set([
      ...campaignLive.fields.updatable,
      ...campaignLive.fields.replaceOn,
      ...campaignLive.fields.immutable,
    ]);
    expect(Object.keys(campaign.spec.shape).filter((field) => !ruled.has(field))).toEqual([]);
  });
});

describe('Campaign live side: import', () => {
  it('imports a campaign by registry id; it reads back as the import manifest shape', async () => {
    const { context } = await liveAccount(emulator);
    const desired = await manifestSpec(
      'apiVersion: telform/v1\nkind: Campaign\nmetadata:\n  name: shared-support\nspec:\n  import:\n    campaign_id: CSHRD01\n',
    );
    const { id } = await campaignLive.create(context, desired);
    expect(id).toBe('CSHRD01');
    const live = await only(context);
    expect(live.spec).toEqual({ campaign_alias: 'shared-support', import: { campaign_id: 'CSHRD01' } });
    expect(diffWithManifest(campaign, live, desired)).toEqual({ patch: [], changedFields: [] });
    expect(campaignLive.naturalKey(live.spec)).toBe('import:CSHRD01');
    expect(campaignLive.naturalKey(desired)).toBe('import:CSHRD01');
  });

  it('recovers a lost import response by reading the campaign: one POST', async () => {
    const { account, context } = await liveAccount(emulator);
    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=3' });
    const { id } = await campaignLive.create(context, {
      campaign_alias: 'shared',
      import: { campaign_id: 'CLOST01' },
      method: 'POST',
    });
    await setFaults(emulator, null);
    expect(id).toBe('CLOST01');
    const posts = (await requestLog(account)).filter((entry) => entry.method === 'POST');
    expect(posts).toEqual([{ method: 'POST', path: '/10dlc/Campaign/Import/', status: 200, fault: 'lost_response' }]);
  });
});

describe('Campaign live side: lost create responses', () => {
  it('recovers a lost register response by alias and content: one POST, one campaign', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[0]);
    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=5' });
    const { id } = await campaignLive.create(context, registerSpec(brandId, { campaign_alias: 'reminders' }));
    await setFaults(emulator, null);

    expect((await campaignLive.list(liveContext(context.client))).map((item) => item.id)).toEqual([id]);
    const posts = (await requestLog(account)).filter(
      (entry) => entry.method === 'POST' && entry.path === '/10dlc/Campaign/',
    );
    expect(posts).toEqual([{ method: 'POST', path: '/10dlc/Campaign/', status: 200, fault: 'lost_response' }]);
  });

  it('never takes the campaign being replaced (same alias, other use case) for the lost new one', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[1]);
    const old = await campaignLive.create(context, registerSpec(brandId, { campaign_alias: 'reminders' }));
    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=5' });
    const replacement = await campaignLive.create(
      context,
      registerSpec(brandId, { campaign_alias: 'reminders', usecase: 'CUSTOMER_CARE' }),
    );
    await setFaults(emulator, null);

    expect(replacement.id).not.toBe(old.id);
    const listed = await campaignLive.list(liveContext(context.client));
    expect(listed.map((item) => [item.id, item.spec.usecase]).sort()).toEqual(
      [
        [old.id, 'ACCOUNT_NOTIFICATION'],
        [replacement.id, 'CUSTOMER_CARE'],
      ].sort(),
    );
  });

  it('converges with 500s, resets and lost responses on every method: no duplicate, all deleted', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[2]);
    await setFaults(emulator, { faults: '500=0.2,reset=0.2,lost=0.2,seed=21' });
    const aliases = ['one', 'two', 'three', 'four', 'five', 'six'];
    const failures: string[] = [];
    const ids: string[] = [];
    for (const alias of aliases) {
      // What a plan and apply do: adopt the campaign found by alias, else register it.
      const result = await asNextApplyWould(async () => {
        const found = (await campaignLive.list(liveContext(context.client))).filter(
          (item) => item.spec.campaign_alias === alias,
        );
        if (found.length > 1)
          throw new Error(`duplicate campaigns named ${alias}: ${found.map((item) => item.id).join(', ')}`);
        return (
          found[0]?.id ?? (await campaignLive.create(context, registerSpec(brandId, { campaign_alias: alias }))).id
        );
      });
      failures.push(...result.failures);
      ids.push(result.value);
    }
    const listed = (await asNextApplyWould(() => campaignLive.list(liveContext(context.client)))).value;
    for (const id of ids)
      failures.push(...(await asNextApplyWould(() => campaignLive.delete(context, id, undefined))).failures);
    const after = (await asNextApplyWould(() => campaignLive.list(liveContext(context.client)))).value;
    await setFaults(emulator, null);

    expect(listed.map((item) => item.spec.campaign_alias).sort()).toEqual([...aliases].sort());
    expect(listed.map((item) => item.id).sort()).toEqual([...ids].sort());
    expect(after).toEqual([]);
    // Whatever gave up, gave up within the retry policy, with a typed error; a registration whose answer was
    // lost is never sent again (create_outcome_unknown): the next run looks for it.
    expect(
      failures.filter((code) => !['retries_exhausted', 'partial_list', 'create_outcome_unknown'].includes(code)),
    ).toEqual([]);
    const log = await requestLog(account);
    expect(new Set(log.map((entry) => entry.fault).filter(Boolean))).toEqual(
      new Set(['error500', 'reset', 'lost_response']),
    );
  });
});

describe('Campaign live side: delete', () => {
  it('deletes a campaign, confirmed by reading it back; a second delete is not an error', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[3]);
    const { id } = await campaignLive.create(context, registerSpec(brandId));
    await campaignLive.delete(context, id, undefined);
    expect(await campaignLive.read(context, id)).toBeUndefined();
    await campaignLive.delete(context, id, undefined);
  });

  it('counts linked numbers, predicts the refusal while one is processing, and surfaces the API message', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[0]);
    const { id } = await campaignLive.create(context, registerSpec(brandId));
    await account.seedNumber({ number: '14155550100', campaign_id: id, campaign_link_status: 'PROCESSING' });
    await account.seedNumber({ number: '14155550101', campaign_id: id, campaign_link_status: 'COMPLETED' });
    await account.seedNumber({ number: '14155550102' });

    const live = await only(context);
    expect(live.facts).toEqual({ numbers: 2, numbersProcessing: 1 });
    expect((await campaignLive.read(context, id))?.facts).toEqual({ numbers: 2, numbersProcessing: 1 });
    expect(campaignLive.deleteRefusal?.(live, new Set())).toBe(
      '1 phone number(s) are still being linked to the campaign; the API refuses to delete a campaign while numbers are in processing',
    );

    const error = await thrown(campaignLive.delete(context, id, live));
    expect(error).toBeInstanceOf(TelformError);
    expect((error as Error).message).toBe(
      `Campaign ${id} was not deleted: the API answered 400: Campaign ${id} cannot be deleted: numbers are still being linked to it (14155550100).`,
    );
    expect((await campaignLive.read(context, id))?.id).toBe(id);

    await account.seedNumber({ number: '14155550100', campaign_id: id, campaign_link_status: 'COMPLETED' });
    expect(campaignLive.deleteRefusal?.(await only(context), new Set())).toBeUndefined();
    await campaignLive.delete(context, id, undefined);
    expect(await campaignLive.list(liveContext(context.client))).toEqual([]);
  });
});

describe('Campaign live side: update refusals', () => {
  it('surfaces the API message when an ACTIVE campaign is updated, and nothing is billed', async () => {
    const { account, context } = await liveAccount(emulator);
    const brandId = await account.completedBrand(seeded.withEin[1]);
    const { id } = await campaignLive.create(context, registerSpec(brandId));
    await account.advance(testRegistryDelayMs);
    const live = (await campaignLive.read(context, id)) as LiveObject;
    expect(campaignLive.updateRefusal?.(live)).toBe('campaigns can be updated only while FAILED (now ACTIVE)');

    const error = await thrown(
      campaignLive.update(context, {
        id,
        desired: { ...live.spec, description: 'A different description of at least forty characters long.' },
        live,
        changedFields: ['description'],
        secretFields: [],
      }),
    );
    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).status).toBe(400);
    expect((error as ApiRequestError).apiMessage).toBe(
      `campaign ${id} cannot be updated while its registration_status is ACTIVE; only a FAILED campaign can be updated`,
    );
    expect((await account.billing()).body.items).toEqual([]);
  });

  it('refuses, before sending anything, to change a register-only field or to remove an optional one', async () => {
    const { account, context } = await liveAccount(emulator);
    const live: LiveObject = { id: 'CAAAAAA', spec: {} };
    const fixed = await thrown(
      campaignLive.update(context, {
        id: 'CAAAAAA',
        desired: { usecase: 'MIXED' },
        live,
        changedFields: ['usecase'],
        secretFields: [],
      }),
    );
    expect((fixed as Error).message).toBe('Campaign CAAAAAA: usecase cannot be changed by a campaign update');
    const cleared = await thrown(
      campaignLive.update(context, { id: 'CAAAAAA', desired: {}, live, changedFields: ['sample3'], secretFields: [] }),
    );
    expect((cleared as Error).message).toBe(
      'Campaign CAAAAAA: sample3 cannot be removed by an update (the API ignores empty values); give it a value in the manifest',
    );
    expect(await requestLog(account)).toEqual([]);
  });
});
