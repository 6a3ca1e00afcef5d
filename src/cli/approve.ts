import { Command } from 'commander';
import { renderApprovalTableText } from '../render/approval-table.js';
import { approvePlan } from '../run/approve.js';
import { systemClock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { processIo } from './io.js';

interface ApproveFlags {
  as: string;
  key: string;
  policy: string[];
  rule: string[];
  emergency?: string;
  approvals?: string;
}

/**
 * `telform approve plan.json`: a reviewer signs the saved plan's digest with their SSH key, naming
 * the approval rules they approve, into a file of its own beside the plan (docs/approvals.md).
 * Offline: no account, no token.
 */
export function approveCommand(): Command {
  return new Command('approve')
    .description("Sign a saved plan's approval with your SSH key, for the approval rules of the policy.")
    .argument('<plan-file>', 'the saved plan (telform plan -o FILE)')
    .requiredOption('--as <name>', 'who signs: a person of the people file the policy names')
    .requiredOption(
      '--key <file>',
      'your private SSH key (Ed25519 signs in process; other or passphrase-protected keys through ssh-keygen -Y sign)',
    )
    .option('--policy <file>', 'the policy file with the approval rules and the people file (repeatable)', collect, [])
    .option(
      '--rule <id>',
      'approve only this rule (repeatable; default: every rule of the plan your roles can approve)',
      collect,
      [],
    )
    .option(
      '--emergency <reason>',
      'sign an emergency: lets apply --emergency REASON past a window or freeze the rule allows',
    )
    .option('--approvals <dir>', 'where the approval is written (default: beside the plan, FILE.approvals/)')
    .addHelpText(
      'after',
      `
The approval signs the plan's digest (the plan without its seal and creation time), the account,
your name, the rules and the time; it holds for the rule's ttl. Commit the file it writes.

Examples:
  $ telform approve plan.json --as alice --key ~/.ssh/id_ed25519 --policy policies/approvals.yaml
  $ telform approve telform-plan.json --as bob --key ~/.ssh/id_ed25519 --policy policies/approvals.yaml --approvals telform-approvals
  $ telform approve plan.json --as carol --key ~/.ssh/id_ed25519 --policy policies/approvals.yaml --emergency "carrier outage INC-4411"`,
    )
    .action(async (planFile: string, flags: ApproveFlags) => {
      const io = processIo();
      if (flags.policy.length === 0)
        throw new TelformError('bad_option', '--policy names the policy file whose approval rules you approve');
      if (flags.emergency !== undefined && flags.emergency.trim() === '')
        throw new TelformError('bad_option', '--emergency needs a reason');
      const outcome = await approvePlan({
        planFile,
        policies: flags.policy,
        person: flags.as,
        keyFile: flags.key,
        rules: flags.rule,
        ...(flags.emergency === undefined ? {} : { emergency: flags.emergency }),
        ...(flags.approvals === undefined ? {} : { approvalsFolder: flags.approvals }),
        clock: systemClock,
        cwd: io.cwd,
      });
      io.stderr(
        `${flags.as} approved ${outcome.rules.join(', ') || 'no rule'}${flags.emergency ? ` (emergency: ${flags.emergency})` : ''} of plan ${outcome.digest.slice(0, 12)}: wrote ${outcome.file}`,
      );
      if (outcome.table) io.stdout(renderApprovalTableText(outcome.table));
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
