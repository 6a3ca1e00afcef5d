// Which accounts of an accounts file a run takes: `--only NAME` (repeatable) and `--shard K/N`, for
// every command that fans out over accounts (plan, apply and drift with --accounts, a rollout in
// waves, serve). One function and one set of messages, so a name that is not in the file is refused
// alike everywhere.
import { TelformError } from '../util/errors.js';
import { inShard, type Shard } from '../util/shard.js';

export interface AccountSelection {
  /** `--only`: these accounts (all when empty). */
  only: readonly string[];
  /** `--shard K/N`: only the accounts of this partition. */
  shard?: Shard | undefined;
}

/**
 * The accounts of `all` that `selection` takes, in the file's order. Refuses (bad_option) an `--only`
 * name the file does not have, naming the file's accounts; with `atLeastOne`, refuses a selection that
 * takes none (an empty shard is a normal outcome for a run, not for a service that would watch nothing).
 */
export function selectAccounts<Account extends { name: string }>(
  all: readonly Account[],
  selection: AccountSelection,
  accountsFile: string,
  options: { atLeastOne?: boolean } = {},
): Account[] {
  const unknown = selection.only.filter((name) => !all.some((account) => account.name === name));
  if (unknown.length > 0) {
    throw new TelformError(
      'bad_option',
      `--only ${unknown.join(', ')}: not in ${accountsFile} (accounts: ${all.map((account) => account.name).join(', ')})`,
    );
  }
  const selected = all.filter(
    (account) =>
      (selection.only.length === 0 || selection.only.includes(account.name)) && inShard(account.name, selection.shard),
  );
  if (options.atLeastOne === true && selected.length === 0) {
    throw new TelformError('bad_option', `no account of ${accountsFile} is selected (check --only and --shard)`);
  }
  return selected;
}
