// The accounts serve watches, each with what its worker needs: the one account of -f, or those of an
// accounts file chosen by `--only` and `--shard` (the one account selection, run/account-selection.ts),
// each seeing its own credentials and no other's. An account whose credential variables are missing
// is watched as unavailable, with the reason; it does not keep the others from being watched.
import path from 'node:path';
import { TelformError } from '../util/errors.js';
import { selectAccounts, type AccountSelection } from '../run/account-selection.js';
import { accountEnv } from '../run/accounts.js';
import type { Environment, GlobalOptions, RunIo } from '../run/context.js';
import { readValues, type ValuesInput } from '../run/values-input.js';
import type { ServeAccount } from './start.js';

export type WatchedSource =
  | { mode: 'one'; name: string; paths: readonly string[]; values: ValuesInput }
  | { mode: 'accounts'; accountsFile: string; selection: AccountSelection };

interface WatchContext {
  cwd: string;
  env: Environment;
  /** `--policy` files, judged for every account after the accounts file's own. */
  policies: readonly string[];
  /** One log line (the account's name leads it). */
  log(line: string): void;
}

export async function watchedAccounts(
  source: WatchedSource,
  globals: GlobalOptions,
  context: WatchContext,
): Promise<ServeAccount[]> {
  const { cwd, log } = context;
  const policies = context.policies.map((file) => path.resolve(cwd, file));
  if (source.mode === 'one') {
    const values = await readValues(source.values, cwd);
    return [
      {
        name: source.name,
        manifests: source.paths,
        values,
        globals,
        io: accountIo(context.env, source.name, cwd, log),
        policies,
      },
    ];
  }
  const { loadAccountsFile } = await import('../manifest/accounts-file.js');
  const all = await loadAccountsFile(source.accountsFile, cwd);
  const selected = selectAccounts(all, source.selection, source.accountsFile, { atLeastOne: true });
  return selected.map((account): ServeAccount => {
    const globalsOf = {
      ...globals,
      state: account.state,
      workspace: account.workspace,
      ...(account.endpoint ? { endpoint: account.endpoint } : {}),
    };
    const watched = {
      name: account.name,
      manifests: account.manifests,
      values: account.values,
      globals: globalsOf,
      policies: [...account.policies, ...policies],
    };
    try {
      return { ...watched, io: accountIo(accountEnv(context.env, account, all), account.name, cwd, log) };
    } catch (error) {
      if (!(error instanceof TelformError)) throw error;
      log(`[${account.name}] ${error.message}: the account is not watched until serve restarts with it set`);
      return { ...watched, io: accountIo({}, account.name, cwd, log), unavailable: error };
    }
  });
}

/** A note (a manifest warning) comes with every check: each is logged once, and the memory of them is bounded. */
function accountIo(env: Environment, name: string, cwd: string, log: (line: string) => void): RunIo {
  const seen = new Set<string>();
  return {
    cwd,
    env,
    stderr: (line: string) => {
      if (seen.has(line)) return;
      if (seen.size >= 200) seen.clear();
      seen.add(line);
      log(`[${name}] ${line}`);
    },
  };
}
