import { describe, expect, it } from 'vitest';
import { parseShard, shardOf } from '../../src/util/shard.js';
import {
  buildAccountsReport,
  mergeAccountsReports,
  worstExitCode,
  type AccountOutcome,
} from '../../src/render/accounts-report.js';

const names = Array.from({ length: 400 }, (_, index) => `customer-${index}`);

describe('shards', () => {
  it('parses K/N and refuses anything else', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/4', '5/4', '2', '2/0', 'a/b', '-1/2']) expect(parseShard(bad)).toBeUndefined();
  });

  it('puts every account in exactly one shard, all shards used', () => {
    const counts = [0, 0, 0, 0];
    for (const name of names) {
      const shard = shardOf(name, 4);
      expect(shard).toBeGreaterThanOrEqual(1);
      expect(shard).toBeLessThanOrEqual(4);
      counts[shard - 1] = (counts[shard - 1] ?? 0) + 1;
    }
    expect(counts.every((count) => count > 60)).toBe(true);
  });

  it('depends only on the name and N: adding accounts moves none, and going from 4 to 5 shards moves only those that go to the new one', () => {
    const before = new Map(names.map((name) => [name, shardOf(name, 4)]));
    for (const name of names) expect(shardOf(name, 4)).toBe(before.get(name));
    for (const name of names) {
      const after = shardOf(name, 5);
      if (after !== 5) expect(after).toBe(before.get(name));
    }
  });
});

const outcome = (name: string, exit_code: number): AccountOutcome => ({
  name,
  exit_code,
  status: exit_code === 1 ? 'error' : 'in_sync',
  summary: '',
});

describe('accounts report', () => {
  it('takes the worst exit code: error, then changes, then pending manifest changes, then 0', () => {
    expect(worstExitCode([0, 3, 2, 0])).toBe(2);
    expect(worstExitCode([0, 3, 0])).toBe(3);
    expect(worstExitCode([2, 1, 3])).toBe(1);
    expect(worstExitCode([])).toBe(0);
  });

  it('merges shards into the report of one run, and refuses a missing, repeated or foreign part', () => {
    const one = buildAccountsReport('drift', [outcome('b', 3), outcome('d', 0)], { index: 1, count: 2 });
    const two = buildAccountsReport('drift', [outcome('c', 0), outcome('a', 2)], { index: 2, count: 2 });
    expect(
      mergeAccountsReports([
        { file: 'one', report: one },
        { file: 'two', report: two },
      ]),
    ).toEqual(buildAccountsReport('drift', [outcome('a', 2), outcome('b', 3), outcome('c', 0), outcome('d', 0)]));
    expect(() => mergeAccountsReports([{ file: 'one', report: one }])).toThrow('shard 2/2 missing');
    expect(() =>
      mergeAccountsReports([
        { file: 'one', report: one },
        { file: 'again', report: one },
      ]),
    ).toThrow('again and one are both shard 1/2');
    const plan = buildAccountsReport('plan', [outcome('c', 0)], { index: 2, count: 2 });
    expect(() =>
      mergeAccountsReports([
        { file: 'one', report: one },
        { file: 'p', report: plan },
      ]),
    ).toThrow('p is a plan report and one a drift report');
    const overlapping = buildAccountsReport('drift', [outcome('b', 0)], { index: 2, count: 2 });
    expect(() =>
      mergeAccountsReports([
        { file: 'one', report: one },
        { file: 'x', report: overlapping },
      ]),
    ).toThrow('account b is in both one and x');
  });
});
