// `telform plan`'s flag rules: one account (from -f, or a teardown with --destroy) or every account
// of an accounts file.
import type { Format } from '../../render/index.js';
import type { AccountsOptionValues } from '../accounts-options.js';
import type { ApprovalOptionValues, SecretFileOptionValue } from '../plan-command-options.js';
import type { ValuesOptionValues } from '../values-options.js';
import { Problems, type GivenFlags, type Parsed } from './parsed.js';
import { checkAccountsOnly, checkFormat, checkManifestSource, checkScope, checkValues } from './shared.js';

export interface PlanFlags
  extends ApprovalOptionValues, AccountsOptionValues, SecretFileOptionValue, ValuesOptionValues {
  format: Format;
  out?: string;
  detailedExitcode?: boolean;
  showUnmanaged?: boolean;
  rehearse?: boolean;
  /** `--approval-flags FILE`: approval flags reviewed in a file, one per line (the CI templates'). */
  approvalFlags?: string;
  /** `--approvals DIR`: the signed approvals the plan's approval table counts (default: beside -o). */
  approvals?: string;
}

export type PlanInput =
  { mode: 'accounts'; accountsFile: string; flags: PlanFlags } | { mode: 'one'; flags: PlanFlags };

export function parsePlanArguments(flags: PlanFlags, given: GivenFlags): Parsed<PlanInput> {
  const problems = new Problems();
  checkAccountsOnly(problems, flags, given, 'plan');
  checkManifestSource(problems, flags);
  checkValues(problems, flags);
  checkScope(problems, flags, { accounts: flags.accounts !== undefined });
  checkFormat(problems, flags.format, flags.accounts !== undefined ? 'accounts' : 'plan');
  if (flags.rehearse === true) checkFormat(problems, flags.format, 'rehearsal');
  problems.check(
    flags.rehearse === true && flags.accounts !== undefined,
    "--rehearse rehearses one account's plan on a replica of it: give either --rehearse or --accounts",
  );
  problems.check(
    flags.accounts !== undefined && flags.out !== undefined,
    'a saved plan is for one account: give either -o FILE or --accounts',
  );
  return problems.result((): PlanInput =>
    flags.accounts !== undefined ? { mode: 'accounts', accountsFile: flags.accounts, flags } : { mode: 'one', flags },
  );
}
