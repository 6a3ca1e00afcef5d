import { Command } from 'commander';
import { renderApprovalTableText } from '../render/approval-table.js';
import { listApprovals } from '../run/approve.js';
import { systemClock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { processIo } from './io.js';

/**
 * `telform approvals plan.json`: per change of a saved plan, what each approval rule needs, who
 * signed, what is missing and whether its window is open now; exit 0 when apply would go through,
 * 2 when it would refuse (docs/approvals.md). Offline.
 */
export function approvalsCommand(): Command {
  return new Command('approvals')
    .description('Show what the approval rules need of a saved plan, who signed and what is missing.')
    .argument('<plan-file>', 'the saved plan (telform plan -o FILE)')
    .option(
      '--policy <file>',
      'the policy file with the approval rules (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--approvals <dir>', 'the signed approvals (default: beside the plan, FILE.approvals/)')
    .addHelpText(
      'after',
      `
Exit codes: 0 apply would go through now, 2 it would refuse (the reasons are listed), 1 error.

Examples:
  $ telform approvals plan.json --policy policies/approvals.yaml
  $ telform approvals telform-plan.json --policy policies/approvals.yaml --approvals telform-approvals`,
    )
    .action(async (planFile: string, flags: { policy: string[]; approvals?: string }) => {
      const io = processIo();
      if (flags.policy.length === 0)
        throw new TelformError('bad_option', '--policy names the policy file whose approval rules to show');
      const { table } = await listApprovals({
        planFile,
        policies: flags.policy,
        ...(flags.approvals === undefined ? {} : { approvalsFolder: flags.approvals }),
        clock: systemClock,
        cwd: io.cwd,
      });
      if (!table) {
        io.stdout(`${flags.policy.join(', ')} holds no approval rule or freeze.\n`);
        process.exitCode = 0;
        return;
      }
      io.stdout(renderApprovalTableText(table));
      process.exitCode = table.refusals.length === 0 ? 0 : 2;
    });
}
