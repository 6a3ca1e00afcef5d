import { Command, Option } from 'commander';
import { formatChoices, planForDisplay, rendererFor } from '../render/index.js';
import { processIo, useColor } from './io.js';
import { duration, positiveInteger } from './option-parsers.js';
import { addClientOptions } from './client-options.js';
import { addApprovalOptions, addSecretFileOption } from './plan-command-options.js';
import { applyStanding, claimStanding, interruptible } from './interrupt.js';
import { applyProgress } from './progress.js';
import { approveOnTerminal, renderApplyOutcome } from './apply-outcome.js';
import type { GlobalOptions } from '../run/context.js';
import { approvalsFrom } from '../run/reconcile.js';
import { applyManifests } from '../run/apply-run.js';
import { applyStep } from '../run/account-steps.js';
import { printable } from '../util/printable.js';
import { addAccountsOptions } from './accounts-options.js';
import { runAccountsCommand } from './accounts-command.js';
import { cliContext } from './session.js';
import { rehearsalWaitMs, startReplica } from './replica.js';
import { addValuesOptions } from './values-options.js';
import { addWavesOptions } from './waves-options.js';
import { parseApplyArguments, type ApplyFlags, type ApplyInput } from './arguments/apply.js';
import { givenFlags } from './arguments/given.js';
import { inputOrRefuse } from './arguments/parsed.js';

export function applyCommand(): Command {
  const command = new Command('apply')
    .description('Change the account to match the manifests (or apply a saved plan exactly).')
    .argument('[plan-file]', 'a plan saved with `telform plan -o FILE`, applied exactly as reviewed');
  addWavesOptions(
    addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(addApprovalOptions(command))))),
  )
    .addOption(
      new Option(
        '--format <format>',
        'output format: one account in text or json (the result as an accounts-report entry; needs --auto-approve or a saved plan); with --accounts also markdown, github or gitlab',
      )
        .choices(formatChoices('apply', 'accounts'))
        .default('text'),
    )
    .option('--auto-approve', 'apply without asking (for pipelines)')
    .option(
      '--rehearse',
      'with a saved plan: apply it to a replica of the account first, and apply it here only if it went through there',
    )
    .option(
      '--approvals <dir>',
      'with a saved plan: the folder of its signed approvals (default: beside the plan, plan.approvals/; see docs/approvals.md)',
    )
    .option(
      '--emergency <reason>',
      "apply outside an approval rule's window or a freeze, where the rule allows it and a person of its emergency role signed the same reason",
    )
    .option('--parallelism <n>', 'requests and operations in flight at once', positiveInteger, 8)
    .option(
      '--wait <duration>',
      'wait up to this long for registry approvals (e.g. 15m) and continue with what waited on them',
      duration,
    )
    .addHelpText(
      'after',
      `
Without --auto-approve it shows the plan and asks on a terminal; elsewhere it refuses.
Irreversible changes (brand/campaign deletes and replaces) need --allow-irreversible ADDRESS,
billable ones (campaign vetting reviews, 15 USD each) --max-cost USD, a plan that breaks calls or
messages of phone numbers --max-numbers-affected N (its blast radius; default 0), a campaign submitted
with a 10DLC lint error --allow-lint RULE.

Examples (examples/ runs as shown on the embedded emulator, and acme.values.yaml is the file
docs/values-and-waves.md writes; other folders, files and addresses stand for your own):
  $ set -a; . examples/demo-secrets.env; set +a                # the demo secrets examples/ reads
  $ telform apply -f examples/
  $ telform apply -f manifests/ --auto-approve --wait 15m
  $ telform apply -f manifests/ --auto-approve --format json > result.json
  $ telform plan -f manifests/ -o plan.json && telform apply plan.json
  $ telform apply plan.json --policy policies/approvals.yaml      # with the approvals signed beside it
  $ telform apply -f manifests/ --auto-approve --allow-irreversible Campaign/old-promo --max-cost 15
  $ telform apply -f examples/reseller/shared/ --values acme.values.yaml --auto-approve
  $ telform apply --accounts accounts.yaml --auto-approve --waves 1,10%,100% --soak 10m
  $ telform apply --accounts accounts.yaml --auto-approve --waves 2,100% --canary acme --canary globex
  $ telform apply --accounts accounts.yaml --auto-approve --resume      # after fixing what stopped it
  $ telform apply -f manifests/ --auto-approve --max-numbers-affected 37     # deleting a trunk with 37 numbers
  $ telform apply -f manifests/ --exclude Trunk/pbx-out --auto-approve     # everything but that trunk and what uses it
  $ telform apply --destroy --allow-irreversible all --auto-approve        # teardown of everything telform manages`,
    )
    .action(async (planFile: string | undefined, flags: ApplyFlags, cmd: Command) => {
      process.exitCode = await runApply(
        inputOrRefuse(parseApplyArguments(planFile, flags, givenFlags(cmd))),
        cmd.optsWithGlobals<GlobalOptions>(),
      );
    });
  return command;
}

async function runApply(input: ApplyInput, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  const options = input.flags;
  const sessionGlobals = { ...globals, parallelism: options.parallelism };
  const waitMs = options.wait ?? 0;
  if (input.mode === 'accounts') {
    const step = applyStep({ parallelism: options.parallelism, waitMs });
    const rollout = input.rollout;
    return runAccountsCommand(
      {
        command: 'apply',
        options,
        globals: sessionGlobals,
        approvals: approvalsFrom(options),
        lock: true,
        step,
        ...(rollout ? { rollout } : {}),
        ignoreRollout: options.ignoreRollout === true,
      },
      io,
    );
  }
  const planFile = input.mode === 'saved-plan' ? input.planFile : undefined;
  const asJson = options.format === 'json';
  const quiet = globals.quiet === true;
  // On a terminal (text only), a status line of what is running, redrawn in place below the finished lines.
  const liveView = !asJson && Boolean(process.stderr.isTTY) && !quiet;
  const applied = await applyManifests(
    {
      source: planFile ? { savedPlan: planFile } : { paths: options.file, values: options },
      approvals: approvalsFrom(options),
      options: {
        allowSecretFilesOutside: options.allowSecretFilesOutside,
        targets: options.target,
        policies: options.policy,
        excludes: options.exclude,
        destroy: options.destroy === true,
      },
      parallelism: options.parallelism,
      waitMs,
      asReportEntry: asJson,
      ...(options.rehearse && planFile ? { rehearsal: { start: startReplica, waitMs: rehearsalWaitMs } } : {}),
      approvalGate: {
        ...(options.approvals === undefined ? {} : { approvalsFolder: options.approvals }),
        ...(options.emergency === undefined ? {} : { emergency: options.emergency }),
      },
    },
    sessionGlobals,
    cliContext(io),
    {
      rehearsed: (rehearsal) => io.stderr(rendererFor('text', 'rehearsal')(rehearsal).trimEnd()),
      planned: (run) => {
        if (!asJson && !quiet) {
          io.stdout(
            rendererFor('text', 'plan')(planForDisplay(run.plan, false, run.notes), {
              color: useColor(globals, io),
              ...(options.wait === undefined ? {} : { waitMs }),
            }),
          );
        }
        const progress = applyProgress(run.steps, io, { quiet, liveView });
        if (asJson)
          return {
            onEvent: progress.onEvent,
            interruptible: (apply) => interruptible('telform apply', applyStanding(progress), apply),
            done: () => progress.flush(),
          };
        const claim = { claiming: false, account: run.account, state: run.state };
        return {
          onEvent: progress.onEvent,
          // A saved plan was reviewed when it was made; manifests are asked about on a terminal (before the handlers: a ^C there stops as ever).
          ...(planFile || options.autoApprove
            ? {}
            : {
                approve: () =>
                  approveOnTerminal(
                    io,
                    'Apply these changes?',
                    'not on a terminal and --auto-approve was not given, so nothing was applied; review with `telform plan` and pass --auto-approve',
                  ),
              }),
          interruptible: (apply) =>
            interruptible('telform apply', claimStanding(claim, applyStanding(progress)), apply),
          onClaim: (claiming) => {
            claim.claiming = claiming;
          },
          done: () => progress.flush(),
        };
      },
    },
  );
  if (applied.mode === 'entry') {
    // `--format json` of one account: the result as an account's entry of the accounts report, on stdout.
    const { entry } = applied;
    if (entry.error) io.stderr(`error: ${printable(entry.error.message)}`);
    for (const problem of entry.problems ?? []) io.stderr(problem);
    io.stdout(rendererFor('json', 'apply')(entry));
    return entry.exit_code;
  }
  const { plan, outcome } = applied;
  return renderApplyOutcome(plan, outcome, io, {
    nothing: 'Nothing to apply.',
    cancelled: 'Apply cancelled; nothing was sent.',
    // A revert saved with `revert N -o`: its record says so, and `telform revert` would have said it too.
    recorded: (seq) =>
      plan.reverts === undefined ? undefined : `recorded as #${seq} in the history (revert of #${plan.reverts})`,
    clearLine: liveView,
  });
}
