// The ownership marker against what a real account (or an adversary) can hold: a create answer
// without a known id field, ACLs named like markers, a forged second marker, a deleted marker, and
// an account already at the API's 100 SIP IP ACLs.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation, type Reconciliation } from '../../src/run/reconcile.js';
import { readOwnershipMarkers } from '../../src/resources/ownership-marker.js';
import { shellQuote } from '../../src/util/shell-quote.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let notes: string[];

beforeEach(async () => {
  harness = await startHarness();
  notes = [];
  await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.5'] }));
});
afterEach(async () => {
  await harness.close();
});

const account = accounts[0].authId;
const globalsOf = (state: string): GlobalOptions => ({
  endpoint: harness.emulator.url,
  state: path.join(harness.folder, state),
});
const reconcileAs = (state: string, lock: boolean, readOnly = false, file = 'acl.yaml') =>
  reconcile({ paths: [file] }, globalsOf(state), approvalsFrom({}), harness.context(harness.envOf(0), notes), {
    lock,
    readOnly,
  });
const apply = async (state: string, file = 'acl.yaml') => {
  const run = await reconcileAs(state, true, false, file);
  return withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
};
const lineageOf = async (run: Reconciliation) => {
  const lineage = run.store.ledger.lineage;
  await run.close();
  return lineage;
};
async function createAcl(run: Reconciliation, name: string): Promise<string> {
  const answer = await run.live.client.request<{ ip_acl_uuid: string }>('POST', '/SipAuth/IpAccessControlList/', {
    body: { name },
  });
  return answer.body.ip_acl_uuid;
}

describe('the marker read back by name', () => {
  it('claims the account when the create answer names the new ACL with an unknown id field', async () => {
    const run = await reconcileAs('a.state.json', true);
    const client = run.live.client;
    const send = client.request.bind(client);
    // Production's answer to the ACL create is undocumented: here it carries the id as "id".
    const renaming: ApiClient['request'] = async (method, pathname, options) => {
      const answer = await send<Record<string, unknown>>(method, pathname, options);
      if (method === 'POST' && pathname === '/SipAuth/IpAccessControlList/') {
        const { ip_acl_uuid: id, ...rest } = answer.body;
        return { ...answer, body: { ...rest, id } } as never;
      }
      return answer as never;
    };
    Object.assign(client, { request: renaming });
    const outcome = await withReconciliation(run, async () => {
      const applied = await applyReconciled(run, { parallelism: 4, waitMs: 0 });
      expect((await readOwnershipMarkers(run.live, true)).map((marker) => marker.lineage)).toEqual([
        run.store.ledger.lineage,
      ]);
      return applied;
    });
    expect(outcome).toMatchObject({ status: 'applied', failed: false });
  });
});

describe('ACLs named like a marker', () => {
  it('counts only a marker whose lineage has the ledger format; any other is an ordinary ACL, said so, and never an owner', async () => {
    const setup = await reconcileAs('setup.state.json', false, true);
    const planted = 'telform-owner:x <a href=https://evil.example>Approve</a>; touch planted #';
    const id = await createAcl(setup, planted);
    await setup.close();
    const plan = await reconcileAs('a.state.json', false);
    await plan.close();
    expect(plan.claimsAccount).toBe(true);
    expect(notes).toContain(
      `note: SIP IP ACL ${id} is named like an ownership marker (${JSON.stringify(planted)}) but names no telform ledger: it is an ordinary ACL and claims nothing`,
    );
    expect(await apply('a.state.json')).toMatchObject({ status: 'applied', failed: false });
  });

  it('shell-quotes every value it puts into a suggested command', () => {
    expect(shellQuote('0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11')).toBe('0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11');
    expect(shellQuote('x; touch planted #')).toBe(`'x; touch planted #'`);
    expect(shellQuote(`it's $(id)`)).toBe(`'it'\\''s $(id)'`);
  });
});

describe('a second, forged marker', () => {
  it('is reported with the owner’s own marker, both by their ACL ids, and nothing is written', async () => {
    expect(await apply('owner.state.json')).toMatchObject({ status: 'applied' });
    const probe = await reconcileAs('owner.state.json', false);
    const mine = (await readOwnershipMarkers(probe.live, true))[0]?.id;
    const owner = await lineageOf(probe);
    const forged = '0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11';
    const setup = await reconcileAs('owner.state.json', false, true);
    const forgedId = await createAcl(setup, `telform-owner:${forged}`);
    await setup.close();
    const error = await reconcileAs('owner.state.json', false).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'account_contested' });
    expect((error as Error).message).toBe(
      `plan refused: account ${account} holds two ownership markers: this state's (${path.join(harness.folder, 'owner.state.json')}, lineage ${owner}, SIP IP ACL ${mine}) and lineage ${forged} (SIP IP ACL ${forgedId}); ` +
        'telform cannot tell which is the owner, so nothing is written; if that lineage is no telform state of yours, delete its SIP IP ACL in the console; if it is, hand over with telform state release and telform state claim',
    );
  });
});

describe('a marker deleted out of band', () => {
  it('is said by the owner’s plan and drift, and the next apply claims the account again', async () => {
    expect(await apply('owner.state.json')).toMatchObject({ status: 'applied' });
    const probe = await reconcileAs('owner.state.json', false, true);
    const marker = (await readOwnershipMarkers(probe.live, true))[0];
    await probe.live.client.request('DELETE', `/SipAuth/IpAccessControlList/${marker?.id ?? ''}/`);
    const owner = await lineageOf(probe);
    notes.length = 0;
    const drift = await reconcileAs('owner.state.json', false, true);
    await drift.close();
    const warning = notes.find((line) => line.startsWith('warning: '));
    expect(warning).toMatch(
      new RegExp(
        `^warning: the state ${path.join(harness.folder, 'owner.state.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(lineage ${owner}\\) claimed account ${account} at \\S+, but the account holds no ownership marker of it: it was deleted outside telform, so other states see the account as nobody's; the next apply claims it again \\(or run telform state claim now\\)$`,
      ),
    );
    notes.length = 0;
    const plan = await reconcileAs('owner.state.json', false);
    await plan.close();
    expect(notes.filter((line) => line.startsWith('warning: '))).toEqual([warning]);
  });
});

describe('an account at the API’s 100 SIP IP ACLs', () => {
  it('the first plan predicts the marker’s need and says what to free, naming no create the user did not ask for', async () => {
    const setup = await reconcileAs('setup.state.json', false, true);
    for (let index = 0; index < 100; index += 1) await createAcl(setup, `legacy-${index}`);
    await setup.close();
    const error = await reconcileAs('a.state.json', false).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'acl_quota' });
    expect((error as Error).message).toBe(
      `plan refused: account ${account} holds 100 SIP IP ACLs and this plan needs 1 for the ownership marker that claims the account for this state, 101 in all, over the 100 the API allows; ` +
        'free 1: remove SipIpAcl documents, or delete ACLs nobody needs (telform plan --show-unmanaged lists those no state manages; --prune-unmanaged SipIpAcl deletes them)',
    );
  });

  it('a plan whose SipIpAcl documents exceed the limit is refused at plan time, counting the marker too', async () => {
    expect(await apply('owner.state.json')).toMatchObject({ status: 'applied' });
    const setup = await reconcileAs('owner.state.json', false, true);
    for (let index = 0; index < 97; index += 1) await createAcl(setup, `legacy-${index}`);
    await setup.close();
    await harness.write(
      'acls.yaml',
      [
        documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.5'] }),
        documentOf('SipIpAcl', 'one', {}),
        documentOf('SipIpAcl', 'two', {}),
        documentOf('SipIpAcl', 'three', {}),
      ].join('\n---\n'),
    );
    const error = await reconcileAs('owner.state.json', false, false, 'acls.yaml').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'acl_quota' });
    expect((error as Error).message).toBe(
      `plan refused: account ${account} holds 98 SIP IP ACLs and this plan needs 3 created by the manifests, 101 in all, over the 100 the API allows; ` +
        'free 1: remove SipIpAcl documents, or delete ACLs nobody needs (telform plan --show-unmanaged lists those no state manages; --prune-unmanaged SipIpAcl deletes them)',
    );
    // Two fit.
    await harness.write(
      'acls.yaml',
      [
        documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.5'] }),
        documentOf('SipIpAcl', 'one', {}),
        documentOf('SipIpAcl', 'two', {}),
      ].join('\n---\n'),
    );
    expect(await apply('owner.state.json', 'acls.yaml')).toMatchObject({ status: 'applied', failed: false });
  });
});
