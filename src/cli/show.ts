import { Command, Option } from 'commander';
import { showSavedPlan } from '../run/show-plan.js';
import { formatChoices, planForDisplay, rendererFor, type Format } from '../render/index.js';
import { processIo, useColor } from './io.js';
import type { GlobalOptions } from '../run/context.js';

/**
 * `telform show plan.json`: a saved plan rendered again, offline (an apply job's log, a late
 * comment). It says whether the plan's seal was verified with the environment's token (a shown plan
 * is often what a reviewer trusts before apply), and lists unmanaged objects as `plan` does.
 */
export function showCommand(): Command {
  return new Command('show')
    .description(
      'Render a plan saved with `telform plan -o FILE`, saying whether its seal was verified; sends no request.',
    )
    .argument('<plan-file>', 'the saved plan')
    .addOption(new Option('--format <format>', 'output format').choices(formatChoices('plan')).default('text'))
    .option(
      '--show-unmanaged',
      'list the objects in the account that neither the manifests nor the state knew (as plan --show-unmanaged)',
    )
    .addHelpText(
      'after',
      `
The seal is verified with TELFORM_AUTH_TOKEN (or PLIVO_AUTH_TOKEN); without it, or for an edited or
unsealed plan, the output carries a warning (apply refuses such a plan anyway).

Examples:
  $ telform show plan.json
  $ telform show plan.json --format markdown > comment.md
  $ telform show plan.json --show-unmanaged`,
    )
    .action(async (planFile: string, options: { format: Format; showUnmanaged?: boolean }, cmd: Command) => {
      const io = processIo();
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const { plan, seal } = await showSavedPlan(
        planFile,
        globals,
        io.env,
        async () => (await import('../emulator/index.js')).defaultAccount.authToken,
      );
      if (seal.verified) io.stderr(seal.message);
      const shown = planForDisplay(plan, options.showUnmanaged ?? false, seal.verified ? [] : [seal.message]);
      io.stdout(rendererFor(options.format, 'plan')(shown, { color: useColor(globals, io) }));
    });
}
