import { describe, expect, it } from 'vitest';
import { selectAccounts } from '../../src/run/account-selection.js';
import { TelformError } from '../../src/util/errors.js';

const file = 'accounts.yaml';
const all = ['acme', 'globex', 'initech', 'umbrella'].map((name) => ({ name }));
const names = (accounts: readonly { name: string }[]) => accounts.map((account) => account.name);

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof TelformError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('selectAccounts (--only, --shard: accounts runs, rollouts and serve)', () => {
  it('takes every account, in the file order, when nothing narrows it', () => {
    expect(names(selectAccounts(all, { only: [] }, file))).toEqual(['acme', 'globex', 'initech', 'umbrella']);
  });

  it('--only keeps the named accounts, in the file order whatever the flags order', () => {
    expect(names(selectAccounts(all, { only: ['initech', 'acme'] }, file))).toEqual(['acme', 'initech']);
  });

  it('the shards of a count partition the accounts, and --only narrows within a shard', () => {
    const first = names(selectAccounts(all, { only: [], shard: { index: 1, count: 2 } }, file));
    const second = names(selectAccounts(all, { only: [], shard: { index: 2, count: 2 } }, file));
    expect(first).toEqual(['acme']);
    expect(second).toEqual(['globex', 'initech', 'umbrella']);
    expect(names(selectAccounts(all, { only: ['acme', 'globex'], shard: { index: 2, count: 2 } }, file))).toEqual([
      'globex',
    ]);
  });

  it('refuses an --only name the file does not have, naming the file and its accounts', () => {
    expect(refusal(() => selectAccounts(all, { only: ['acme', 'acct-99', 'hooli'] }, file))).toEqual({
      code: 'bad_option',
      message: '--only acct-99, hooli: not in accounts.yaml (accounts: acme, globex, initech, umbrella)',
    });
  });

  it('an empty selection is a run of no account, and refused only where at least one is needed (serve)', () => {
    const emptyShard = { only: ['acme'], shard: { index: 2, count: 2 } };
    expect(selectAccounts(all, emptyShard, file)).toEqual([]);
    expect(refusal(() => selectAccounts(all, emptyShard, file, { atLeastOne: true }))).toEqual({
      code: 'bad_option',
      message: 'no account of accounts.yaml is selected (check --only and --shard)',
    });
  });
});
