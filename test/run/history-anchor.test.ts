import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { setHistoryRetention, verifyStateHistory } from '../../src/run/history-read.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { revertOf } from '../../src/run/revert.js';
import { recordHash, type HistoryRecord } from '../../src/state/history.js';
import { startHarness, type Harness } from './harness.js';

// The end of a file state's history is anchored in its ledger: three applies, then the history cut
// short, emptied, deleted or cut at its start by hand — each is a `verify` failure naming what went,
// while what retention dropped still verifies. A revert refuses a record `verify` rejects.

let harness: Harness;
let state: string;
let saved: { ledger: string; history: string };
const globals = (): GlobalOptions => ({ endpoint: harness.emulator.url, state });
const acl = (ip: string) =>
  JSON.stringify({
    apiVersion: 'telform/v1',
    kind: 'TrunkIpAcl',
    metadata: { name: 'office' },
    spec: { ip_addresses: [ip] },
  });

async function apply(): Promise<void> {
  const run = await reconcile(
    { paths: ['acl.yaml'] },
    globals(),
    approvalsFrom({}),
    harness.context(harness.envOf(0)),
    {
      lock: true,
    },
  );
  expect((await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }))).status).toBe(
    'applied',
  );
}
const verdict = async () => (await verifyStateHistory(globals(), harness.context(harness.envOf(0)))).verdict;
const historyLines = async () => (await readFile(`${state}.history`, 'utf8')).trim().split('\n');
const writeLines = (lines: string[]) => writeFile(`${state}.history`, lines.map((line) => `${line}\n`).join(''));

beforeAll(async () => {
  harness = await startHarness();
  state = path.join(harness.folder, 'anchor.state.json');
  for (const ip of ['203.0.113.10', '203.0.113.11', '203.0.113.12']) {
    await harness.write('acl.yaml', acl(ip));
    await apply();
  }
  saved = { ledger: await readFile(state, 'utf8'), history: await readFile(`${state}.history`, 'utf8') };
});
beforeEach(async () => {
  await writeFile(state, saved.ledger);
  await writeFile(`${state}.history`, saved.history);
});
afterAll(async () => {
  await harness.close();
});

describe('the anchored end of the history (file state)', () => {
  it('verifies three applies, anchored by the ledger', async () => {
    expect(await verdict()).toEqual({ ok: true, count: 3, first: 1, last: 3, trimmed: false, anchored: true });
    const ledger = JSON.parse(saved.ledger) as { history_head: unknown };
    const last = JSON.parse((await historyLines())[2] as string) as HistoryRecord;
    expect(ledger.history_head).toEqual({ seq: 3, hash: last.hash, count: 3, first: 1 });
  });

  it('names the newest record removed by hand', async () => {
    await writeLines((await historyLines()).slice(0, 2));
    expect(await verdict()).toMatchObject({
      ok: false,
      seq: 3,
      problem: 'the history ends at #2, but the ledger anchors #3 as its newest: #3 was removed from its end',
    });
  });

  it('names a history emptied or deleted', async () => {
    const problem =
      'the history holds no records, but the ledger anchors #3 as its newest (3 kept): it was emptied or deleted';
    await writeFile(`${state}.history`, '');
    expect(await verdict()).toMatchObject({ ok: false, problem });
    await rm(`${state}.history`);
    expect(await verdict()).toMatchObject({ ok: false, problem });
  });

  it('does not blame retention for the oldest record removed by hand', async () => {
    await writeLines((await historyLines()).slice(1));
    expect(await verdict()).toMatchObject({
      ok: false,
      problem:
        'the history starts at #2, but retention kept it from #1: #1 was removed from its start, not by retention',
    });
  });

  it('names a newest record rewritten with its hash made again', async () => {
    const lines = await historyLines();
    const { hash: _old, ...rest } = JSON.parse(lines[2] as string) as HistoryRecord;
    const forged = { ...rest, origin: { actor: 'someone-else' } };
    await writeLines([...lines.slice(0, 2), JSON.stringify({ ...forged, hash: recordHash(forged as HistoryRecord) })]);
    expect(await verdict()).toMatchObject({
      ok: false,
      problem: "record #3 is not the one the ledger anchored (its hash differs): the history's end was rewritten",
    });
    await expect(revertOf(3, globals(), harness.context(harness.envOf(0)))).rejects.toThrow(
      /^apply #3 cannot be reverted: the history of .* does not verify \(record #3 is not the one the ledger anchored/,
    );
  });

  it('fails a ledger written before the anchor whose history is gone, by its serial', async () => {
    const { history_head: _head, ...legacy } = JSON.parse(saved.ledger) as Record<string, unknown>;
    await writeFile(state, JSON.stringify(legacy));
    await rm(`${state}.history`);
    expect(await verdict()).toMatchObject({
      ok: false,
      problem: `the history holds no records, but the ledger is at serial ${String(legacy.serial)} (it was written ${String(legacy.serial)} times): the history was lost or never kept with the state`,
    });
  });

  it('records what retention dropped, and verifies it', async () => {
    const set = await setHistoryRetention(2, globals(), harness.context(harness.envOf(0)));
    expect(set.dropped).toBe(2);
    expect(await verdict()).toEqual({ ok: true, count: 2, first: 3, last: 4, trimmed: true, anchored: true });
    expect((JSON.parse(await readFile(state, 'utf8')) as { history_head: unknown }).history_head).toMatchObject({
      seq: 4,
      count: 2,
      first: 3,
    });
  });
});
