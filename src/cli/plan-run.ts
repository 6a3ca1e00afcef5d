// `telform plan`'s run, loaded once its arguments parse (cli/plan.ts): the engine, the manifest
// loader and the renderers compile while the reads the command started ahead are answered.
import { planForDisplay, rendererFor } from '../render/index.js';
import { summaryLine } from '../render/format.js';
import { commandTimer } from './timings.js';
import { useColor, type CommandIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { approvalsFrom } from '../run/reconcile.js';
import { ExitCode } from '../run/exit-codes.js';
import { planManifests } from '../run/plan.js';
import { withReadsAhead, type ReadsAhead } from '../run/early-reads.js';
import { cliContext } from './session.js';
import type { PlanInput } from './arguments/plan.js';

export function runPlan(
  input: PlanInput,
  globals: GlobalOptions,
  io: CommandIo,
  ahead: ReadsAhead | undefined,
): Promise<number> {
  return withReadsAhead(ahead, () => planOrAccounts(input, globals, io, ahead));
}

async function planOrAccounts(
  input: PlanInput,
  globals: GlobalOptions,
  io: CommandIo,
  ahead: ReadsAhead | undefined,
): Promise<number> {
  const options = input.flags;
  const approvals = approvalsFrom(options);
  if (input.mode === 'accounts') {
    // Loaded only for --accounts (and the rehearsal below only for --rehearse): a plan of one account compiles neither.
    const [{ runAccountsCommand }, { planStep }] = await Promise.all([
      import('./accounts-command.js'),
      import('../run/account-steps.js'),
    ]);
    return runAccountsCommand(
      { command: 'plan', options, globals, approvals, lock: false, step: planStep(options) },
      io,
    );
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
      options: { ...planOptions, readAll: options.showUnmanaged === true, ...(ahead ? { readsAhead: ahead } : {}) },
      out: options.out,
      ...(options.approvals === undefined ? {} : { approvalsFolder: options.approvals }),
      detailedExitcode: options.detailedExitcode === true,
    },
    globals,
    cliContext(io),
  );
  const { plan } = outcome;
  const shown = planForDisplay(plan, options.showUnmanaged ?? false, outcome.notes);
  if (!globals.quiet || options.format !== 'text')
    io.stdout(
      commandTimer.time('render', () => rendererFor(options.format, 'plan')(shown, { color: useColor(globals, io) })),
    );
  else io.stdout(`${summaryLine(plan.summary)}\n`);
  if (options.out) io.stderr(`saved the plan to ${options.out}; apply it with: telform apply ${options.out}`);
  const code = outcome.exitCode;
  if (!options.rehearse) return code;
  // After the real run let go of its state: the rehearsal copies it and reads the account once more.
  const [{ rehearse }, { rehearsalWaitMs, startReplica }] = await Promise.all([
    import('../run/rehearse.js'),
    import('./replica.js'),
  ]);
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
