import { createInterface } from 'node:readline/promises';
import { Command, Option } from 'commander';
import { renderApplySummary, renderNotApplied } from '../render/apply.js';
import { planForDisplay, rendererFor } from '../render/index.js';
import { applyReconciled, recordedLine } from '../run/apply.js';
import type { GlobalOptions } from '../run/context.js';
import { ExitCode } from '../run/exit-codes.js';
import { approvalsFrom, withReconciliation } from '../run/reconcile.js';
import { reconcileRevert, revertOf, writeRevertBack } from '../run/revert.js';
import { planNotes, refusalError, refusalLines } from '../run/safety.js';
import { assertPlanTarget, writeSavedPlan } from '../run/saved-plan.js';
import { TelformError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import { addClientOptions } from './client-options.js';
import { processIo, useColor, type CommandIo } from './io.js';
import { collect, duration, positiveInteger } from './option-parsers.js';
import { parseRevertArguments, type RevertFlags, type RevertInput } from './arguments/revert.js';
import { inputOrRefuse } from './arguments/parsed.js';
import { cliContext } from './session.js';
import { applyStanding, interruptible } from './interrupt.js';
import { ApplyProgress } from './progress.js';
import { countApplySteps } from '../engine/summary.js';

/**
 * `telform revert N`: the plan that puts back what apply #N changed, against the account as it is
 * now, through the same gates as any plan; applied after approval, saved with -o, or written into the
 * manifests with --write (the revert then goes through review as a pull request).
 */
export function revertCommand(): Command {
  const command = new Command('revert')
    .description('Plan putting back what one apply changed (its number in telform history), then apply it, save it (-o) or write it into the manifests (--write).')
    .argument('<apply>', 'the apply\'s number, as telform history shows it (#N)', positiveInteger);
  addClientOptions(command)
    .option('-f, --file <path>', 'with --write: the manifests to write the earlier values into (repeatable)', collect, [])
    .option('--write', 'write the values from before the apply into the manifests (every other byte kept) instead of applying')
    .option('-o, --out <file>', 'save the revert plan (JSON) for review and `telform apply FILE`, instead of applying it')
    .option('--allow-irreversible <address>', 'approve registering a deleted campaign anew, or deleting a brand or campaign the apply created (repeatable; "all")', collect, [])
    .addOption(new Option('--max-cost <usd>', 'approve billable changes up to this many USD (a campaign update put back, or a deleted campaign registered again, is a 15 USD vetting review)').argParser(Number))
    .addOption(new Option('--max-numbers-affected <n>', 'approve a revert that breaks calls or messages of up to this many numbers').argParser(Number))
    .option('--force-deletes', 'approve deleting all of a kind, or more than 30% of a kind with 10 or more')
    .option('--auto-approve', 'apply without asking (for pipelines)')
    .option('--wait <duration>', 'wait up to this long for registry approvals (e.g. 15m) and continue with what waited on them', duration)
    .option('--parallelism <n>', 'requests and operations in flight at once', positiveInteger, 8)
    .option('--allow-secret-files-outside', 'let { fromFile } secrets lie outside the working directory')
    .addHelpText(
      'after',
      `
A revert is planned from the state and the history, not from the manifests: an update gets back the
values from before the apply, what it created is deleted, what it deleted is created again. What
cannot come back is said: a deleted campaign returns only as a new registration (new id, new
vetting), refused without --allow-irreversible, and billed as a vetting review (15 USD, approved with
--max-cost); a deleted brand (its profile has registered its one brand) and a released number not at all;
a secret only if where it is read from holds the earlier value (the history keeps fingerprints).
Without --write the manifests still say what the apply made: the next drift shows them ahead.

Examples:
  $ telform history                                         # find the apply: #42
  $ telform revert 42                                       # show the plan, ask, apply
  $ telform revert 42 -o revert-42.json                     # for review; then telform apply revert-42.json
  $ telform revert 42 --write -f manifests/                 # the revert as a pull request
  $ telform revert 42 --auto-approve --allow-irreversible Campaign/spring --max-cost 15
  $ telform revert 42 --auto-approve --allow-irreversible all --max-cost 15 --wait 15m  # continue after the registry`,
    )
    .action(async (seq: number, flags: RevertFlags, cmd: Command) => {
      process.exitCode = await runRevert(seq, inputOrRefuse(parseRevertArguments(flags)), cmd.optsWithGlobals<GlobalOptions>());
    });
  return command;
}

async function runRevert(seq: number, input: RevertInput, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  if (input.mode === 'write') {
    const { record } = await revertOf(seq, globals, { io });
    const result = await writeRevertBack(record, input.files, { io });
    for (const line of result.written) io.stdout(`wrote ${printable(line)}\n`);
    for (const note of result.notes) io.stderr(`note: ${printable(note)}`);
    if (result.written.length === 0) io.stdout(`nothing to write: apply #${seq} changed no field of a resource in these manifests\n`);
    else io.stderr(`review the diff and open a pull request; applying it reverts apply #${seq}`);
    return ExitCode.ok;
  }
  const { flags: options } = input;
  const out = input.mode === 'save' ? input.out : undefined;
  const waitMs = input.mode === 'apply' ? input.waitMs : 0;
  if (out) await assertPlanTarget(out, [], io.cwd);
  const approvals = approvalsFrom({
    allowIrreversible: options.allowIrreversible,
    ...(options.maxCost === undefined ? {} : { maxCost: options.maxCost }),
    ...(options.maxNumbersAffected === undefined ? {} : { maxNumbersAffected: options.maxNumbersAffected }),
    forceDeletes: options.forceDeletes === true,
  });
  const { run } = await reconcileRevert(seq, { ...globals, parallelism: options.parallelism }, approvals, cliContext(io), {
    lock: out === undefined,
    allowSecretFilesOutside: options.allowSecretFilesOutside,
  });
  return withReconciliation(run, async () => {
    const { plan } = run;
    if (!globals.quiet) io.stdout(rendererFor('text', 'plan')(planForDisplay(plan, false, planNotes(plan, approvals)), { color: useColor(globals, io), ...(waitMs > 0 ? { waitMs } : {}) }));
    if (out) {
      await writeSavedPlan(out, plan, run.session.authToken, io.cwd);
      for (const line of refusalLines(run.violations)) io.stderr(line);
      io.stderr(`saved the revert of apply #${seq} to ${out}; apply it with: telform apply ${out}`);
      return ExitCode.ok;
    }
    const progress = new ApplyProgress(countApplySteps(plan), { line: (text) => (globals.quiet ? undefined : io.stderr(text)) });
    const outcome = await applyReconciled(run, {
      parallelism: options.parallelism,
      waitMs,
      onEvent: progress.onEvent,
      history: { trigger: 'revert', reverts: seq },
      ...(options.autoApprove ? {} : { approve: () => approveOnTerminal(io) }),
      interruptible: (apply) => interruptible('telform revert', applyStanding(progress), apply),
    }).finally(() => progress.flush());
    switch (outcome.status) {
      case 'refused':
        for (const line of refusalLines(outcome.violations)) io.stderr(line);
        throw refusalError(outcome.violations);
      case 'no_changes':
        for (const recorded of outcome.recorded) io.stderr(recordedLine(recorded));
        io.stdout(`Nothing to revert: the account already holds what it held before apply #${seq}.\n`);
        return ExitCode.ok;
      case 'cancelled':
        io.stderr('Revert cancelled; nothing was sent.');
        return ExitCode.error;
      case 'applied':
        io.stdout(`${renderApplySummary(plan, outcome.result)}\n`);
        for (const line of renderNotApplied(plan, outcome.result)) io.stderr(line);
        io.stderr(`recorded as #${outcome.record.seq} in the history (revert of #${seq}); the manifests still say what apply #${seq} made them, so the next drift shows them ahead: write the revert into them with telform revert ${seq} --write -f MANIFESTS`);
        return outcome.failed ? ExitCode.error : ExitCode.ok;
      default: {
        const never: never = outcome;
        throw new Error(`unhandled revert outcome ${String(never)}`);
      }
    }
  });
}

async function approveOnTerminal(io: CommandIo): Promise<boolean> {
  if (!io.isTty || !process.stdin.isTTY) {
    throw new TelformError('not_approved', 'not on a terminal and --auto-approve was not given, so nothing was reverted; review with telform revert N -o FILE and pass --auto-approve');
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question('Revert with these changes? Only "yes" is accepted: ')).trim() === 'yes';
  } finally {
    prompt.close();
  }
}
