import { Command, Option } from 'commander';
import { commandTimer } from './timings.js';
import { formatChoices, rendererFor } from '../render/index.js';
import { processIo, useColor } from './io.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { addSecretFileOption } from './plan-command-options.js';
import type { GlobalOptions } from '../run/context.js';
import { driftStep } from '../run/account-steps.js';
import { checkDrift } from '../run/drift-check.js';
import { ExitCode } from '../run/exit-codes.js';
import { printable } from '../util/printable.js';
import { approvalsFrom } from '../run/reconcile.js';
import { describeWindow, type DriftWindow } from '../run/drift-window.js';
import { addAccountsOptions } from './accounts-options.js';
import { runAccountsCommand } from './accounts-command.js';
import { cliContext } from './session.js';
import { addValuesOptions } from './values-options.js';
import { parseDriftArguments, type DriftFlags, type DriftInput } from './arguments/drift.js';
import { givenFlags } from './arguments/given.js';
import { inputOrRefuse } from './arguments/parsed.js';


export function driftCommand(): Command {
  const command = new Command('drift');
  return addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(command))))
    .description('Report whether the account still matches the manifests and the state; changes nothing.')
    .option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, [])
    .addOption(new Option('--format <format>', 'output format (with --accounts: text, json, markdown, github or gitlab)').choices(formatChoices('drift', 'accounts')).default('text'))
    .option('--write', 'accept the changes made outside telform: rewrite the manifests to say what the account now holds (comments, order and quoting kept)')
    .option('--accept <address>', 'with --write: accept only this resource\'s changes, e.g. Trunk/pbx-out (repeatable)', collect, [])
    .addHelpText(
      'after',
      `
Exit codes: 0 in sync, 1 error, 2 the account was changed outside telform (whether or not the
manifests changed too), 3 only manifest changes wait to be applied. Without a state file a
difference in an object the account holds is 2, a resource never created 3. Registry waits, expired campaigns and declined registrations are reported, not acted on.

Examples:
  $ telform drift -f manifests/
  $ telform drift -f manifests/ --format json > drift.json; echo $?
  $ telform drift -f manifests/ --format github                # registry refusals as pull-request annotations
  $ telform drift -f shared/ --values customers/acme.yaml
  $ telform drift -f manifests/ --write && git diff manifests/      # accept what support changed by hand
  $ telform drift -f manifests/ --write --accept Trunk/pbx-out      # accept that trunk's changes, not the rest

--write never writes a secret (a write-only field cannot be read back: it is a note) and keeps
{ ref } references; it exits 0 once the manifests say what the account holds, 2 when a value
that differs could not be written (each is a note: edit it by hand).`,
    )
    .action(async (flags: DriftFlags, cmd: Command) => {
      process.exitCode = await runDrift(inputOrRefuse(parseDriftArguments(flags, givenFlags(cmd))), cmd.optsWithGlobals<GlobalOptions>());
    });
}

async function runDrift(input: DriftInput, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  const options = input.flags;
  if (input.mode === 'accounts') {
    return runAccountsCommand({ command: 'drift', options, globals, approvals: approvalsFrom({}), lock: false, step: driftStep }, io);
  }
  const check = await checkDrift(
    {
      paths: input.paths,
      values: options,
      allowSecretFilesOutside: options.allowSecretFilesOutside,
      write: input.mode === 'write' ? { accept: input.accept } : undefined,
      // The windows are printed after the text report only.
      windows: input.mode === 'report' && input.format === 'text' ? { checkedAt: new Date().toISOString() } : undefined,
    },
    globals,
    cliContext(io),
  );
  if (check.mode === 'write') {
    const result = check.result;
    for (const line of result.written) io.stdout(`wrote ${line}\n`);
    for (const note of [...result.notes, ...result.unwritten]) io.stderr(`note: ${printable(note)}`);
    if (result.unwritten.length > 0) {
      // The account still differs from the manifests there: say so, and exit as drift does for a change made outside telform.
      const count = result.unwritten.length;
      io.stdout(`${result.written.length === 0 ? 'Nothing written' : `Wrote ${result.written.length}`}: ${count} value${count === 1 ? '' : 's'} changed outside telform could not be written (see the note${count === 1 ? '' : 's'}); edit ${count === 1 ? 'it' : 'them'} by hand.\n`);
      return ExitCode.changes;
    }
    if (result.written.length === 0) io.stdout('Nothing to write: no value changed outside telform differs from the manifests.\n');
    return ExitCode.ok;
  }
  const format = input.mode === 'report' ? input.format : 'text';
  io.stdout(commandTimer.time('render', () => rendererFor(format, 'drift')(check.report, check.plan, { color: useColor(globals, io) })));
  if (check.windows) io.stdout(windowLines(check.windows.state, check.windows.windows));
  return check.exitCode;
}

/** Since when each change outside telform can have happened, from the state's history. */
function windowLines(state: string, windows: readonly DriftWindow[]): string {
  return `\nWhen (from the history of ${printable(state)}):\n${windows.map((window) => `  ${printable(describeWindow(window))}\n`).join('')}`;
}
