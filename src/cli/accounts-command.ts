// The CLI side of `plan|apply|drift --accounts FILE`: the flags into the fan-out operation, a line on
// stderr per account as it finishes, the one report on stdout, the worst exit code.
import type { PlanApprovals } from '../engine/plan-types.js';
import type { AccountsCommand } from '../render/accounts-report.js';
import { rendererFor, type Format } from '../render/index.js';
import type { AccountsRun, AccountStep } from '../run/accounts.js';
import { runAccountsFanOut } from '../run/accounts-run.js';
import type { RolloutOptions } from '../run/rollout.js';
import type { GlobalOptions } from '../run/context.js';
import type { AccountsOptionValues } from './accounts-options.js';
import type { CommandIo } from './io.js';
import { cliContext } from './session.js';
import { printable } from '../util/printable.js';
import { interruptible } from './interrupt.js';

export interface AccountsCommandRun {
  command: AccountsCommand;
  options: AccountsOptionValues & { file: string[]; format: Format };
  globals: GlobalOptions;
  approvals: PlanApprovals;
  lock: boolean;
  step: AccountStep;
  /** An apply in waves (`--waves`, `--resume`). */
  rollout?: RolloutOptions;
  /** `--ignore-rollout`: a plain apply even while a recorded rollout over these accounts is unfinished. */
  ignoreRollout?: boolean;
}

export async function runAccountsCommand(run: AccountsCommandRun, io: CommandIo): Promise<number> {
  const { options } = run;
  const accountsRun: AccountsRun = {
    command: run.command,
    accountsFile: options.accounts as string,
    policies: 'policy' in options && Array.isArray(options.policy) ? (options.policy as string[]) : [],
    only: options.only,
    shard: options.shard,
    runId: options.runId,
    accountParallelism: options.accountParallelism,
    globals: run.globals,
    approvals: run.approvals,
    lock: run.lock,
    step: run.step,
    onAccount: (outcome) => {
      finished += 1;
      io.stderr(`[${outcome.name}] ${outcome.status.replace('_', ' ')}: ${printable(outcome.summary)}`);
    },
  };
  let finished = 0;
  const runAll = () =>
    runAccountsFanOut(accountsRun, { rollout: run.rollout, ignoreRollout: run.ignoreRollout }, cliContext(io));
  // An apply over accounts, interrupted, says how far it got; each account's journal lets the next run settle it.
  const report =
    run.command === 'apply'
      ? await interruptible(
          'telform apply --accounts',
          () => ({ pending: [], text: accountsStanding(finished) }),
          runAll,
        )
      : await runAll();
  io.stdout(rendererFor(options.format, 'accounts')(report));
  return report.exit_code;
}

function accountsStanding(finished: number): string {
  return `${finished} account${finished === 1 ? '' : 's'} finished; each account's state journal records what was under way in it, and the next telform plan or apply settles it`;
}
