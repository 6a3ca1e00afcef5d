import { Command, Option } from 'commander';
import { readSavedPlan } from '../engine/saved-plan.js';
import { planFormats, renderers, type PlanFormat } from '../render/index.js';
import { processIo, useColor } from './io.js';
import type { GlobalOptions } from './session.js';

/** `telform show plan.json`: a saved plan rendered again, offline (an apply job's log, a late comment). */
export function showCommand(): Command {
  return new Command('show')
    .description('Render a plan saved with `telform plan -o FILE`; sends no request.')
    .argument('<plan-file>', 'the saved plan')
    .addOption(new Option('--format <format>', 'output format').choices(planFormats).default('text'))
    .addHelpText(
      'after',
      `
Examples:
  $ telform show plan.json
  $ telform show plan.json --format markdown > comment.md`,
    )
    .action(async (planFile: string, options: { format: PlanFormat }, cmd: Command) => {
      const io = processIo();
      const plan = await readSavedPlan(planFile);
      io.stdout(renderers[options.format].plan(plan, { color: useColor(cmd.optsWithGlobals<GlobalOptions>(), io) }));
    });
}
