import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksOf, startQueueFleet, type QueueFleet } from './queue-fleet.js';

/**
 * `telform serve --queue`: replicas of the built CLI share the accounts of one accounts file through
 * a pg-boss queue on a throwaway PostgreSQL, against the emulator. What the accounts were sent comes
 * from the emulator's request log; which replica did what, from the jobs the queue kept. Sized for
 * `npm test` on a small machine (tens of accounts, intervals of seconds); `npm run bench:serve`
 * runs the same fleet at 3 × 300.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Jobs each replica finished, by step, from the queue's own table. */
async function doneByReplica(fleet: QueueFleet, since = new Date(0)): Promise<Map<string, number>> {
  const rows = await fleet.query<{ replica: string; count: string }>(
    `SELECT output->>'replica' AS replica, count(*) FROM pgboss.job
      WHERE name = 'telform-serve' AND state = 'completed' AND output->>'step' = 'check' AND started_on >= $1
      GROUP BY 1`,
    [since],
  );
  return new Map(rows.map((row) => [row.replica, Number(row.count)]));
}

describe('replicas sharing a queue', () => {
  const intervalMs = 3_000;
  const jitter = 0.1;
  let fleet: QueueFleet;

  beforeAll(async () => {
    fleet = await startQueueFleet({
      accounts: 30,
      latency: '2-6',
      replicaArgs: ['--interval', '3s', '--jitter', String(jitter), '--check-expiry', '10s'],
    });
  }, 60_000);
  afterAll(async () => fleet?.close());

  it('check every account once per interval, one replica at a time, the work spread evenly; a fourth replica takes a share', async () => {
    await Promise.all(['r1', 'r2', 'r3'].map((name) => fleet.startReplica(name)));
    // The spread is counted after the first interval, when every account's first check came due at once.
    const settled = new Date(Date.now() + intervalMs);
    await sleep(intervalMs * 6);
    const spread = await doneByReplica(fleet, settled);
    const fourthAt = new Date();
    await fleet.startReplica('r4');
    await sleep(intervalMs * 2);
    const afterFourth = await doneByReplica(fleet, fourthAt);

    // No two checks of one account overlap, and none comes sooner than the interval less its jitter.
    const requests = fleet.requestsByAccount();
    expect([...requests.keys()].sort()).toEqual(fleet.accounts);
    const gaps: number[] = [];
    for (const [account, list] of requests) {
      const checks = checksOf(list);
      expect(checks.overlaps, account).toEqual([]);
      for (let index = 1; index < checks.spans.length; index += 1) {
        const gap =
          (checks.spans[index] as { startMs: number }).startMs - (checks.spans[index - 1] as { endMs: number }).endMs;
        gaps.push(gap);
        expect(gap, account).toBeGreaterThanOrEqual(intervalMs * (1 - jitter) - 50);
      }
      // Every account is looked at every interval: about eight looks in eight intervals.
      expect(checks.spans.length, account).toBeGreaterThanOrEqual(6);
    }
    const counts = [...spread.values()];
    const mean = counts.reduce((sum, count) => sum + count, 0) / counts.length;
    console.log(
      `3 replicas × ${fleet.accounts.length} accounts, ${intervalMs / 1000} s interval: checks per replica over intervals 2 to 6`,
      Object.fromEntries(spread),
      `gap between checks of an account: min ${Math.min(...gaps)} ms, max ${Math.max(...gaps)} ms;`,
      'after a fourth replica joined, over 2 intervals:',
      Object.fromEntries(afterFourth),
    );
    expect([...spread.keys()].sort()).toEqual(['r1', 'r2', 'r3']);
    for (const count of counts) expect(Math.abs(count - mean) / mean).toBeLessThanOrEqual(0.2);
    // The fourth replica took a share (at least half of a fair quarter) within two intervals.
    const total = [...afterFourth.values()].reduce((sum, count) => sum + count, 0);
    expect(afterFourth.get('r4') ?? 0).toBeGreaterThanOrEqual(Math.floor(total / 8));
  }, 90_000);

  it('each replica says who it is: in its log, its events, its metrics and its page; the fleet view reads the queue', async () => {
    const r2 = fleet.replicas.get('r2');
    if (!r2) throw new Error('r2 did not start');
    expect(r2.logs.find((line) => line.msg === 'listening')).toMatchObject({ replica: 'r2', accounts: 30 });
    const events = [...fleet.replicas.values()].flatMap((replica) => replica.events);
    // Each account's first status is announced once in the fleet, by the replica that first looked.
    const firsts = events.filter((event) => event.type === 'account_status');
    expect(firsts.map((event) => event.account).sort()).toEqual(fleet.accounts);
    for (const event of firsts) expect(['r1', 'r2', 'r3']).toContain(event.replica);
    const metrics = await (await fetch(`${r2.url}/metrics`)).text();
    expect(metrics).toContain('telform_replica_info{replica="r2"} 1');
    expect(metrics).toMatch(/telform_queue_jobs\{state="scheduled"\} \d+/);
    expect(metrics).toMatch(/telform_queue_jobs_done_total\{step="check",result="done"\} [1-9]/);
    const page = await (await fetch(`${r2.url}/`)).text();
    expect(page).toContain('Replica r2: what it looked at.');
    expect(page).toMatch(/\d+ waiting, \d+ running, \d+ late,\s+\d+ scheduled\./);
    for (const name of ['r1', 'r2', 'r3', 'r4']) expect(page).toContain(`<tr data-replica="${name}">`);
  });
});

describe('a replica killed mid-apply', () => {
  let fleet: QueueFleet;

  beforeAll(async () => {
    fleet = await startQueueFleet({
      accounts: 8,
      latency: '150-250',
      replicaArgs: [
        '--interval',
        '30s',
        '--apply',
        'safe',
        '--check-expiry',
        '3s',
        '--apply-expiry',
        '4s',
        '--drain-timeout',
        '2s',
      ],
    });
  }, 60_000);
  afterAll(async () => fleet?.close());

  it('has its jobs taken over after their expiry, and the apply it had under way settled, not repeated', async () => {
    const doomed = await fleet.startReplica('doomed');
    // The first create sent: the doomed replica is applying an account now.
    await waitFor(
      'a create',
      async () => fleet.emulator.runtime.log.list({ type: 'request' }).find((entry) => entry.method === 'POST'),
      30_000,
    );
    await doomed.stop('SIGKILL');
    const killedAt = Date.now();
    const held = await fleet.query<{ account: string; step: string }>(
      `SELECT singleton_key AS account, data->>'step' AS step FROM pgboss.job WHERE name = 'telform-serve' AND state = 'active'`,
    );
    expect(held.some((job) => job.step === 'apply')).toBe(true);
    await Promise.all(['r1', 'r2'].map((name) => fleet.startReplica(name)));

    // Each job the doomed replica held is done again by another replica, within its expiry + 5 s.
    for (const job of held) {
      const expiryMs = job.step === 'apply' ? 4_000 : 3_000;
      const retaken = await waitFor(
        `${job.account} taken over`,
        async () =>
          (
            await fleet.query<{ started: Date }>(
              `SELECT started_on AS started FROM pgboss.job WHERE name = 'telform-serve' AND singleton_key = $1
                AND started_on > to_timestamp($2 / 1000.0) ORDER BY started_on LIMIT 1`,
              [job.account, killedAt],
            )
          )[0],
        30_000,
      );
      console.log(`${job.account} (${job.step}) taken over ${retaken.started.getTime() - killedAt} ms after the kill`);
      expect(retaken.started.getTime() - killedAt).toBeLessThan(expiryMs + 5_000);
    }

    // Every account ends in sync: one access list each, created once (one POST), whoever applied it.
    const replicas = [fleet.replicas.get('r1'), fleet.replicas.get('r2')];
    for (const account of fleet.accounts)
      await waitFor(
        `${account} in sync`,
        async () =>
          replicas
            .flatMap((replica) => replica?.events ?? [])
            .find((event) => event.account === account && event.type === 'account_status' && event.to === 'in_sync'),
        60_000,
      );
    for (const [account, list] of fleet.requestsByAccount()) {
      const creates = list.filter((entry) => entry.method === 'POST' && entry.path.endsWith('/IPAccessControlList/'));
      expect(creates.length, account).toBe(1);
      const live = await fleet.api(account, '/Zentrunk/IPAccessControlList/');
      expect(live.objects?.filter((object) => object.name === 'office').length, account).toBe(1);
    }
  }, 120_000);
});

describe('a replica killed mid-check', () => {
  let fleet: QueueFleet;

  beforeAll(async () => {
    fleet = await startQueueFleet({
      accounts: 4,
      // Each read takes six seconds or more, so the checks still read when the second replica is up; the
      // expiry is longer than a check, as it must be.
      latency: '6000-6500',
      replicaArgs: ['--interval', '60s', '--check-expiry', '15s'],
    });
  }, 60_000);
  afterAll(async () => fleet?.close());

  it('has its checks done again by a running replica within the expiry and 5 s', async () => {
    const doomed = await fleet.startReplica('doomed');
    await waitFor('checks under way', async () => ((await activeJobs(fleet)).length > 0 ? true : undefined), 30_000);
    // As in a fleet, the replica that takes over is running when the other dies. It cannot have taken
    // a job yet: every account's job is running or an interval away, so the running jobs are doomed's.
    await fleet.startReplica('r1');
    const held = await activeJobs(fleet);
    await doomed.stop('SIGKILL');
    const killedAt = Date.now();
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((job) => job.step === 'check')).toBe(true);
    for (const job of held) {
      const retaken = await waitFor(
        `${job.account} checked by r1`,
        async () =>
          (
            await fleet.query<{ started: Date }>(
              `SELECT started_on AS started FROM pgboss.job WHERE name = 'telform-serve' AND singleton_key = $1
                AND output->>'replica' = 'r1' ORDER BY started_on LIMIT 1`,
              [job.account],
            )
          )[0],
        30_000,
      );
      console.log(`${job.account} (check) taken over ${retaken.started.getTime() - killedAt} ms after the kill`);
      expect(retaken.started.getTime() - killedAt).toBeLessThan(15_000 + 5_000);
    }
  }, 120_000);
});

/** The jobs running now: account and step. */
async function activeJobs(fleet: QueueFleet): Promise<Array<{ account: string; step: string }>> {
  return fleet.query<{ account: string; step: string }>(
    `SELECT singleton_key AS account, data->>'step' AS step FROM pgboss.job WHERE name = 'telform-serve' AND state = 'active'`,
  );
}

describe('a storm of callbacks', () => {
  // Longer than the storm takes to send on a busy machine: every callback of an account falls in the
  // window its first one opened, or in the one after, so the bound below holds however slow the sending.
  const windowMs = 10_000;
  let fleet: QueueFleet;

  beforeAll(async () => {
    fleet = await startQueueFleet({
      accounts: 10,
      replicaArgs: ['--interval', '10m', '--callback-window', `${windowMs / 1000}s`],
    });
  }, 60_000);
  afterAll(async () => fleet?.close());

  it('1,000 callbacks for 10 accounts, sent to two replicas at once, make one check per account (two at most)', async () => {
    const replicas = await Promise.all(['r1', 'r2'].map((name) => fleet.startReplica(name)));
    // The first check of every account, at start.
    await waitFor('first checks', async () => (fleet.requestsByAccount().size === 10 ? true : undefined), 30_000);
    await sleep(1_000);
    const before = new Map(
      [...fleet.requestsByAccount()].map(([account, list]) => [account, checksOf(list).spans.length]),
    );
    // Signed before the storm begins, sent on kept-alive sockets a hundred at a time: the storm is as
    // close to one second as this machine sends it.
    const storm = Array.from({ length: 1_000 }, (_, index) => {
      const account = fleet.accounts[index % 10] as string;
      const url = `${(replicas[index % 2] as { url: string }).url}/callbacks/${account}`;
      const nonce = `storm-${index}`;
      const token = `token-of-${account}-queue-fleet`;
      return {
        url,
        headers: {
          'x-plivo-signature-v2': createHmac('sha256', token).update(`${url}${nonce}`).digest('base64'),
          'x-plivo-signature-v2-nonce': nonce,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ type: 'campaign', campaign_id: `CSTORM${index % 10}`, status: 'ACTIVE' }),
      };
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 100 });
    const post = (callback: (typeof storm)[number]) =>
      new Promise<number>((resolve, reject) => {
        const sent = request(callback.url, { method: 'POST', headers: callback.headers, agent }, (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 0));
        });
        sent.on('error', reject);
        sent.end(callback.body);
      });
    const stormStarted = new Date();
    const statuses: number[] = [];
    for (let offset = 0; offset < storm.length; offset += 100)
      statuses.push(...(await Promise.all(storm.slice(offset, offset + 100).map(post))));
    const stormMs = Date.now() - stormStarted.getTime();
    agent.destroy();
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Every account's window has closed and its check is done.
    await waitFor(
      'the checks the storm asked for',
      async () => {
        const [row] = await fleet.query<{ running: string }>(
          `SELECT count(*) AS running FROM pgboss.job WHERE name = 'telform-serve' AND state < 'completed'
            AND data->>'cause' = 'callback'`,
        );
        return Number(row?.running) === 0 ? true : undefined;
      },
      windowMs * 3,
    );
    const jobs = await fleet.query<{ account: string; replica: string }>(
      `SELECT singleton_key AS account, output->>'replica' AS replica FROM pgboss.job
        WHERE name = 'telform-serve' AND state = 'completed' AND data->>'cause' = 'callback' AND started_on >= $1`,
      [stormStarted],
    );
    let checks = 0;
    const made = new Map<string, number>();
    for (const [account, list] of fleet.requestsByAccount()) {
      const { spans, overlaps } = checksOf(list);
      expect(overlaps, account).toEqual([]);
      made.set(account, spans.length - (before.get(account) ?? 0));
      checks += made.get(account) ?? 0;
    }
    console.log(
      `1,000 callbacks for 10 accounts sent in ${stormMs} ms to 2 replicas (window ${windowMs / 1000} s): ${checks} checks in the request log,`,
      `${jobs.length} callback jobs in the queue`,
      Object.fromEntries(made),
    );
    // The emulator's request log and the queue's jobs count the same checks.
    expect(jobs.length).toBe(checks);
    for (const [account, count] of made) {
      expect(count, account).toBeGreaterThanOrEqual(1);
      expect(count, account).toBeLessThanOrEqual(2);
    }
    expect(checks).toBeLessThanOrEqual(20);
  }, 120_000);
});

describe('a replica stopped mid-check', () => {
  let fleet: QueueFleet;

  beforeAll(async () => {
    fleet = await startQueueFleet({
      accounts: 4,
      latency: '3000-3500',
      replicaArgs: ['--interval', '30s', '--check-expiry', '60s', '--drain-timeout', '1s'],
    });
  }, 60_000);
  afterAll(async () => fleet?.close());

  it('hands back on SIGTERM the checks it cannot finish within the drain, and another replica takes them at once', async () => {
    const leaving = await fleet.startReplica('leaving');
    // Checks under way: each of their reads takes over three seconds.
    const running = await waitFor(
      'a check under way',
      async () => {
        const rows = await fleet.query<{ account: string }>(
          `SELECT singleton_key AS account FROM pgboss.job WHERE name = 'telform-serve' AND state = 'active'`,
        );
        return rows.length > 0 ? rows : undefined;
      },
      30_000,
    );
    const stoppedAt = Date.now();
    expect(await leaving.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const handedBack = leaving.logs.filter((line) => line.msg === 'job handed back').map((line) => line.account);
    expect(handedBack.sort()).toEqual(running.map((row) => row.account).sort());
    await fleet.startReplica('staying');
    // Each handed-back account is checked again by the other replica at once, not after its 60 s expiry.
    for (const account of handedBack) {
      const retaken = await waitFor(
        `${String(account)} taken by the other replica`,
        async () =>
          (
            await fleet.query<{ started: Date }>(
              `SELECT started_on AS started FROM pgboss.job WHERE name = 'telform-serve' AND singleton_key = $1
                AND state = 'completed' AND output->>'replica' = 'staying' ORDER BY started_on LIMIT 1`,
              [account],
            )
          )[0],
        30_000,
      );
      expect(retaken.started.getTime() - stoppedAt).toBeLessThan(30_000);
    }
  }, 90_000);
});
