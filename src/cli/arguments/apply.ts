// `telform apply`'s flag rules: a saved plan applied exactly, one account's manifests (or a
// teardown), or every account of an accounts file (at once or in waves).
import type { Format } from '../../render/index.js';
import type { RolloutOptions } from '../../run/rollout.js';
import type { AccountsOptionValues } from '../accounts-options.js';
import type { ApprovalOptionValues, SecretFileOptionValue } from '../plan-command-options.js';
import type { ValuesOptionValues } from '../values-options.js';
import type { WavesOptionValues } from '../waves-options.js';
import { Problems, type GivenFlags, type Parsed } from './parsed.js';
import {
  checkAccountsOnly,
  checkFormat,
  checkManifestSource,
  checkScope,
  checkValues,
  parseRollout,
} from './shared.js';

export interface ApplyFlags
  extends ApprovalOptionValues, AccountsOptionValues, SecretFileOptionValue, ValuesOptionValues, WavesOptionValues {
  format: Format;
  /** With a saved plan: apply it to a replica of the account first. */
  rehearse?: boolean;
  autoApprove?: boolean;
  parallelism: number;
  wait?: number;
  /** `--approvals DIR`: the signed approvals of a saved plan, instead of the folder beside it. */
  approvals?: string;
  /** `--emergency REASON`: past a window or freeze, where a rule allows it (docs/approvals.md). */
  emergency?: string;
}

export type ApplyInput =
  | { mode: 'accounts'; accountsFile: string; rollout?: RolloutOptions; flags: ApplyFlags }
  | { mode: 'saved-plan'; planFile: string; flags: ApplyFlags }
  | { mode: 'manifests'; flags: ApplyFlags };

export function parseApplyArguments(
  planFile: string | undefined,
  flags: ApplyFlags,
  given: GivenFlags,
): Parsed<ApplyInput> {
  const problems = new Problems();
  const values = flags.values !== undefined || flags.value.length > 0;
  checkAccountsOnly(problems, flags, given, 'apply');
  checkManifestSource(problems, flags);
  problems.check(
    planFile !== undefined && flags.file.length > 0,
    'give either a saved plan file or -f manifests, not both',
  );
  checkValues(problems, flags);
  problems.check(
    planFile !== undefined && values,
    `${planFile} holds the values it was planned with: give --values / --value to \`telform plan\`, not to the apply of a saved plan`,
  );
  const rollout = parseRollout(problems, flags);
  checkScope(problems, flags, { accounts: flags.accounts !== undefined, planFile });
  problems.check(
    planFile !== undefined && flags.accounts !== undefined,
    'a saved plan is for one account: give either a plan file or --accounts',
  );
  problems.check(
    flags.approvals !== undefined && planFile === undefined,
    '--approvals names the signed approvals of a saved plan: give the plan file',
  );
  problems.check(
    flags.emergency !== undefined && flags.emergency.trim() === '',
    '--emergency needs a reason, recorded in the history (e.g. --emergency "carrier outage, INC-4411")',
  );
  problems.check(
    flags.emergency !== undefined && flags.accounts !== undefined,
    '--emergency is for one account: give a saved plan',
  );
  problems.check(
    planFile === undefined && flags.accounts === undefined && flags.file.length === 0 && !flags.destroy,
    'no manifests given: pass -f PATH (repeatable), or a saved plan file',
  );
  problems.check(
    flags.rehearse === true && planFile === undefined,
    '--rehearse rehearses a saved plan: give the plan file (or use `telform plan --rehearse`)',
  );
  checkFormat(problems, flags.format, flags.accounts !== undefined ? 'accounts' : 'apply');
  // Runs that cannot ask: refused before anything is read.
  problems.refuse(
    flags.accounts !== undefined && flags.autoApprove !== true,
    'not_approved',
    'an apply over --accounts does not ask: pass --auto-approve (review with `telform plan --accounts` first)',
  );
  problems.refuse(
    flags.accounts === undefined && flags.format === 'json' && planFile === undefined && flags.autoApprove !== true,
    'not_approved',
    'apply --format json does not ask: pass --auto-approve (review with `telform plan` first), or apply a saved plan',
  );
  return problems.result((): ApplyInput => {
    if (flags.accounts !== undefined)
      return { mode: 'accounts', accountsFile: flags.accounts, ...(rollout ? { rollout } : {}), flags };
    if (planFile !== undefined) return { mode: 'saved-plan', planFile, flags };
    return { mode: 'manifests', flags };
  });
}
