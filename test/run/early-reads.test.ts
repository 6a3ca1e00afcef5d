// Reads started while the manifests load (docs/performance.md, overlap): plan lists what its state
// names before the manifests are checked, sends no request the run would not send anyway, and a
// manifest that fails validation stops it before any write; apply sends nothing before its
// manifests validate and it holds the lock.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { readAhead } from '../../src/run/early-reads.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { TelformError } from '../../src/util/errors.js';
import { connect, documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
const globals = (): GlobalOptions => ({
  endpoint: harness.emulator.url,
  state: path.join(harness.folder, 'early.state.json'),
});
const run = (file: string, lock: boolean) =>
  reconcile({ paths: [file] }, globals(), approvalsFrom({}), harness.context(harness.envOf(0)), { lock });
const lastSeq = () => harness.emulator.runtime.log.list().at(-1)?.seq ?? 0;

function requestsSince(since: number): Array<{ method: string; path: string }> {
  return harness.emulator.runtime.log
    .list({ type: 'request' })
    .filter((entry) => entry.seq > since)
    .map((entry) => ({ method: entry.method, path: entry.path }));
}

const valid = documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.5'] });
// An unknown field: an error whatever the account holds.
const invalid = documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.5'], colour: 'blue' });

beforeAll(async () => {
  harness = await startHarness();
  await harness.write('valid.yaml', valid);
  await harness.write('invalid.yaml', invalid);
  const first = await run('valid.yaml', true);
  await withReconciliation(first, (reconciled) => applyReconciled(reconciled, { parallelism: 4, waitMs: 0 }));
});
afterAll(async () => {
  await harness.close();
});

describe('reads while the manifests load', () => {
  it('a plan sends the same requests, counts them all as its reads, and plans from them', async () => {
    const since = lastSeq();
    const plan = await run('valid.yaml', false);
    await plan.close();
    const sent = requestsSince(since);
    expect(sent.every((request) => request.method === 'GET')).toBe(true);
    // Every list once: none read twice because it was started early.
    expect(new Set(sent.map((request) => `${request.path}`)).size).toBe(sent.length);
    expect(plan.plan.summary.api_reads).toBe(sent.length);
    expect(plan.plan.changes.map((change) => [change.address, change.action])).toEqual([['TrunkIpAcl/office', 'noop']]);
  });

  it('a plan of invalid manifests has started listing what its state names, and writes nothing', async () => {
    const since = lastSeq();
    // The paths the run's client was asked for: the emulator may never see a read the failed run aborted.
    const asked: string[] = [];
    const context = harness.context(harness.envOf(0));
    const watching: typeof connect = async (options, io) => {
      const session = await connect(options, io);
      const request = session.client.request.bind(session.client);
      session.client.request = (method, requested, options) => {
        asked.push(requested);
        return request(method, requested, options);
      };
      return session;
    };
    await expect(
      reconcile(
        { paths: ['invalid.yaml'] },
        globals(),
        approvalsFrom({}),
        { ...context, connect: watching },
        { lock: false },
      ),
    ).rejects.toBeInstanceOf(TelformError);
    expect(asked).toContain('/Zentrunk/IPAccessControlList/');
    expect(requestsSince(since).filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('reads started ahead by the command are taken over by the plan: each list once, all counted', async () => {
    const since = lastSeq();
    const context = harness.context(harness.envOf(0));
    const ahead = readAhead(globals(), context, { targets: [], destroy: false, prune: [] });
    await ahead.sent();
    const plan = await reconcile({ paths: ['valid.yaml'] }, globals(), approvalsFrom({}), context, {
      lock: false,
      readsAhead: ahead,
    });
    await plan.close();
    await ahead.release();
    const sent = requestsSince(since);
    expect(sent.every((request) => request.method === 'GET')).toBe(true);
    expect(new Set(sent.map((request) => request.path)).size).toBe(sent.length);
    expect(sent.map((request) => request.path)).toContain(
      `/v1/Account/${harness.envOf(0).TELFORM_AUTH_ID}/Zentrunk/IPAccessControlList/`,
    );
    expect(plan.plan.summary.api_reads).toBe(sent.length);
    expect(plan.plan.changes.map((change) => [change.address, change.action])).toEqual([['TrunkIpAcl/office', 'noop']]);
  });

  it('reads started ahead of a run that stops before it takes them are closed by release, and a second release does nothing', async () => {
    let closed = 0;
    const context = harness.context(harness.envOf(0));
    const counting: typeof connect = async (options, io) => {
      const session = await connect(options, io);
      const close = session.close.bind(session);
      session.close = async () => {
        closed += 1;
        await close();
      };
      return session;
    };
    const ahead = readAhead(globals(), { ...context, connect: counting }, { targets: [], destroy: false, prune: [] });
    await ahead.release();
    await ahead.release();
    expect(closed).toBe(1);
    expect(ahead.take()).toBeUndefined();
  });

  it('nothing is read ahead for --target or --destroy: the state is peeked, no session opened', async () => {
    let opened = 0;
    const context = harness.context(harness.envOf(0));
    const counting: typeof connect = async (options, io) => {
      opened += 1;
      return connect(options, io);
    };
    for (const request of [
      { targets: ['TrunkIpAcl/office'], destroy: false, prune: [] },
      { targets: [], destroy: true, prune: [] },
    ]) {
      const ahead = readAhead(globals(), { ...context, connect: counting }, request);
      const started = await ahead.take();
      expect(started?.ledger?.resources['TrunkIpAcl/office']).toBeDefined();
      expect(started?.session).toBeUndefined();
      await ahead.release();
    }
    expect(opened).toBe(0);
  });

  it('an apply of invalid manifests sends no request at all', async () => {
    const since = lastSeq();
    await expect(run('invalid.yaml', true)).rejects.toBeInstanceOf(TelformError);
    expect(requestsSince(since)).toEqual([]);
  });
});
