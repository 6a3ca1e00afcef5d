import { Command, Option } from 'commander';
import { formatChoices } from '../render/formats.js';
import { processIo } from './io.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { addSecretFileOption } from './plan-command-options.js';
import type { GlobalOptions } from '../run/context.js';
import { addAccountsOptions } from './accounts-options.js';
import { cliContext } from './session.js';
import { addValuesOptions } from './values-options.js';
import { parseDriftArguments, type DriftFlags } from './arguments/drift.js';
import { readAhead } from '../run/early-reads.js';
import { givenFlags } from './arguments/given.js';
import { inputOrRefuse } from './arguments/parsed.js';

export function driftCommand(): Command {
  const command = new Command('drift');
  return addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(command))))
    .description('Report whether the account still matches the manifests and the state; changes nothing.')
    .option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, [])
    .addOption(
      new Option('--format <format>', 'output format (with --accounts: text, json, markdown, github or gitlab)')
        .choices(formatChoices('drift', 'accounts'))
        .default('text'),
    )
    .option(
      '--write',
      'accept the changes made outside telform: rewrite the manifests to say what the account now holds (comments, order and quoting kept)',
    )
    .option(
      '--accept <address>',
      "with --write: accept only this resource's changes, e.g. Trunk/pbx-out (repeatable)",
      collect,
      [],
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 in sync, 1 error, 2 the account was changed outside telform (whether or not the
manifests changed too), 3 only manifest changes wait to be applied. Without a state file a
difference in an object the account holds is 2, a resource never created 3. Registry waits, expired campaigns and declined registrations are reported, not acted on.

Examples (examples/ runs as shown on the embedded emulator, and acme.values.yaml is the file
docs/values-and-waves.md writes; other folders, files and addresses stand for your own):
  $ telform drift -f manifests/
  $ telform drift -f manifests/ --format json > drift.json; echo $?
  $ telform drift -f manifests/ --format github                # registry refusals as pull-request annotations
  $ telform drift -f examples/reseller/shared/ --values acme.values.yaml
  $ telform drift -f manifests/ --write && git diff manifests/      # accept what support changed by hand
  $ telform drift -f manifests/ --write --accept Trunk/pbx-out      # accept that trunk's changes, not the rest

--write never writes a secret (a write-only field cannot be read back: it is a note) and keeps
{ ref } references; it exits 0 once the manifests say what the account holds, 2 when a value
that differs could not be written (each is a note: edit it by hand).`,
    )
    .action(async (flags: DriftFlags, cmd: Command) => {
      const input = inputOrRefuse(parseDriftArguments(flags, givenFlags(cmd)));
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const io = processIo();
      // As plan does (cli/plan.ts): the state's lists are asked for before the rest of the command loads.
      const ahead =
        input.mode === 'accounts'
          ? undefined
          : readAhead(globals, cliContext(io), { targets: [], destroy: false, prune: [] });
      await ahead?.sent();
      const { runDrift } = await import('./drift-run.js');
      process.exitCode = await runDrift(input, globals, io, ahead);
    });
}
