import { describe, expect, it } from 'vitest';
import {
  assignWaves,
  newRollout,
  parseRollout,
  parseWaves,
  remainingWaves,
  rolloutReport,
} from '../../src/engine/waves.js';

const accounts = (count: number) =>
  Array.from({ length: count }, (_, index) => `a${String(index + 1).padStart(2, '0')}`);

describe('--waves', () => {
  it('reads counts and percentages, and wants the last to be 100%', () => {
    expect(parseWaves('1,10%,100%')).toEqual([{ count: 1 }, { percent: 10 }, { percent: 100 }]);
    expect(parseWaves(' 2 , 100% ')).toEqual([{ count: 2 }, { percent: 100 }]);
    expect(() => parseWaves('1,50%')).toThrow(
      '--waves 1,50%: the last wave must be 100% (every account), e.g. 1,10%,100%',
    );
    expect(() => parseWaves('1,0%,100%')).toThrow('0% is not a percentage from 1% to 100%');
    expect(() => parseWaves('one,100%')).toThrow('"one" is neither a number of accounts nor a percentage');
    expect(() => parseWaves('0,100%')).toThrow('"0" is neither');
  });

  it('wants the steps to grow, naming the step that does not (issue 33 item 31)', () => {
    expect(() => parseWaves('5,3,100%')).toThrow(
      '--waves 5,3,100%: steps must grow (each is the cumulative size of the rollout), and 3 comes after 5',
    );
    expect(() => parseWaves('1,50%,50%,100%')).toThrow(
      '--waves 1,50%,50%,100%: steps must grow (each is the cumulative size of the rollout), and 50% comes after 50%',
    );
    expect(() => parseWaves('100%,100%')).toThrow('and 100% comes after 100%');
    // A count and a percentage compare only once the accounts are known: allowed.
    expect(parseWaves('10,5%,100%')).toEqual([{ count: 10 }, { percent: 5 }, { percent: 100 }]);
  });

  it('forms cumulative waves in the accounts file order, rounding percentages up, skipping empty steps', () => {
    expect(assignWaves(accounts(20), parseWaves('1,10%,100%'))).toEqual([['a01'], ['a02'], accounts(20).slice(2)]);
    expect(assignWaves(accounts(20), parseWaves('1,25%,100%'))).toEqual([
      ['a01'],
      ['a02', 'a03', 'a04', 'a05'],
      accounts(20).slice(5),
    ]);
    // 5% of 10 rounds up to 1, already reached by the first step: no empty wave.
    expect(assignWaves(accounts(10), parseWaves('1,5%,100%'))).toEqual([['a01'], accounts(10).slice(1)]);
    expect(assignWaves(accounts(3), parseWaves('10,100%'))).toEqual([accounts(3)]);
  });

  it('puts the canaries alone in the first wave, then goes on in file order', () => {
    expect(assignWaves(accounts(6), parseWaves('50%,100%'), ['a05', 'a02'])).toEqual([
      ['a05', 'a02'],
      ['a01'],
      ['a03', 'a04', 'a06'],
    ]);
    expect(() => assignWaves(accounts(3), parseWaves('100%'), ['zz'])).toThrow(
      '--canary zz: not among the accounts of this run',
    );
  });

  it('depends only on the names, their order and the flags', () => {
    const names = accounts(200);
    expect(assignWaves(names, parseWaves('1,10%,100%'))).toEqual(assignWaves([...names], parseWaves('1,10%,100%')));
  });
});

describe('the rollout record', () => {
  it('resumes from the first wave whose gate did not pass, with only the accounts not done', () => {
    const record = newRollout([['a'], ['b', 'c', 'd'], ['e', 'f']], new Date('2026-01-01T00:00:00Z'));
    record.accounts = { a: 'done', b: 'done', c: 'failed', d: 'done' };
    record.passed = 1;
    record.stopped = { wave: 2, reasons: [{ account: 'c', reason: 'apply failed: 1 failed' }] };
    expect(remainingWaves(record)).toEqual([
      { wave: 2, accounts: ['b', 'c', 'd'], todo: ['c'] },
      { wave: 3, accounts: ['e', 'f'], todo: ['e', 'f'] },
    ]);
    expect(rolloutReport(record, 0, false)).toEqual({
      resumed: false,
      stopped_at: 2,
      waves: [
        { wave: 1, accounts: ['a'], status: 'passed' },
        {
          wave: 2,
          accounts: ['b', 'c', 'd'],
          status: 'failed',
          failures: [{ account: 'c', reason: 'apply failed: 1 failed' }],
        },
        { wave: 3, accounts: ['e', 'f'], status: 'not_started' },
      ],
    });
  });

  it('reads back what it wrote and refuses anything else', () => {
    const record = newRollout([['a']], new Date('2026-01-01T00:00:00Z'));
    expect(parseRollout(JSON.stringify({ ...record, serial: 3 }), 'states/_rollout.json')).toMatchObject({
      waves: [['a']],
      status: 'running',
    });
    expect(() => parseRollout('{"serial":1,"resources":[]}', 'states/_rollout.json')).toThrow(
      'states/_rollout.json does not hold a rollout record',
    );
    expect(() => parseRollout(JSON.stringify({ ...record, format_version: 9 }), 'x')).toThrow(
      'x holds a rollout record of format 9; this telform reads format 1',
    );
  });
});
