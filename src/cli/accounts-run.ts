import { Option, type Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { buildAccountsReport, type AccountOutcome, type AccountsCommand } from '../engine/accounts-report.js';
import type { PlanApprovals } from '../engine/plan-types.js';
import { inShard, parseShard, type Shard } from '../util/shard.js';
import { ApiRequestError } from '../api/errors.js';
import { TelformError, formatPlace } from '../util/errors.js';
import { loadAccountsFile, type AccountSpec } from '../manifest/accounts-file.js';
import { credentialVariablesVariable } from '../manifest/secrets.js';
import { renderAccountsReport } from '../render/accounts.js';
import type { PlanFormat } from '../render/index.js';
import { collect, positiveInteger } from './option-parsers.js';
import type { CommandIo } from './io.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import type { GlobalOptions } from './session.js';

/**
 * Many accounts in one run (`plan|apply|drift --accounts FILE`): each account selected (`--only`,
 * `--shard`) is reconciled on its own — its credentials, endpoint, state and so its own rate
 * limiter (the API limits per account) — at most `--account-parallelism` at once. A failure in one
 * account is that account's outcome and never stops the others. One report, exit code the worst.
 */

export interface AccountsOptionValues {
  accounts?: string;
  only: string[];
  accountParallelism: number;
  shard?: Shard;
  runId?: string;
}

export function addAccountsOptions(command: Command): Command {
  return command
    .option('--accounts <file>', 'run over every account of this accounts file (see docs/many-accounts.md) instead of -f')
    .option('--only <name>', 'with --accounts: only this account (repeatable)', collect, [])
    .option('--account-parallelism <n>', 'with --accounts: accounts in flight at once', positiveInteger, 4)
    .addOption(
      new Option('--shard <k/n>', 'with --accounts: only the K-th of N deterministic partitions of the accounts').argParser((value: string) => {
        const shard = parseShard(value);
        if (!shard) throw new InvalidArgumentError('expected K/N with 1 ≤ K ≤ N, e.g. 2/4');
        return shard;
      }),
    )
    .option('--run-id <id>', 'with --accounts: record this id of the run in the report (report merge --run-id takes only its shards)');
}

/** What one command does with one reconciled account. */
export type AccountStep = (run: Reconciliation, account: AccountSpec) => Promise<Omit<AccountOutcome, 'name'>>;

export interface AccountsRun {
  command: AccountsCommand;
  options: AccountsOptionValues & { file: string[]; format: PlanFormat };
  globals: GlobalOptions;
  approvals: PlanApprovals;
  /** Apply locks each account's ledger. */
  lock: boolean;
  step: AccountStep;
  io: CommandIo;
}

export async function runAccounts(run: AccountsRun): Promise<number> {
  const { options, io } = run;
  if (options.file.length > 0) throw new TelformError('bad_option', 'give either --accounts FILE or -f manifests, not both');
  const all = await loadAccountsFile(options.accounts as string, io.cwd);
  const unknown = options.only.filter((name) => !all.some((account) => account.name === name));
  if (unknown.length > 0) {
    throw new TelformError('bad_option', `--only ${unknown.join(', ')}: not in ${options.accounts} (accounts: ${all.map((account) => account.name).join(', ')})`);
  }
  const selected = all.filter((account) => (options.only.length === 0 || options.only.includes(account.name)) && inShard(account.name, options.shard));
  const outcomes = await mapBounded(selected, options.accountParallelism, async (account) => {
    const outcome = await runOne(run, account, all);
    io.stderr(`[${account.name}] ${outcome.status.replace('_', ' ')}: ${outcome.summary}`);
    return outcome;
  });
  const report = buildAccountsReport(run.command, outcomes, options.shard, options.runId);
  io.stdout(renderAccountsReport(report, options.format));
  return report.exit_code;
}

async function runOne(run: AccountsRun, account: AccountSpec, all: readonly AccountSpec[]): Promise<AccountOutcome> {
  const prefix = `[${account.name}] `;
  const globals: GlobalOptions = {
    ...run.globals,
    state: account.state,
    workspace: account.workspace,
    ...(account.endpoint ? { endpoint: account.endpoint } : {}),
  };
  try {
    const io: CommandIo = { ...run.io, env: accountEnv(run.io.env, account, all), stdout: () => undefined, stderr: (line) => run.io.stderr(`${prefix}${line}`) };
    const reconciliation = await reconcile({ paths: account.manifests, values: account.values }, globals, run.approvals, io, { lock: run.lock, readOnly: run.command === 'drift' });
    try {
      return { name: account.name, ...(await run.step(reconciliation, account)) };
    } finally {
      await reconciliation.close();
    }
  } catch (error) {
    return { name: account.name, ...errorOutcome(credentialsHint(error, account)) };
  }
}

/** A 401 names this account's variables, not the single-account ones the client suggests. */
function credentialsHint(error: unknown, account: AccountSpec): unknown {
  if (!(error instanceof ApiRequestError) || error.status !== 401) return error;
  const { method, path } = error.request;
  const { authIdEnv, authTokenEnv } = account.credentials;
  return new TelformError('api_error', `the API answered 401 to ${method} ${path}: ${error.apiMessage}; check ${authIdEnv} and ${authTokenEnv}`);
}

export function errorOutcome(error: unknown): Omit<AccountOutcome, 'name'> {
  if (error instanceof TelformError) {
    const place = formatPlace(error.place);
    const message = `${place ? `${place}  ` : ''}${error.message}`;
    return { exit_code: 1, status: 'error', summary: firstLine(message), error: { code: error.code, message } };
  }
  const message = `internal error: ${error instanceof Error ? error.message : String(error)}`;
  return { exit_code: 1, status: 'error', summary: firstLine(message), error: { code: 'internal', message } };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * The environment one account runs with: its credentials under the names the client reads, its
 * endpoint when the accounts file gives one; no other account's credentials.
 */
/**
 * The environment one account's run sees: its credentials as TELFORM_AUTH_ID/TOKEN, and none of the
 * credential variables of any account in the file, so no manifest can read another account's
 * token (or its own under another name) as a secret.
 */
export function accountEnv(
  env: Readonly<Record<string, string | undefined>>,
  account: AccountSpec,
  all: readonly AccountSpec[] = [account],
): Record<string, string | undefined> {
  const authId = env[account.credentials.authIdEnv];
  const authToken = env[account.credentials.authTokenEnv];
  for (const [name, value] of [
    [account.credentials.authIdEnv, authId],
    [account.credentials.authTokenEnv, authToken],
  ] as const) {
    if (!value) throw new TelformError('account_credentials', `${name} is not set (credentials of account ${account.name})`);
  }
  const scoped: Record<string, string | undefined> = {};
  const credentials = new Set(all.flatMap((each) => [each.credentials.authIdEnv, each.credentials.authTokenEnv]));
  for (const [key, value] of Object.entries(env)) if (!/^(TELFORM_AUTH_|PLIVO_AUTH_)/.test(key) && !credentials.has(key)) scoped[key] = value;
  // Named so that a manifest's `fromEnv` of one of them is refused with the reason, not "not set".
  const refused = [...new Set([...(env[credentialVariablesVariable] ?? '').split(',').filter(Boolean), ...credentials])].sort();
  return { ...scoped, TELFORM_AUTH_ID: authId, TELFORM_AUTH_TOKEN: authToken, [credentialVariablesVariable]: refused.join(',') };
}

/** Runs `work` over `items`, at most `limit` at once, results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
