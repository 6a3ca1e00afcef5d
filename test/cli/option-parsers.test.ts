import { describe, expect, it } from 'vitest';
import { collect, duration, positiveInteger, usdAmount } from '../../src/cli/option-parsers.js';

describe('option parsers', () => {
  it('reads durations', () => {
    expect(duration('15m')).toBe(900_000);
    expect(duration('90s')).toBe(90_000);
    expect(duration('1h30m')).toBe(5_400_000);
    expect(duration('500ms')).toBe(500);
    expect(duration('20')).toBe(20_000);
    expect(() => duration('soon')).toThrow('expected a duration such as 15m, 90s or 1h30m');
    expect(() => duration('15m!')).toThrow();
  });

  it('reads amounts, counts and repeated values', () => {
    expect(usdAmount('30')).toBe(30);
    expect(usdAmount('15.50')).toBe(15.5);
    expect(() => usdAmount('-1')).toThrow();
    expect(positiveInteger('8')).toBe(8);
    expect(() => positiveInteger('0')).toThrow();
    // Number() would take these as 1000 and 1e20: a count is written in digits, within 2^53.
    expect(() => positiveInteger('1e3')).toThrow('expected a whole number of at least 1, in digits (e.g. 5000)');
    expect(() => positiveInteger('99999999999999999999')).toThrow('expected a whole number from 1 to 9007199254740991');
    expect(collect('b', collect('a'))).toEqual(['a', 'b']);
  });
});
