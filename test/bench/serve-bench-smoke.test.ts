import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repository } from '../e2e/cli.js';

/**
 * `npm run bench:serve` at its smallest (5 accounts, 10 measured intervals), end to end: the harness
 * keeps working and what it counts holds — an event per expired campaign, none twice, all through
 * the callback. Never a time or a memory figure: the machines running the suite are shared.
 */
const run = promisify(execFile);

describe('bench:serve harness', () => {
  it('announces every campaign of a callback storm exactly once', async () => {
    let stdout: string;
    try {
      ({ stdout } = await run(process.execPath, ['--expose-gc', 'test/bench/serve.mjs'], {
        cwd: repository,
        env: {
          ...process.env,
          BENCH_ACCOUNTS: '5',
          BENCH_RSS_ACCOUNTS: '2',
          BENCH_INTERVALS: '10',
          BENCH_SETTLE_MS: '0',
          BENCH_QUEUE_ACCOUNTS: '6',
          BENCH_QUEUE_RSS_ACCOUNTS: '6',
          BENCH_QUEUE_INTERVAL_MS: '2000',
          BENCH_QUEUE_RSS_INTERVAL_MS: '2000',
        },
        maxBuffer: 10 * 1024 * 1024,
      }));
    } catch (error) {
      // A memory verdict of "NOT flat" on so few samples sets the exit code; the counts are what is checked here.
      ({ stdout } = error as { stdout: string });
    }
    expect(stdout).toContain('serve, 5 accounts x 20 resources, 20 ms per request, 16 accounts at once');
    expect(stdout).toMatch(/first round of checks: +[\d.]+ s \(\{"in_sync":5\}\)/);
    expect(stdout).toMatch(
      /callback storm: +5 callbacks sent in [\d.]+ s; 5 campaign events \(5 distinct, 5 through the callback\)/,
    );
    expect(stdout).toContain('every event once:       yes');
    expect(stdout).toMatch(/memory, 2 accounts x 10 intervals after 10 to warm up/);
    // The replicas: every account's checks counted, none of one account overlapping another.
    expect(stdout).toContain('replicas: 6 accounts, 2 s interval, 20 ms per request');
    expect(stdout).toMatch(/request log: \d+ checks, 0 of one account overlapping/);
    expect(stdout).toMatch(
      /memory at 6 accounts after 2 intervals: one process without a queue \d+ MB; 3 replicas \d+ MB, \d+ MB, \d+ MB/,
    );
  }, 240_000);
});
