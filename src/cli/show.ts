import { Command, Option } from 'commander';
import { resolveConnection } from '../api/connection.js';
import type { Plan } from '../engine/plan-types.js';
import { describeSeal, readSavedPlan } from '../run/saved-plan.js';
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
    .description('Render a plan saved with `telform plan -o FILE`, saying whether its seal was verified; sends no request.')
    .argument('<plan-file>', 'the saved plan')
    .addOption(new Option('--format <format>', 'output format').choices(formatChoices('plan')).default('text'))
    .option('--show-unmanaged', 'list the objects in the account that neither the manifests nor the state knew (as plan --show-unmanaged)')
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
      const plan = await readSavedPlan(planFile);
      const seal = describeSeal(plan, await sealToken(plan, globals, io.env), planFile);
      if (seal.verified) io.stderr(seal.message);
      const shown = planForDisplay(plan, options.showUnmanaged ?? false, seal.verified ? [] : [seal.message]);
      io.stdout(rendererFor(options.format, 'plan')(shown, { color: useColor(globals, io) }));
    });
}

/**
 * The token `apply` would verify the seal with: the environment's credentials, or the embedded
 * emulator's for a plan made against it. Undefined when there is none (show needs no credentials).
 */
async function sealToken(plan: Plan, globals: GlobalOptions, env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  let target: ReturnType<typeof resolveConnection>;
  try {
    target = resolveConnection({ endpointFlag: globals.endpoint, env });
  } catch {
    return undefined;
  }
  if (target.kind === 'remote') return target.credentials.authToken;
  if (plan.endpoint !== 'local') return undefined;
  const { defaultAccount } = await import('../emulator/index.js');
  return defaultAccount.authToken;
}
