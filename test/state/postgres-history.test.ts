import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { readStateHistory, verifyStateHistory } from '../../src/run/history-read.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { reconcileRevert } from '../../src/run/revert.js';
import { startHarness, type Harness } from '../run/harness.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

// The history of a PostgreSQL state, against the emulator in process: applies and a revert append
// chained records to telform_history, `verify` accepts them, and an edited row is named.

let server: PostgresServer;
let url: string;
let harness: Harness;
const globals = (): GlobalOptions => ({ endpoint: harness.emulator.url, state: url, workspace: 'pbx' });
const acl = (addresses: string[]) =>
  JSON.stringify({
    apiVersion: 'telform/v1',
    kind: 'TrunkIpAcl',
    metadata: { name: 'office' },
    spec: { ip_addresses: addresses },
  });

async function apply(): Promise<void> {
  const run = await reconcile(
    { paths: ['acl.yaml'] },
    globals(),
    approvalsFrom({}),
    harness.context(harness.envOf(0)),
    { lock: true },
  );
  expect((await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }))).status).toBe(
    'applied',
  );
}

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('history');
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
  await server?.stop();
});

describe('the history in a PostgreSQL state', () => {
  it('records two applies and a revert of the second, verifies them, and names an edited record', async () => {
    const context = harness.context(harness.envOf(0));
    await harness.write('acl.yaml', acl(['203.0.113.10', '198.51.100.0/28']));
    await apply();
    await harness.write('acl.yaml', acl(['203.0.113.10']));
    await apply();
    const { run } = await reconcileRevert(2, globals(), approvalsFrom({}), context, { lock: true });
    const outcome = await withReconciliation(run, async () => {
      expect(
        run.plan.changes.map((change) => [
          change.address,
          change.action,
          change.action === 'update' ? change.after : undefined,
        ]),
      ).toEqual([
        ['TrunkIpAcl/office', 'update', expect.objectContaining({ ip_addresses: ['203.0.113.10', '198.51.100.0/28'] })],
      ]);
      return applyReconciled(run, { parallelism: 4, waitMs: 0, history: { trigger: 'revert', reverts: 2 } });
    });
    expect(outcome.status).toBe('applied');

    const history = await readStateHistory(globals(), context);
    expect(
      history.records.map((record) => [record.seq, record.type, record.type === 'apply' ? record.trigger : undefined]),
    ).toEqual([
      [1, 'apply', 'apply'],
      [2, 'apply', 'apply'],
      [3, 'apply', 'revert'],
    ]);
    expect((await verifyStateHistory(globals(), context)).verdict).toEqual({
      ok: true,
      count: 3,
      first: 1,
      last: 3,
      trimmed: false,
      anchored: true,
    });

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        "UPDATE telform_history SET record = replace(record, '203.0.113.10', '203.0.113.11') WHERE workspace = 'pbx' AND record LIKE '%\"seq\":2,%'",
      );
    } finally {
      await client.end();
    }
    expect((await verifyStateHistory(globals(), context)).verdict).toMatchObject({ ok: false, position: 2, seq: 2 });
  });

  it('names the newest records deleted from the table, and the table emptied, by the anchor in the ledger', async () => {
    const context = harness.context(harness.envOf(0));
    await harness.write('acl.yaml', acl(['203.0.113.30']));
    const anchored = { ...globals(), workspace: 'anchored' };
    for (const ip of ['203.0.113.30', '203.0.113.31']) {
      await harness.write('acl.yaml', acl([ip]));
      const run = await reconcile(
        { paths: ['acl.yaml'] },
        anchored,
        approvalsFrom({}),
        harness.context(harness.envOf(1)),
        {
          lock: true,
        },
      );
      expect((await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }))).status).toBe(
        'applied',
      );
    }
    expect((await verifyStateHistory(anchored, context)).verdict).toMatchObject({ ok: true, count: 2, anchored: true });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        "DELETE FROM telform_history WHERE id = (SELECT max(id) FROM telform_history WHERE workspace = 'anchored')",
      );
      expect((await verifyStateHistory(anchored, context)).verdict).toMatchObject({
        ok: false,
        problem: 'the history ends at #1, but the ledger anchors #2 as its newest: #2 was removed from its end',
      });
      await client.query("DELETE FROM telform_history WHERE workspace = 'anchored'");
      expect((await verifyStateHistory(anchored, context)).verdict).toMatchObject({
        ok: false,
        problem:
          'the history holds no records, but the ledger anchors #2 as its newest (2 kept): it was emptied or deleted',
      });
    } finally {
      await client.end();
    }
  });
});
