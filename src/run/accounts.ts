// The accounts fan-out (`plan|apply|drift --accounts FILE`): each account selected (`--only`,
// `--shard`) is reconciled on its own — its credentials, endpoint, state and so its own rate
// limiter (the API limits per account) — at most `accountParallelism` at once, and handed to one
// step (plan, drift or apply: the same operations as for one account). A failure in one account is
// that account's outcome and never stops the others. One report, exit code the worst.
import { systemClock } from '../util/clock.js';
import { ApiRequestError } from '../api/errors.js';
import type { PlanApprovals } from '../engine/plan-types.js';
import type { AccountSpec } from '../manifest/accounts-file.js';
import {
  buildAccountsReport,
  type AccountOutcome,
  type AccountsCommand,
  type AccountsReport,
} from '../render/accounts-report.js';
import { TelformError, formatPlace } from '../util/errors.js';
import { credentialVariablesVariable, runTokenDigestsVariable, tokenDigest } from '../manifest/secrets.js';
import type { Shard } from '../util/shard.js';
import { selectAccounts } from './account-selection.js';
import type { Environment, GlobalOptions, RunContext } from './context.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import type { HistoryTag } from '../state/history.js';

/** What one command does with one reconciled account. */
export type AccountStep = (run: Reconciliation, account: AccountSpec) => Promise<Omit<AccountOutcome, 'name'>>;

export interface AccountsRun {
  command: AccountsCommand;
  /** The accounts file. */
  accountsFile: string;
  /** `--only`: these accounts (all when empty). */
  only: readonly string[];
  shard?: Shard | undefined;
  /** `--run-id`: recorded in the report (`report merge --run-id` takes only this run's shards). */
  runId?: string | undefined;
  accountParallelism: number;
  globals: GlobalOptions;
  approvals: PlanApprovals;
  /** Apply locks each account's ledger. */
  lock: boolean;
  /** `--policy FILE`: evaluated for every account, after the accounts file's own policies. */
  policies?: readonly string[];
  step: AccountStep;
  /** What runs an apply, for each account's history record (a rollout's wave). */
  history?: HistoryTag;
  /** Each account's outcome as it finishes (the CLI prints a line). */
  onAccount?: (outcome: AccountOutcome) => void;
}

export async function runAccounts(run: AccountsRun, context: RunContext): Promise<AccountsReport> {
  // Its YAML parser loads only for a run with an accounts file.
  const { loadAccountsFile } = await import('../manifest/accounts-file.js');
  const all = await loadAccountsFile(run.accountsFile, context.io.cwd);
  const selected = selectAccounts(all, run, run.accountsFile);
  const outcomes = await mapBounded(selected, run.accountParallelism, async (account) => {
    const outcome = await runOne(run, account, all, context);
    run.onAccount?.(outcome);
    return outcome;
  });
  return buildAccountsReport(run.command, outcomes, run.shard, run.runId);
}

export async function runOne(
  run: AccountsRun,
  account: AccountSpec,
  all: readonly AccountSpec[],
  context: RunContext,
): Promise<AccountOutcome> {
  const prefix = `[${account.name}] `;
  const globals: GlobalOptions = {
    ...run.globals,
    state: account.state,
    workspace: account.workspace,
    ...(account.endpoint ? { endpoint: account.endpoint } : {}),
  };
  try {
    const io = {
      ...context.io,
      env: accountEnv(context.io.env, account, all),
      stderr: (line: string) => context.io.stderr(`${prefix}${line}`),
    };
    const reconciliation = await reconcile(
      { paths: account.manifests, values: account.values },
      globals,
      run.approvals,
      { ...context, io },
      {
        lock: run.lock,
        readOnly: run.command === 'drift',
        policies: [...account.policies, ...(run.policies ?? [])],
        ...(account.scope ? { scope: account.scope } : {}),
        // Each account's apply is judged by the approval rules as one account's apply is.
        ...(run.lock ? { approvalRules: { clock: systemClock } } : {}),
      },
    );
    if (run.history) reconciliation.history = run.history;
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
  return new TelformError(
    'api_error',
    `the API answered 401 to ${method} ${path}: ${error.apiMessage}; check ${authIdEnv} and ${authTokenEnv}`,
  );
}

export function errorOutcome(error: unknown): Omit<AccountOutcome, 'name'> {
  if (error instanceof TelformError) {
    const place = formatPlace(error.place);
    const message = `${place ? `${place}  ` : ''}${error.message}`;
    // Invalid manifests carry their positioned problems: the report names each one under the account.
    const problems = error.details['problems'];
    const lines = Array.isArray(problems) ? problems.filter((line): line is string => typeof line === 'string') : [];
    return {
      exit_code: 1,
      status: 'error',
      summary: firstLine(message),
      error: { code: error.code, message },
      ...(lines.length > 0 ? { problems: lines } : {}),
    };
  }
  const message = `internal error: ${error instanceof Error ? error.message : String(error)}`;
  return { exit_code: 1, status: 'error', summary: firstLine(message), error: { code: 'internal', message } };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * The environment one account's run sees: its credentials as TELFORM_AUTH_ID/TOKEN, and none of the
 * credential variables of any account in the file, so no manifest can read another account's
 * token (or its own under another name) as a secret.
 */
export function accountEnv(
  env: Environment,
  account: AccountSpec,
  all: readonly AccountSpec[] = [account],
): Record<string, string | undefined> {
  const authId = env[account.credentials.authIdEnv];
  const authToken = env[account.credentials.authTokenEnv];
  for (const [name, value] of [
    [account.credentials.authIdEnv, authId],
    [account.credentials.authTokenEnv, authToken],
  ] as const) {
    if (!value)
      throw new TelformError('account_credentials', `${name} is not set (credentials of account ${account.name})`);
  }
  const scoped: Record<string, string | undefined> = {};
  const credentials = new Set(all.flatMap((each) => [each.credentials.authIdEnv, each.credentials.authTokenEnv]));
  for (const [key, value] of Object.entries(env))
    if (!/^(TELFORM_AUTH_|PLIVO_AUTH_)/.test(key) && !credentials.has(key)) scoped[key] = value;
  // Named so that a manifest's `fromEnv` of one of them is refused with the reason, not "not set".
  const refused = [
    ...new Set([...(env[credentialVariablesVariable] ?? '').split(',').filter(Boolean), ...credentials]),
  ].sort();
  // A secret equal to any account's token (another account's too) is refused: digests only.
  const digests = all.flatMap((each) => {
    const token = env[each.credentials.authTokenEnv];
    return token ? [{ variable: each.credentials.authTokenEnv, account: each.name, sha256: tokenDigest(token) }] : [];
  });
  return {
    ...scoped,
    TELFORM_AUTH_ID: authId,
    TELFORM_AUTH_TOKEN: authToken,
    [credentialVariablesVariable]: refused.join(','),
    ...(digests.length > 0 ? { [runTokenDigestsVariable]: JSON.stringify(digests) } : {}),
  };
}

/** Runs `work` over `items`, at most `limit` at once, results in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
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
