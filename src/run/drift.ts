// The drift operation: a reconciled plan read as drift (what changed outside telform, what waits
// to be applied) and the exit code that says which, for `drift` and each account of --accounts.
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import type { DriftReport, DriftStatus } from '../render/drift-schema.js';
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

/**
 * Drift classification from a plan (docs/commands.md, drift): a change the ledger's last applied
 * spec shows was made outside telform is drift; any other change waits to be applied. Without a
 * ledger nothing tells an edit from a manifest change, so every change to an object the account
 * holds is drift; a create is not (nothing was ever applied, so nothing was deleted outside telform:
 * it waits to be applied). Unverifiable secrets are not drift; registry waits and declines are
 * reported, not acted on.
 */
export function classifyDrift(plan: Plan, ledgerExists: boolean): DriftReport {
  const drifted: string[] = [];
  const pending: string[] = [];
  for (const change of plan.changes) {
    if (change.action === 'noop' || onlyUnverifiableSecrets(change)) continue;
    if (change.drifted || (!ledgerExists && change.action !== 'create' && change.action !== 'wait'))
      drifted.push(change.address);
    else pending.push(change.address);
  }
  const status: DriftStatus = drifted.length > 0 ? 'drifted' : pending.length > 0 ? 'pending' : 'in_sync';
  return { status, drifted, pending, notes: [...plan.warnings, ...(plan.notes ?? [])] };
}

function onlyUnverifiableSecrets(change: PlannedChange): boolean {
  if (change.action !== 'update' || change.patch.length > 0) return false;
  const states = Object.values(change.secrets ?? {});
  return states.length > 0 && states.every((state) => state.value === 'unverifiable' && !state.source_before);
}
