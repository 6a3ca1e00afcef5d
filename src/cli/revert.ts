import { Command, Option } from 'commander';
import { planForDisplay, rendererFor } from '../render/index.js';
import type { GlobalOptions } from '../run/context.js';
import { ExitCode } from '../run/exit-codes.js';
import { approvalsFrom } from '../run/reconcile.js';
import { revertApply, type RevertRequest } from '../run/revert-run.js';
import { refusalLines } from '../run/safety.js';
import { printable } from '../util/printable.js';
import { addClientOptions } from './client-options.js';
import { processIo, useColor } from './io.js';
import { collect, duration, positiveInteger } from './option-parsers.js';
import { approvalOption } from './arguments/approvals.js';
import { parseRevertArguments, type RevertFlags, type RevertInput } from './arguments/revert.js';
import { inputOrRefuse } from './arguments/parsed.js';
import { cliContext } from './session.js';
import { applyStanding, interruptible } from './interrupt.js';
import { applyProgress } from './progress.js';
import { approveOnTerminal, renderApplyOutcome } from './apply-outcome.js';

/**
 * `telform revert N`: the plan that puts back what apply #N changed, against the account as it is
 * now, through the same gates as any plan; applied after approval, saved with -o, or written into the
 * manifests with --write (the revert then goes through review as a pull request).
 */
export function revertCommand(): Command {
  const command = new Command('revert')
    .description(
      'Plan putting back what one apply changed (its number in telform history), then apply it, save it (-o) or write it into the manifests (--write).',
    )
    .argument('<apply>', "the apply's number, as telform history shows it (#N)", positiveInteger);
  addClientOptions(command)
    .option(
      '-f, --file <path>',
      'with --write: the manifests to write the earlier values into (repeatable)',
      collect,
      [],
    )
    .option(
      '--write',
      'write the values from before the apply into the manifests (every other byte kept) instead of applying',
    )
    .option(
      '-o, --out <file>',
      'save the revert plan (JSON) for review and `telform apply FILE`, instead of applying it',
    )
    .addOption(
      approvalOption(
        'allowIrreversible',
        'approve registering a deleted campaign anew, or deleting a brand or campaign the apply created (repeatable; "all")',
      ),
    )
    .addOption(
      approvalOption(
        'maxCost',
        'approve billable changes up to this many USD (a campaign update put back, or a deleted campaign registered again, is a 15 USD vetting review)',
      ),
    )
    .addOption(
      approvalOption('maxNumbersAffected', 'approve a revert that breaks calls or messages of up to this many numbers'),
    )
    .addOption(approvalOption('over'))
    .addOption(approvalOption('forceDeletes'))
    .option(
      '--policy <file>',
      "judge the revert by this policy file's CEL rules and approval rules, as any plan (repeatable; docs/policies.md)",
      collect,
      [],
    )
    .option(
      '--emergency <reason>',
      "apply the revert outside an approval rule's window or a freeze, where the rule allows it (docs/approvals.md)",
    )
    .option('--auto-approve', 'apply without asking (for pipelines)')
    .option(
      '--wait <duration>',
      'wait up to this long for registry approvals (e.g. 15m) and continue with what waited on them',
      duration,
    )
    .option('--parallelism <n>', 'requests and operations in flight at once', positiveInteger, 8)
    .option('--allow-secret-files-outside', 'let { fromFile } secrets lie outside the working directory')
    .addHelpText(
      'after',
      `
A revert is planned from the state and the history, not from the manifests: the fields the apply
changed get back their values from before it (no other field), what it created is deleted, what it
deleted is created again. A field a later apply changed again is a conflict: the plan names the field
and the later apply, and the revert is refused unless --over LATER takes it back anyway. What
cannot come back is said: a deleted campaign returns only as a new registration (new id, new
vetting), refused without --allow-irreversible, and billed as a vetting review (15 USD, approved with
--max-cost); a deleted brand (its profile has registered its one brand) and a released number not at all;
a secret only if where it is read from holds the earlier value (the history keeps fingerprints).
Without --write the manifests still say what the apply made: the next drift shows them ahead.

Examples:
  $ telform history                                         # find the apply: #42
  $ telform revert 42                                       # show the plan, ask, apply
  $ telform revert 42 -o revert-42.json                     # for review; then telform apply revert-42.json
  $ telform revert 42 --over 43                             # also take back what #43 changed again
  $ telform revert 42 --write -f manifests/                 # the revert as a pull request
  $ telform revert 42 --auto-approve --allow-irreversible Campaign/spring --max-cost 15
  $ telform revert 42 --auto-approve --allow-irreversible all --max-cost 15 --wait 15m  # continue after the registry`,
    )
    .action(async (seq: number, flags: RevertFlags, cmd: Command) => {
      process.exitCode = await runRevert(
        seq,
        inputOrRefuse(parseRevertArguments(flags)),
        cmd.optsWithGlobals<GlobalOptions>(),
      );
    });
  return command;
}

async function runRevert(seq: number, input: RevertInput, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  const quiet = globals.quiet === true;
  const request = revertRequest(seq, input);
  const waitMs = input.mode === 'apply' ? input.waitMs : 0;
  const reverted = await revertApply(
    request,
    input.mode === 'write' ? globals : { ...globals, parallelism: input.flags.parallelism },
    cliContext(io),
    {
      planned: (run) => {
        if (!quiet)
          io.stdout(
            rendererFor('text', 'plan')(planForDisplay(run.plan, false, run.notes), {
              color: useColor(globals, io),
              ...(waitMs > 0 ? { waitMs } : {}),
            }),
          );
        if (input.mode !== 'apply') return {};
        const progress = applyProgress(run.steps, io, { quiet, liveView: false });
        return {
          onEvent: progress.onEvent,
          ...(input.flags.autoApprove
            ? {}
            : {
                approve: () =>
                  approveOnTerminal(
                    io,
                    'Revert with these changes?',
                    'not on a terminal and --auto-approve was not given, so nothing was reverted; review with telform revert N -o FILE and pass --auto-approve',
                  ),
              }),
          interruptible: (apply) => interruptible('telform revert', applyStanding(progress), apply),
          done: () => progress.flush(),
        };
      },
    },
  );
  switch (reverted.mode) {
    case 'written': {
      const { result } = reverted;
      for (const line of result.written) io.stdout(`wrote ${printable(line)}\n`);
      for (const note of result.notes) io.stderr(`note: ${printable(note)}`);
      if (result.written.length === 0)
        io.stdout(`nothing to write: apply #${seq} changed no field of a resource in these manifests\n`);
      else io.stderr(`review the diff and open a pull request; applying it reverts apply #${seq}`);
      return ExitCode.ok;
    }
    case 'saved':
      for (const line of refusalLines(reverted.violations)) io.stderr(line);
      io.stderr(`saved the revert of apply #${seq} to ${reverted.out}; apply it with: telform apply ${reverted.out}`);
      return ExitCode.ok;
    case 'apply':
      return renderApplyOutcome(reverted.plan, reverted.outcome, io, {
        nothing: `Nothing to revert: the account already holds what it held before apply #${seq}.`,
        cancelled: 'Revert cancelled; nothing was sent.',
        recorded: (record) =>
          `recorded as #${record} in the history (revert of #${seq}); the manifests still say what apply #${seq} made them, so the next drift shows them ahead: write the revert into them with telform revert ${seq} --write -f MANIFESTS`,
        clearLine: false,
      });
    default: {
      const never: never = reverted;
      throw new Error(`unhandled revert ${String(never)}`);
    }
  }
}

/** What the revert's flags ask of the operation. */
function revertRequest(seq: number, input: RevertInput): RevertRequest {
  if (input.mode === 'write') return { seq, mode: 'write', files: input.files };
  const { flags } = input;
  const planning = {
    approvals: approvalsFrom({
      allowIrreversible: flags.allowIrreversible,
      ...(flags.maxCost === undefined ? {} : { maxCost: flags.maxCost }),
      ...(flags.maxNumbersAffected === undefined ? {} : { maxNumbersAffected: flags.maxNumbersAffected }),
      forceDeletes: flags.forceDeletes === true,
    }),
    allowSecretFilesOutside: flags.allowSecretFilesOutside,
    over: flags.over,
    policies: flags.policy ?? [],
    ...(flags.emergency === undefined ? {} : { emergency: flags.emergency }),
  };
  return input.mode === 'save'
    ? { seq, mode: 'save', out: input.out, ...planning }
    : { seq, mode: 'apply', parallelism: flags.parallelism, waitMs: input.waitMs, ...planning };
}
