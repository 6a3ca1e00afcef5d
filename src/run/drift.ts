// The drift operation: a reconciled plan read as drift (what changed outside telform, what waits
// to be applied) and the exit code that says which, for `drift` and each account of --accounts.
import { classifyDrift, type DriftReport, type DriftStatus } from '../engine/drift.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import type { Reconciliation } from './reconcile.js';

export interface DriftResult {
  report: DriftReport;
  exitCode: ExitCodeValue;
}

/** 0 in sync, 2 changed outside telform (whatever the manifests did), 3 only manifest changes wait. */
export function driftExitCode(status: DriftStatus): ExitCodeValue {
  switch (status) {
    case 'in_sync':
      return ExitCode.ok;
    case 'drifted':
      return ExitCode.changes;
    case 'pending':
      return ExitCode.pendingManifestChanges;
    default: {
      const never: never = status;
      throw new Error(`unhandled drift status ${String(never)}`);
    }
  }
}

export function driftOf(run: Reconciliation): DriftResult {
  const report = classifyDrift(run.plan, run.store.existed);
  return { report, exitCode: driftExitCode(report.status) };
}
