import { Command, Option } from 'commander';
import { formatChoices, planForDisplay, rendererFor } from '../render/index.js';
import { summaryLine } from '../render/format.js';
import { commandTimer } from './timings.js';
import { processIo, useColor } from './io.js';
import { addClientOptions } from './client-options.js';
import { addApprovalOptions, addSecretFileOption } from './plan-command-options.js';
import type { GlobalOptions } from '../run/context.js';
import { planStep } from '../run/account-steps.js';
import { approvalsFrom } from '../run/reconcile.js';
import { ExitCode } from '../run/exit-codes.js';
import { planManifests } from '../run/plan.js';
import { addAccountsOptions } from './accounts-options.js';
import { runAccountsCommand } from './accounts-command.js';
import { cliContext } from './session.js';
import { rehearse } from '../run/rehearse.js';
import { rehearsalWaitMs, startReplica } from './replica.js';
import { addValuesOptions } from './values-options.js';
import { parsePlanArguments, type PlanFlags, type PlanInput } from './arguments/plan.js';
import { givenFlags } from './arguments/given.js';
import { inputOrRefuse } from './arguments/parsed.js';

export function planCommand(): Command {
  const command = new Command('plan').description('Show what apply would change in the account to match the manifests; changes nothing.');
  addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(addApprovalOptions(command)))))
    .addOption(new Option('--format <format>', 'output format (with --accounts: text, json, markdown, github or gitlab; with --rehearse: text or markdown)').choices(formatChoices('plan', 'accounts')).default('text'))
    .option('-o, --out <file>', 'save the plan (JSON) for `telform apply FILE`, with the approvals given here')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .option('--show-unmanaged', 'list objects in the account that neither the manifests nor the state know')
    .option('--rehearse', 'also apply the plan to a replica of the account (a fresh snapshot in a local emulator) and report what the API refused; nothing is sent to the account but reads')
    .addHelpText(
      'after',
      `
Examples:
  $ telform plan -f examples/
  $ telform plan -f manifests/ --format markdown > plan.md       # a pull-request comment
  $ telform plan -f manifests/ --rehearse --format markdown      # and what the API did with it on a replica
  $ telform plan -f manifests/ --format mermaid > plan.mmd       # the changes and their order as a graph (also: dot)
  $ telform plan -f manifests/ --policy policies/telecom.yaml   # check the account's own rules
  $ telform plan -f manifests/ --format github                 # refusals and findings as pull-request annotations
  $ telform plan -f manifests/ -o plan.json --allow-irreversible Campaign/old-promo
  $ telform plan -f manifests/ --detailed-exitcode || echo "changes pending"
  $ telform plan -f manifests/ --exclude Campaign/spring-promo    # all but that campaign (and what uses it)
  $ telform plan --destroy -o teardown.json --allow-irreversible all  # a customer leaves: review, then apply it
  $ telform plan -f shared/ --values customers/acme.yaml --value pbx_ip=203.0.113.10`,
    )
    .action(async (flags: PlanFlags, cmd: Command) => {
      process.exitCode = await runPlan(inputOrRefuse(parsePlanArguments(flags, givenFlags(cmd))), cmd.optsWithGlobals<GlobalOptions>());
    });
  return command;
}

async function runPlan(input: PlanInput, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  const options = input.flags;
  const approvals = approvalsFrom(options);
  if (input.mode === 'accounts') {
    return runAccountsCommand({ command: 'plan', options, globals, approvals, lock: false, step: planStep(options) }, io);
  }
  // The same plan options for the real run and its rehearsal (which reads the whole replica anyway).
  const planOptions = {
    allowSecretFilesOutside: options.allowSecretFilesOutside,
    targets: options.target,
    policies: options.policy,
    excludes: options.exclude,
    destroy: options.destroy === true,
  };
  const outcome = await planManifests(
    {
      paths: options.file,
      values: options,
      approvals,
      options: { ...planOptions, readAll: options.showUnmanaged === true },
      out: options.out,
      detailedExitcode: options.detailedExitcode === true,
    },
    globals,
    cliContext(io),
  );
  const { plan } = outcome;
  const shown = planForDisplay(plan, options.showUnmanaged ?? false, outcome.notes);
  if (!globals.quiet || options.format !== 'text') io.stdout(commandTimer.time('render', () => rendererFor(options.format, 'plan')(shown, { color: useColor(globals, io) })));
  else io.stdout(`${summaryLine(plan.summary)}\n`);
  if (options.out) io.stderr(`saved the plan to ${options.out}; apply it with: telform apply ${options.out}`);
  const code = outcome.exitCode;
  if (!options.rehearse) return code;
  // After the real run let go of its state: the rehearsal copies it and reads the account once more.
  const rehearsal = await rehearse(
    {
      reconcile: outcome.input,
      globals,
      options: planOptions,
      waitMs: rehearsalWaitMs,
      parallelism: globals.parallelism ?? 8,
    },
    cliContext(io),
    startReplica,
  );
  const rehearsalReport = rendererFor(options.format, 'rehearsal')(rehearsal);
  io.stdout(options.format === 'text' ? `\n${rehearsalReport}` : rehearsalReport);
  // A rehearsal the API refused fails the check that ran it, before anyone reviews the plan.
  return rehearsal.clean ? code : ExitCode.error;
}
