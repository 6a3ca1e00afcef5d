// The CLI side of `plan|apply|drift --accounts FILE`: the flags into the fan-out operation, a line on
// stderr per account as it finishes, the one report on stdout, the worst exit code.
import type { PlanApprovals } from '../engine/plan-types.js';
import type { AccountsCommand } from '../render/accounts-report.js';
import { renderAccountsReport } from '../render/accounts.js';
import type { PlanFormat } from '../render/index.js';
import { runAccounts, type AccountsRun, type AccountStep } from '../run/accounts.js';
import { runRollout, type RolloutOptions } from '../run/rollout.js';
import type { GlobalOptions } from '../run/context.js';
import { TelformError } from '../util/errors.js';
import type { AccountsOptionValues } from './accounts-options.js';
import type { CommandIo } from './io.js';
import { cliContext } from './session.js';
import { printable } from '../util/printable.js';

export interface AccountsCommandRun {
  command: AccountsCommand;
  options: AccountsOptionValues & { file: string[]; format: PlanFormat };
  globals: GlobalOptions;
  approvals: PlanApprovals;
  lock: boolean;
  step: AccountStep;
  /** An apply in waves (`--waves`, `--resume`). */
  rollout?: RolloutOptions;
}

export async function runAccountsCommand(run: AccountsCommandRun, io: CommandIo): Promise<number> {
  const { options } = run;
  if (options.file.length > 0) throw new TelformError('bad_option', 'give either --accounts FILE or -f manifests, not both');
  const accountsRun: AccountsRun = {
    command: run.command,
    accountsFile: options.accounts as string,
    only: options.only,
    shard: options.shard,
    runId: options.runId,
    accountParallelism: options.accountParallelism,
    globals: run.globals,
    approvals: run.approvals,
    lock: run.lock,
    step: run.step,
    onAccount: (outcome) => io.stderr(`[${outcome.name}] ${outcome.status.replace('_', ' ')}: ${printable(outcome.summary)}`),
  };
  const report = run.rollout ? await runRollout(accountsRun, run.rollout, cliContext(io)) : await runAccounts(accountsRun, cliContext(io));
  io.stdout(renderAccountsReport(report, options.format));
  return report.exit_code;
}
