// `plan|apply|drift --accounts FILE` as one operation: every selected account at once
// (run/accounts.ts), or an apply in waves (run/rollout.ts); a plain apply first refuses to run
// past an unfinished rollout over the same accounts unless told to (`--ignore-rollout`).
import type { AccountsReport } from '../render/accounts-report.js';
import { runAccounts, type AccountsRun } from './accounts.js';
import type { RunContext } from './context.js';
import { assertNoUnfinishedRollout, runRollout, type RolloutOptions } from './rollout.js';

interface AccountsRunMode {
  /** An apply in waves (`--waves`, `--resume`). */
  rollout?: RolloutOptions | undefined;
  /** `--ignore-rollout`: a plain apply even while a recorded rollout over these accounts is unfinished. */
  ignoreRollout?: boolean | undefined;
}

export async function runAccountsFanOut(
  run: AccountsRun,
  mode: AccountsRunMode,
  context: RunContext,
): Promise<AccountsReport> {
  if (mode.rollout) return runRollout(run, mode.rollout, context);
  if (run.command === 'apply' && mode.ignoreRollout !== true) await assertNoUnfinishedRollout(run, context);
  return runAccounts(run, context);
}
