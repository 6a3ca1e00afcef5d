// `telform drift`'s run, loaded once its arguments parse (cli/drift.ts): the engine, the manifest
// loader and the renderers compile while the reads the command started ahead are answered.
import { commandTimer } from './timings.js';
import { rendererFor } from '../render/index.js';
import { useColor, type CommandIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { driftStep } from '../run/account-steps.js';
import { checkDrift } from '../run/drift-check.js';
import { ExitCode } from '../run/exit-codes.js';
import { printable } from '../util/printable.js';
import { approvalsFrom } from '../run/reconcile.js';
import { describeWindow, type DriftWindow } from '../run/drift-window.js';
import { withReadsAhead, type ReadsAhead } from '../run/early-reads.js';
import { runAccountsCommand } from './accounts-command.js';
import { cliContext } from './session.js';
import type { DriftInput } from './arguments/drift.js';

export function runDrift(
  input: DriftInput,
  globals: GlobalOptions,
  io: CommandIo,
  ahead: ReadsAhead | undefined,
): Promise<number> {
  return withReadsAhead(ahead, () => driftOrAccounts(input, globals, io, ahead));
}

async function driftOrAccounts(
  input: DriftInput,
  globals: GlobalOptions,
  io: CommandIo,
  ahead: ReadsAhead | undefined,
): Promise<number> {
  const options = input.flags;
  if (input.mode === 'accounts') {
    return runAccountsCommand(
      { command: 'drift', options, globals, approvals: approvalsFrom({}), lock: false, step: driftStep },
      io,
    );
  }
  const check = await checkDrift(
    {
      paths: input.paths,
      values: options,
      allowSecretFilesOutside: options.allowSecretFilesOutside,
      write: input.mode === 'write' ? { accept: input.accept } : undefined,
      // The windows are printed after the text report only.
      windows: input.mode === 'report' && input.format === 'text' ? { checkedAt: new Date().toISOString() } : undefined,
      ...(ahead ? { readsAhead: ahead } : {}),
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
      io.stdout(
        `${result.written.length === 0 ? 'Nothing written' : `Wrote ${result.written.length}`}: ${count} value${count === 1 ? '' : 's'} changed outside telform could not be written (see the note${count === 1 ? '' : 's'}); edit ${count === 1 ? 'it' : 'them'} by hand.\n`,
      );
      return ExitCode.changes;
    }
    if (result.written.length === 0)
      io.stdout('Nothing to write: no value changed outside telform differs from the manifests.\n');
    return ExitCode.ok;
  }
  const format = input.mode === 'report' ? input.format : 'text';
  io.stdout(
    commandTimer.time('render', () =>
      rendererFor(format, 'drift')(check.report, check.plan, { color: useColor(globals, io) }),
    ),
  );
  if (check.windows) io.stdout(windowLines(check.windows.state, check.windows.windows));
  return check.exitCode;
}

/** Since when each change outside telform can have happened, from the state's history. */
function windowLines(state: string, windows: readonly DriftWindow[]): string {
  return `\nWhen (from the history of ${printable(state)}):\n${windows.map((window) => `  ${printable(describeWindow(window))}\n`).join('')}`;
}
