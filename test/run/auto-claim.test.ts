// The automatic fence, in process: the first apply of an account nobody owns claims it as its first
// write, and a claim that meets another lineage's marker backs off before any other write.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom, reconcile, withReconciliation, type Reconciliation } from '../../src/run/reconcile.js';
import { openState } from '../../src/run/state-location.js';
import { readOwnershipMarkers } from '../../src/resources/ownership-marker.js';
import { claimRequests } from '../../src/state/ownership.js';
import { TelformError } from '../../src/util/errors.js';
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
// A rival's lineage: a marker counts only when it names a lineage of the ledger's own format.
const rival = '5f0c3d2a-9b1e-4c7d-8e6f-1a2b3c4d5e6f';
const globalsOf = (state: string): GlobalOptions => ({
  endpoint: harness.emulator.url,
  state: path.join(harness.folder, state),
});
const reconcileAs = (state: string, lock: boolean, readOnly = false) =>
  reconcile({ paths: ['acl.yaml'] }, globalsOf(state), approvalsFrom({}), harness.context(harness.envOf(0), notes), {
    lock,
    readOnly,
  });

/** The requests other than GET the emulator received after `since` (its log's sequence number). */
function writesSince(since: number): Array<{ method: string; path: string }> {
  return harness.emulator.runtime.log
    .list({ type: 'request' })
    .filter((entry) => entry.seq > since && entry.method !== 'GET')
    .map((entry) => ({ method: entry.method, path: entry.path }));
}
const lastSeq = () => harness.emulator.runtime.log.list().at(-1)?.seq ?? 0;
const aclCollection = `/v1/Account/${account}/SipAuth/IpAccessControlList/`;

async function ownershipHistory(state: string): Promise<string[]> {
  const store = await openState(globalsOf(state), {}, { lock: false });
  try {
    return (store.ledger.ownership ?? []).map((event) => event.action);
  } finally {
    await store.close();
  }
}

async function markerLineages(run: Reconciliation): Promise<string[]> {
  return (await readOwnershipMarkers(run.live, true)).map((marker) => marker.lineage);
}

describe('the first apply of an account nobody owns', () => {
  it('says so in the plan, counts the claim in the estimate, and claims the account before any other write', async () => {
    const read = await reconcileAs('a.state.json', false, true);
    const readRequests = read.plan.summary.api_requests;
    await read.close();
    expect(read.claimsAccount).toBe(false);
    expect(notes).toEqual([]);

    const plan = await reconcileAs('a.state.json', false);
    await plan.close();
    expect(plan.claimsAccount).toBe(true);
    expect(plan.plan.summary.api_requests).toBe(readRequests + claimRequests);
    expect(notes).toEqual([
      `note: this apply claims account ${account} for the new state ${path.join(harness.folder, 'a.state.json')}: nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read the account (hand-over: telform state release and telform state claim)`,
    ]);

    const since = lastSeq();
    const run = await reconcileAs('a.state.json', true);
    const outcome = await withReconciliation(run, async () => {
      const applied = await applyReconciled(run, { parallelism: 4, waitMs: 0 });
      expect(await markerLineages(run)).toEqual([run.store.ledger.lineage]);
      return applied;
    });
    expect(outcome).toMatchObject({ status: 'applied', failed: false });
    const writes = writesSince(since);
    expect(writes.map((write) => `${write.method} ${write.path}`)).toEqual([
      `POST ${aclCollection}`,
      `POST /v1/Account/${account}/Zentrunk/IPAccessControlList/`,
    ]);
    expect(await ownershipHistory('a.state.json')).toEqual(['claim']);

    // The owner goes on without claiming again; a second state is refused before it plans anything.
    const again = await reconcileAs('a.state.json', false);
    await again.close();
    expect(again.claimsAccount).toBe(false);
    await expect(reconcileAs('b.state.json', false)).rejects.toMatchObject({ code: 'account_owned' });
  });

  it('refuses, without writing, when another state claimed the account after the plan was made', async () => {
    const run = await reconcileAs('a.state.json', true);
    expect(run.claimsAccount).toBe(true);
    const rivalAcl = await run.live.client.request<{ ip_acl_uuid: string }>('POST', '/SipAuth/IpAccessControlList/', {
      body: { name: `telform-owner:${rival}` },
    });
    expect(rivalAcl.status).toBe(201);
    const since = lastSeq();
    const error = await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TelformError);
    expect(error).toMatchObject({ code: 'account_owned' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^apply refused: account MAOPSONE000000000001 is owned by the telform ledger of lineage ${rival}, not by a new state `,
      ),
    );
    expect(writesSince(since)).toEqual([]);
    // Refused before the new state was first stored.
    expect(existsSync(path.join(harness.folder, 'a.state.json'))).toBe(false);
  });

  it('backs off when another lineage made its marker at the same time: its own marker is removed and nothing else is written', async () => {
    const run = await reconcileAs('a.state.json', true);
    const client = run.live.client;
    const send = client.request.bind(client);
    // The rival's marker lands between this claim's create and its re-read.
    const racing: ApiClient['request'] = async (method, pathname, options) => {
      const answer = await send(method, pathname, options);
      const body = options?.body as { name?: string } | undefined;
      if (
        method === 'POST' &&
        pathname === '/SipAuth/IpAccessControlList/' &&
        body?.name?.startsWith('telform-owner:') &&
        body.name !== `telform-owner:${rival}`
      ) {
        await send('POST', '/SipAuth/IpAccessControlList/', { body: { name: `telform-owner:${rival}` } });
      }
      return answer as never;
    };
    Object.assign(client, { request: racing });
    const since = lastSeq();
    const error = await withReconciliation(run, async () => {
      const caught = await applyReconciled(run, { parallelism: 4, waitMs: 0 }).catch((failure: unknown) => failure);
      expect(await markerLineages(run)).toEqual([rival]);
      return caught;
    });
    expect(error).toMatchObject({ code: 'account_owned' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^apply refused: account MAOPSONE000000000001 was claimed by the telform ledger of lineage ${rival} while the state \\S+a\\.state\\.json \\(lineage [0-9a-f-]+\\) was claiming it; nothing else was written; `,
      ),
    );
    const writes = writesSince(since).map((write) => write.method);
    expect(writes).toEqual(['POST', 'POST', 'DELETE']);
    expect(writesSince(since).every((write) => write.path.startsWith(aclCollection))).toBe(true);
    expect(await ownershipHistory('a.state.json')).toEqual([]);
  });
});
