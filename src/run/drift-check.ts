// `telform drift -f` as one operation: the run's values read, the manifests reconciled read-only (no
// lock), then either the drift written back into the manifests (`--write`) or the drift report with
// its exit code and, when asked, since when each change outside telform can have happened.
import type { Plan } from '../engine/plan-types.js';
import type { DriftReport } from '../render/drift-schema.js';
import type { GlobalOptions, RunContext } from './context.js';
import type { ReadsAhead } from './early-reads.js';
import { driftExitCode, driftOf } from './drift.js';
import { readAcknowledgements, withAcknowledgements } from './drift-acks.js';
import { systemClock, type Clock } from '../util/clock.js';
import { driftWindowsOf, type DriftWindow } from './drift-window.js';
import { writeDriftBack, type DriftWriteResult } from './drift-write.js';
import type { ExitCodeValue } from './exit-codes.js';
import { approvalsFrom, reconcile, withReconciliation } from './reconcile.js';
import { readValues, type ValuesInput } from './values-input.js';

interface DriftRequest {
  paths: string[];
  values: ValuesInput;
  allowSecretFilesOutside?: boolean | undefined;
  /** `--write`: write back the changes of these addresses (all when empty) instead of reporting. */
  write?: { accept: readonly string[] } | undefined;
  /** Read the state's history for each drifted address's window, as of `checkedAt` (ISO 8601). */
  windows?: { checkedAt: string } | undefined;
  /** Reads the command started before the rest of it loaded (`readAhead`). */
  readsAhead?: ReadsAhead;
  /** When acknowledgements end is judged by this clock (tests set it). */
  clock?: Clock;
}

type DriftCheck =
  | { mode: 'write'; result: DriftWriteResult }
  | {
      mode: 'report';
      report: DriftReport;
      plan: Plan;
      exitCode: ExitCodeValue;
      /** With `windows` asked and something drifted: each drifted address's window, and the state they come from. */
      windows?: { state: string; windows: DriftWindow[] };
    };

export async function checkDrift(
  request: DriftRequest,
  globals: GlobalOptions,
  context: RunContext,
): Promise<DriftCheck> {
  const values = await readValues(request.values, context.io.cwd);
  const run = await reconcile(
    { paths: request.paths, ...(values ? { values } : {}) },
    globals,
    approvalsFrom({}),
    context,
    {
      lock: false,
      readOnly: true,
      allowSecretFilesOutside: request.allowSecretFilesOutside,
      ...(request.readsAhead ? { readsAhead: request.readsAhead } : {}),
    },
  );
  return withReconciliation(run, async (): Promise<DriftCheck> => {
    if (request.write)
      return { mode: 'write', result: await writeDriftBack(run, request.write.accept, context.io.cwd) };
    const seen = driftOf(run);
    // Drift a person acknowledged is listed apart, and not counted until it ends or drifts further.
    const report = withAcknowledgements(
      seen.report,
      run.plan,
      await readAcknowledgements(run.store),
      (request.clock ?? systemClock).now(),
    );
    const exitCode = report === seen.report ? seen.exitCode : driftExitCode(report.status);
    if (!request.windows || report.drifted.length === 0) return { mode: 'report', report, plan: run.plan, exitCode };
    const windows = await driftWindowsOf(run, report.drifted, request.windows.checkedAt);
    return { mode: 'report', report, plan: run.plan, exitCode, windows: { state: run.store.file, windows } };
  });
}
