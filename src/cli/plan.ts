import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { TelformError } from '../util/errors.js';
import { parseApprovalFlagsFile, withApprovalFlagsFile } from './arguments/approvals.js';
import { formatChoices } from '../render/formats.js';
import { processIo } from './io.js';
import { addClientOptions } from './client-options.js';
import { addApprovalOptions, addSecretFileOption } from './plan-command-options.js';
import type { GlobalOptions } from '../run/context.js';
import { addAccountsOptions } from './accounts-options.js';
import { cliContext } from './session.js';
import { addValuesOptions } from './values-options.js';
import { parsePlanArguments, type PlanFlags } from './arguments/plan.js';
import { readAhead } from '../run/early-reads.js';
import { givenFlags } from './arguments/given.js';
import { inputOrRefuse } from './arguments/parsed.js';

/** The flags given with those of `--approval-flags FILE` (relative to the working directory). */
async function withFlagsOfFile(flags: PlanFlags, file: string): Promise<PlanFlags> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TelformError(
      'bad_option',
      `--approval-flags ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const { values, problems } = parseApprovalFlagsFile(file, text);
  if (problems.length > 0) throw new TelformError('bad_option', `--approval-flags ${problems.join('; ')}`);
  return withApprovalFlagsFile(flags, values);
}

export function planCommand(): Command {
  const command = new Command('plan').description(
    'Show what apply would change in the account to match the manifests; changes nothing.',
  );
  addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(addApprovalOptions(command)))))
    .addOption(
      new Option(
        '--format <format>',
        'output format (with --accounts: text, json, markdown, github or gitlab; with --rehearse: text or markdown)',
      )
        .choices(formatChoices('plan', 'accounts'))
        .default('text'),
    )
    .option('-o, --out <file>', 'save the plan (JSON) for `telform apply FILE`, with the approvals given here')
    .option(
      '--approvals <dir>',
      "the signed approvals the plan's Approvals table counts (default: beside -o FILE, FILE.approvals/; docs/approvals.md)",
    )
    .option(
      '--approval-flags <file>',
      "approval flags reviewed in a file, one per line as on the command line (a CI template's telform.approvals; docs/ci.md)",
    )
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .option('--show-unmanaged', 'list objects in the account that neither the manifests nor the state know')
    .option(
      '--rehearse',
      'also apply the plan to a replica of the account (a fresh snapshot in a local emulator) and report what the API refused; nothing is sent to the account but reads',
    )
    .addHelpText(
      'after',
      `
Examples (examples/ runs as shown on the embedded emulator, and acme.values.yaml is the file
docs/values-and-waves.md writes; other folders, files and addresses stand for your own):
  $ set -a; . examples/demo-secrets.env; set +a                # the demo secrets examples/ reads
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
  $ telform plan -f examples/reseller/shared/ --values acme.values.yaml --value uri_host=sip2.acme.example.com`,
    )
    .action(async (given: PlanFlags, cmd: Command) => {
      const flags = given.approvalFlags === undefined ? given : await withFlagsOfFile(given, given.approvalFlags);
      const input = inputOrRefuse(parsePlanArguments(flags, givenFlags(cmd)));
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const io = processIo();
      // The lists the state needs are asked for before the rest of the command loads: on a small
      // account, compiling the engine and the renderers takes as long as the first pages.
      const ahead =
        input.mode === 'one'
          ? readAhead(globals, cliContext(io), {
              targets: input.flags.target ?? [],
              destroy: input.flags.destroy === true,
              prune: input.flags.pruneUnmanaged ?? [],
            })
          : undefined;
      // Compiling the run holds the thread: the first pages go out before it starts.
      await ahead?.sent();
      const { runPlan } = await import('./plan-run.js');
      process.exitCode = await runPlan(input, globals, io, ahead);
    });
  return command;
}
