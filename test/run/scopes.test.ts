// Several teams, one account: a voice state and a messaging state side by side from two folders,
// an overlapping third claim refused without a write, racing overlapping claims, and kinds moved
// from one state to the other with --take-over.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { claimState, releaseState } from '../../src/run/state-hand-over.js';
import { importAccount } from '../../src/run/import.js';
import { runAccounts } from '../../src/run/accounts.js';
import { planStep } from '../../src/run/account-steps.js';
import { ownershipMarkerName, readOwnershipMarkers } from '../../src/resources/ownership-marker.js';
import { liveContext } from '../../src/resources/live-side.js';
import { parseScope } from '../../src/resources/ownership-scope.js';
import { campaignAttributes, profileSpec } from '../e2e/examples.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let notes: string[];

beforeEach(async () => {
  harness = await startHarness();
  notes = [];
  await mkdir(path.join(harness.folder, 'voice'));
  await mkdir(path.join(harness.folder, 'messaging'));
  await harness.write(
    'voice/voice.yaml',
    [
      documentOf('OriginationUri', 'pbx', { uri: 'sip:pbx.example.com:5060' }),
      documentOf('Trunk', 'pbx-in', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx' } }),
    ].join('\n---\n'),
  );
  await harness.write('messaging/messaging.yaml', messaging(true));
});
afterEach(async () => {
  await harness.close();
});

function messaging(withNumber: boolean): string {
  return [
    documentOf('Profile', 'shop', profileSpec('Scopes Shop Inc.', '81-0000377')),
    documentOf('Brand', 'shop', { profile_uuid: { ref: 'shop' } }),
    documentOf('Campaign', 'orders', {
      brand_id: { ref: 'shop' },
      vertical: 'RETAIL',
      usecase: 'DELIVERY_NOTIFICATION',
      description: 'Order confirmations and delivery updates for the customers of Scopes Shop Inc.',
      sample1: 'Scopes Shop: your order 1234 has shipped and arrives Tuesday. Reply STOP to opt out.',
      sample2: 'Scopes Shop: your order 1234 was delivered. Questions? Reply HELP. Reply STOP to opt out.',
      message_flow: 'Customers tick an SMS updates box at checkout on shop.example.com and confirm by text.',
      help_message: 'Scopes Shop Inc.: order help at shop.example.com/help or 1-800-555-0191.',
      optout_message: 'Scopes Shop Inc.: you are unsubscribed and will receive no more messages.',
      ...campaignAttributes,
    }),
    // The number's campaign link is this state's; the trunk it is attached to is the voice state's (a read).
    ...(withNumber
      ? [
          documentOf('PhoneNumber', 'support', {
            number: '+15125550101',
            app_id: { ref: 'pbx-in' },
            campaign_id: { ref: 'orders' },
          }),
        ]
      : []),
  ].join('\n---\n');
}

const account = accounts[0].authId;
const globalsOf = (state: string): GlobalOptions => ({
  endpoint: harness.emulator.url,
  state: path.join(harness.folder, state),
});
const context = (index = 0) => harness.context(harness.envOf(index), notes);
const reconcileIn = (folder: string, state: string, lock: boolean, readOnly = false) =>
  reconcile({ paths: [folder] }, globalsOf(state), approvalsFrom({}), context(), { lock, readOnly });
async function apply(folder: string, state: string) {
  const run = await reconcileIn(folder, state, true);
  return withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
}
async function planOf(folder: string, state: string, readOnly = false) {
  const run = await reconcileIn(folder, state, false, readOnly);
  await run.close();
  return run.plan;
}
const actions = (plan: { changes: Array<{ address: string; action: string }> }) =>
  plan.changes.filter((change) => change.action !== 'noop').map((change) => `${change.action} ${change.address}`);
const writes = () =>
  harness.emulator.runtime.log.list({ type: 'request' }).filter((entry) => entry.method !== 'GET').length;
async function api(method: 'GET', pathname: string) {
  const client = (await context().connect(globalsOf('x.json'), context().io)).client;
  try {
    return (await client.request<Record<string, unknown>>(method, pathname)).body;
  } finally {
    await client.close();
  }
}
const advance = (ms: number) =>
  fetch(`${harness.emulator.url}/__emulator/clock/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_ms: ms }),
  });

describe('two teams, one account', () => {
  it(
    'voice and messaging states each plan and apply their own kinds; a campaign number link refers to the other state’s trunk',
    { timeout: 60_000 },
    async () => {
      const voice = await claimState([], globalsOf('voice.json'), context(), parseScope(['voice']));
      const messagingClaim = await claimState([], globalsOf('messaging.json'), context(), parseScope(['messaging']));
      expect(voice.from).toEqual([]);
      const markers = (
        await readOwnershipMarkers(
          liveContext((await context().connect(globalsOf('x.json'), context().io)).client),
          true,
        )
      ).map((marker) => ownershipMarkerName(marker.lineage, marker.scope));
      expect(markers.sort()).toEqual(
        [
          `telform-owner:${messagingClaim.lineage} kinds=br.cp.pf.pn`,
          `telform-owner:${voice.lineage} kinds=ap.ou.sa.sc.ta.tc.tr`,
        ].sort(),
      );
      expect(markers.every((name) => name.length <= 120)).toBe(true);

      expect(await apply('voice', 'voice.json')).toMatchObject({ status: 'applied', failed: false });
      const trunk = await harness.entry('voice.json', 'Trunk/pbx-in');
      expect(await apply('messaging', 'messaging.json')).toMatchObject({ status: 'applied', failed: false });
      for (let round = 0; round < 4; round += 1) {
        await advance(60_000);
        await apply('messaging', 'messaging.json');
      }
      const number = await api('GET', '/Number/15125550101/');
      expect(number).toMatchObject({
        application: `/v1/Account/${account}/Zentrunk/Trunk/${trunk?.id ?? ''}/`,
        tendlc_campaign_id: (await harness.entry('messaging.json', 'Campaign/orders'))?.id,
        tendlc_registration_status: 'COMPLETED',
      });

      // Each sees only its own kinds: nothing to change, nothing unmanaged of the other's, no drift.
      const voicePlan = await planOf('voice', 'voice.json');
      expect(actions(voicePlan)).toEqual([]);
      expect(
        voicePlan.unmanaged
          .map((object) => object.kind)
          .filter((kind) => ['Profile', 'Brand', 'Campaign', 'PhoneNumber'].includes(kind)),
      ).toEqual([]);
      const messagingPlan = await planOf('messaging', 'messaging.json');
      expect(actions(messagingPlan)).toEqual([]);
      expect(
        messagingPlan.unmanaged
          .map((object) => object.kind)
          .filter((kind) => ['Trunk', 'OriginationUri', 'SipIpAcl', 'TrunkIpAcl'].includes(kind)),
      ).toEqual([]);
      expect(actions(await planOf('voice', 'voice.json', true))).toEqual([]);
      expect(actions(await planOf('messaging', 'messaging.json', true))).toEqual([]);
      // Import within the scope: the voice state imports nothing of messaging's.
      const imported = await importAccount(
        { kinds: [], out: 'voice-import', layout: 'per-kind' },
        globalsOf('voice.json'),
        context(),
      );
      expect(
        imported.imported
          .map((resource) => resource.kind)
          .filter(
            (kind) =>
              ![
                'Trunk',
                'OriginationUri',
                'SipIpAcl',
                'SipCredential',
                'TrunkIpAcl',
                'TrunkCredential',
                'ApplicationSipAuth',
              ].includes(kind),
          ),
      ).toEqual([]);
    },
  );

  it('a third claim that overlaps writes nothing and names the owner and the overlap; a document outside the scope is an error at its line', async () => {
    const voice = await claimState([], globalsOf('voice.json'), context(), parseScope(['voice']));
    const before = writes();
    const error = await claimState([], globalsOf('third.json'), context(), parseScope(['Trunk,Brand'])).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'account_owned' });
    expect((error as Error).message).toBe(
      `Trunk of account ${account} is owned by the telform ledger of lineage ${voice.lineage} (scope voice (ApplicationSipAuth, OriginationUri, SipCredential, SipIpAcl, Trunk, TrunkCredential, TrunkIpAcl)); to take it from that ledger, run telform state release with it first, or, if it is lost, telform state claim --take-over ${voice.lineage}`,
    );
    expect(writes()).toBe(before);
    // A prefix scope that overlaps is refused too; one of disjoint kinds is not.
    await expect(
      claimState([], globalsOf('fourth.json'), context(), parseScope(['Trunk', 'prefix=team-a-'])),
    ).rejects.toMatchObject({ code: 'account_owned' });
    await expect(claimState([], globalsOf('fifth.json'), context(), parseScope(['Brand']))).resolves.toMatchObject({
      already: false,
    });

    // Another scope's objects are never pruned or imported from here.
    const pruned = await reconcile(
      { paths: ['voice'] },
      globalsOf('voice.json'),
      approvalsFrom({ pruneUnmanaged: ['Brand'] }),
      context(),
      { lock: false },
    ).catch((caught: unknown) => caught);
    expect(pruned).toMatchObject({ code: 'out_of_scope' });
    expect((pruned as Error).message).toBe(
      "--prune-unmanaged Brand: outside the scope this state owns (voice (ApplicationSipAuth, OriginationUri, SipCredential, SipIpAcl, Trunk, TrunkCredential, TrunkIpAcl)); another state's objects are never pruned from here",
    );
    const imported = await importAccount(
      { kinds: ['Brand'], out: 'brands', layout: 'per-kind' },
      globalsOf('voice.json'),
      context(),
    ).catch((caught: unknown) => caught);
    expect(imported).toMatchObject({ code: 'out_of_scope' });
    await harness.write('voice/stray.yaml', documentOf('Brand', 'stray', { profile_uuid: 'p-1' }));
    const refused = await reconcileIn('voice', 'voice.json', false).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: 'invalid_manifests' });
    expect(notes.join('\n')).toContain('voice/stray.yaml:1:');
    expect(notes.join('\n')).toContain(
      'Brand/stray is outside the scope this state owns (voice (ApplicationSipAuth, OriginationUri, SipCredential, SipIpAcl, Trunk, TrunkCredential, TrunkIpAcl)): Brand is not among its kinds',
    );
  });

  it('two racing overlapping claims leave at most one owner', async () => {
    const results = await Promise.allSettled([
      claimState([], globalsOf('racer-a.json'), context(), parseScope(['voice'])),
      claimState([], globalsOf('racer-b.json'), context(), parseScope(['Trunk,TrunkIpAcl'])),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won.length).toBeLessThanOrEqual(1);
    const markers = await readOwnershipMarkers(
      liveContext((await context().connect(globalsOf('x.json'), context().io)).client),
      true,
    );
    expect(new Set(markers.map((marker) => marker.lineage)).size).toBeLessThanOrEqual(1);
  });

  it(
    'moves kinds from one state to another with --take-over: the other keeps the rest and lets go of what it gave',
    { timeout: 60_000 },
    async () => {
      const whole = await claimState([], globalsOf('all.json'), context(), undefined);
      expect(await apply('voice', 'all.json')).toMatchObject({ status: 'applied', failed: false });
      // The voice state takes voice from the whole-account state: never without an owner in between.
      const voice = await claimState([whole.lineage], globalsOf('voice.json'), context(), parseScope(['voice']));
      expect(voice.from).toEqual([whole.lineage]);
      const markers = await readOwnershipMarkers(
        liveContext((await context().connect(globalsOf('x.json'), context().io)).client),
        true,
      );
      expect(markers.map((marker) => ownershipMarkerName(marker.lineage, marker.scope)).sort()).toEqual(
        [
          `telform-owner:${whole.lineage} kinds=br.cp.pf.pn`,
          `telform-owner:${voice.lineage} kinds=ap.ou.sa.sc.ta.tc.tr`,
        ].sort(),
      );
      // The old state lets go of the trunk and its URI (never deleting them); the voice state adopts them.
      await harness.write('empty.yaml', documentOf('Profile', 'shop', profileSpec('Scopes Shop Inc.', '81-0000377')));
      const old = await planOf('empty.yaml', 'all.json');
      expect(actions(old)).toEqual(['create Profile/shop']);
      expect(notes.some((line) => line.includes('would forget OriginationUri/pbx, Trunk/pbx-in'))).toBe(true);
      const adopted = await planOf('voice', 'voice.json');
      expect(actions(adopted).sort()).toEqual(['adopt OriginationUri/pbx', 'adopt Trunk/pbx-in']);
      // A partial release keeps the rest.
      const released = await releaseState(globalsOf('all.json'), context(), parseScope(['PhoneNumber']));
      expect(released.scope).toEqual({ kinds: ['Brand', 'Campaign', 'Profile'] });
    },
  );

  it(
    'an accounts file gives each entry of one account its scope: each plans its own part, and a state owning another part is refused',
    { timeout: 60_000 },
    async () => {
      await claimState([], globalsOf('voice.json'), context(), parseScope(['voice']));
      await claimState([], globalsOf('messaging.json'), context(), parseScope(['messaging']));
      // The number's trunk is not made yet (the voice state has not applied): a read of it would fail.
      await harness.write('messaging/messaging.yaml', messaging(false));
      const credentials = { auth_id_env: 'TELFORM_AUTH_ID', auth_token_env: 'TELFORM_AUTH_TOKEN' };
      const entry = (name: string, scope: string, state: string) => ({
        name,
        manifests: name,
        credentials,
        state,
        endpoint: harness.emulator.url,
        scope,
      });
      await harness.write(
        'accounts.yaml',
        JSON.stringify({
          accounts: [entry('voice', 'voice', 'voice.json'), entry('messaging', 'messaging', 'messaging.json')],
        }),
      );
      const run = (file: string) =>
        runAccounts(
          {
            command: 'plan',
            accountsFile: file,
            only: [],
            accountParallelism: 1,
            globals: {},
            approvals: approvalsFrom({}),
            lock: false,
            step: planStep({}),
          },
          context(),
        );
      const report = await run('accounts.yaml');
      expect(report.accounts.map((account) => [account.name, account.status])).toEqual([
        ['messaging', 'changes'],
        ['voice', 'changes'],
      ]);
      await harness.write('swapped.yaml', JSON.stringify({ accounts: [entry('voice', 'messaging', 'voice.json')] }));
      const swapped = await run('swapped.yaml');
      expect(swapped.accounts[0]?.status).toBe('error');
      expect(swapped.accounts[0]?.summary).toContain(
        'the accounts file gives this account the scope messaging (Brand, Campaign, PhoneNumber, Profile), but its state owns voice (',
      );
    },
  );
});
