import { createInterface } from 'node:readline/promises';
import { Command, Option } from 'commander';
import { systemClock } from '../util/clock.js';
import { applyPlan, ledgerRefreshes, type ApplyInputs, type ApplyResult } from '../engine/apply.js';
import { mergeApprovals, readSavedPlan } from '../engine/saved-plan.js';
import { countApplySteps, hasChanges } from '../engine/summary.js';
import { unusedApprovals } from '../engine/safety.js';
import { TelformError } from '../util/errors.js';
import { renderApplySummary, renderNotApplied } from '../render/apply.js';
import { planForDisplay, planFormats, renderers, type PlanFormat } from '../render/index.js';
import { ExitCode } from './exit-codes.js';
import { processIo, useColor, type CommandIo } from './io.js';
import { duration, positiveInteger } from './option-parsers.js';
import { addClientOptions } from './client-options.js';
import { addApprovalOptions, addSecretFileOption, type ApprovalOptionValues, type SecretFileOptionValue } from './plan-command-options.js';
import { ApplyProgress } from './progress.js';
import { approvalsFrom, desiredByAddress, reconcile, type Reconciliation } from './reconcile.js';
import type { GlobalOptions } from './session.js';
import { addAccountsOptions, runAccounts, type AccountsOptionValues } from './accounts-run.js';
import { applyStep } from './account-steps.js';
import { addValuesOptions, valuesFromOptions, type ValuesOptionValues } from './values-options.js';

interface ApplyOptions extends ApprovalOptionValues, AccountsOptionValues, SecretFileOptionValue, ValuesOptionValues {
  format: PlanFormat;
  autoApprove?: boolean;
  parallelism: number;
  wait?: number;
}

export function applyCommand(): Command {
  const command = new Command('apply')
    .description('Change the account to match the manifests (or apply a saved plan exactly).')
    .argument('[plan-file]', 'a plan saved with `telform plan -o FILE`, applied exactly as reviewed');
  addValuesOptions(addSecretFileOption(addAccountsOptions(addClientOptions(addApprovalOptions(command)))))
    .addOption(new Option('--format <format>', 'with --accounts: the report format').choices(planFormats).default('text'))
    .option('--auto-approve', 'apply without asking (for pipelines)')
    .option('--parallelism <n>', 'requests and operations in flight at once', positiveInteger, 8)
    .option('--wait <duration>', 'wait up to this long for registry approvals (e.g. 15m) and continue with what waited on them', duration)
    .addHelpText(
      'after',
      `
Without --auto-approve it shows the plan and asks on a terminal; elsewhere it refuses.
Irreversible changes (brand/campaign deletes and replaces) need --allow-irreversible ADDRESS,
billable ones (campaign vetting reviews, 15 USD each) --max-cost USD, a plan that breaks calls or
messages of phone numbers --max-numbers-affected N (its blast radius; default 0), a campaign submitted
with a 10DLC lint error --allow-lint RULE.

Examples:
  $ telform apply -f examples/
  $ telform apply -f manifests/ --auto-approve --wait 15m
  $ telform plan -f manifests/ -o plan.json && telform apply plan.json
  $ telform apply -f manifests/ --auto-approve --allow-irreversible Campaign/old-promo --max-cost 15
  $ telform apply -f shared/ --values customers/acme.yaml --auto-approve
  $ telform apply -f manifests/ --auto-approve --max-numbers-affected 37     # deleting a trunk with 37 numbers`,
    )
    .action(async (planFile: string | undefined, options: ApplyOptions, cmd: Command) => {
      process.exitCode = await runApply(planFile, options, cmd.optsWithGlobals<GlobalOptions>());
    });
  return command;
}

async function runApply(planFile: string | undefined, options: ApplyOptions, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  if (planFile && options.file.length > 0) {
    throw new TelformError('bad_option', 'give either a saved plan file or -f manifests, not both');
  }
  const sessionGlobals = { ...globals, parallelism: options.parallelism };
  const values = await valuesFromOptions(options, io.cwd);
  if (planFile && values) throw new TelformError('bad_option', `${planFile} holds the values it was planned with: give --values / --value to \`telform plan\`, not to the apply of a saved plan`);
  if (options.accounts) {
    if (planFile) throw new TelformError('bad_option', 'a saved plan is for one account: give either a plan file or --accounts');
    if (options.target.length > 0) throw new TelformError('bad_option', '--target names resources of one account: give either --target or --accounts');
    if (!options.autoApprove) throw new TelformError('not_approved', 'an apply over --accounts does not ask: pass --auto-approve (review with `telform plan --accounts` first)');
    const step = applyStep({ parallelism: options.parallelism, waitMs: options.wait ?? 0 });
    return runAccounts({ command: 'apply', options, globals: sessionGlobals, approvals: approvalsFrom(options), lock: true, step, io });
  }
  const flagApprovals = approvalsFrom(options);
  let run: Reconciliation;
  if (planFile) {
    const saved = await readSavedPlan(planFile);
    if (options.target.length > 0) throw new TelformError('bad_option', `${planFile} is applied as it was planned: give --target to \`telform plan\`, not to the apply of a saved plan`);
    const approvals = mergeApprovals(saved.approvals, flagApprovals);
    run = await reconcile({ saved: { plan: saved, file: planFile } }, sessionGlobals, approvals, io, {
      lock: true,
      allowSecretFilesOutside: options.allowSecretFilesOutside,
    });
  } else {
    if (options.file.length === 0) throw new TelformError('bad_option', 'no manifests given: pass -f PATH (repeatable), or a saved plan file');
    run = await reconcile({ paths: options.file, ...(values ? { values } : {}) }, sessionGlobals, flagApprovals, io, {
      lock: true,
      allowSecretFilesOutside: options.allowSecretFilesOutside,
      targets: options.target,
    });
  }
  try {
    return await execute(run, { planFile, options, globals, io });
  } finally {
    await run.close();
  }
}

async function execute(
  run: Reconciliation,
  context: { planFile: string | undefined; options: ApplyOptions; globals: GlobalOptions; io: CommandIo },
): Promise<number> {
  const { options, globals, io } = context;
  const { plan, violations } = run;
  if (!globals.quiet) {
    io.stdout(renderers.text.plan(planForDisplay(plan, false, unusedApprovals(plan, plan.approvals)), { color: useColor(globals, io), ...(options.wait === undefined ? {} : { waitMs: options.wait }) }));
  }
  if (violations.length > 0) {
    for (const violation of violations) io.stderr(`refused: ${violation.message}`);
    throw new TelformError('unsafe_plan', `apply refused ${violations.length} unapproved change${violations.length === 1 ? '' : 's'} (listed above); nothing was sent`);
  }
  const inputs: ApplyInputs = {
    plan,
    kinds: new Map(run.kinds.map((kind) => [kind.kind, kind])),
    desired: desiredByAddress(run.desired.resources),
    store: run.store,
    live: run.live,
    fingerprinter: run.fingerprinter,
    resolveSecrets: run.desired.resolveSecrets,
    read: run.read,
  };
  if (!hasChanges(plan)) {
    // A protection given or lifted changes only the state: recorded without a request.
    const refreshed = ledgerRefreshes(plan, run.store, inputs.desired);
    if (refreshed.length > 0) await applyPlan(inputs, { parallelism: options.parallelism, waitMs: 0, clock: systemClock });
    for (const address of refreshed) {
      io.stderr(`recorded in the state: ${address} is ${inputs.desired.get(address)?.protect ? 'protected' : 'no longer protected'}`);
    }
    io.stdout('Nothing to apply.\n');
    return ExitCode.ok;
  }
  if (!context.planFile && !options.autoApprove) {
    if (!io.isTty || !process.stdin.isTTY) {
      throw new TelformError('not_approved', 'not on a terminal and --auto-approve was not given, so nothing was applied; review with `telform plan` and pass --auto-approve');
    }
    if (!(await confirm())) {
      io.stderr('Apply cancelled; nothing was sent.');
      return ExitCode.error;
    }
  }
  const liveView = Boolean(process.stderr.isTTY) && !globals.quiet;
  const progress = new ApplyProgress(countApplySteps(plan), {
    line: (text) => {
      if (!globals.quiet) io.stderr(text);
    },
    // On a terminal, a status line of what is running, redrawn in place below the finished lines.
    ...(liveView
      ? { status: (text: string) => process.stderr.write(`\r\u001b[K${text}`), clearStatus: () => process.stderr.write('\r\u001b[K') }
      : {}),
  });
  let result: ApplyResult;
  try {
    result = await applyPlan(inputs, { parallelism: options.parallelism, waitMs: options.wait ?? 0, clock: systemClock, onEvent: progress.onEvent });
  } finally {
    progress.flush();
  }
  if (liveView) process.stderr.write('\r\u001b[K');
  io.stdout(`${renderApplySummary(plan, result)}\n`);
  for (const line of renderNotApplied(plan, result)) io.stderr(line);
  return result.failed > 0 || result.blocked > 0 ? ExitCode.error : ExitCode.ok;
}

async function confirm(): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question('Apply these changes? Only "yes" is accepted: ');
    return answer.trim() === 'yes';
  } finally {
    prompt.close();
  }
}
