import type { Plan, PlannedChange } from './plan-types.js';

/**
 * Drift classification (docs/commands.md, plan) from a plan: what the live account changed outside
 * telform (the ledger's last applied spec tells) versus manifest changes not yet applied.
 * Unverifiable secrets are not drift; registry waits and declines are reported, not acted on.
 */
export type DriftStatus = 'in_sync' | 'drifted' | 'pending';

/** Version of `drift --format json` (schemas/drift.schema.json); bumped on any incompatible change. */
export const driftReportVersion = 1;

export interface DriftReport {
  status: DriftStatus;
  /** Changed outside telform (live differs from the last applied spec, or deleted). */
  drifted: string[];
  /** Manifest changes waiting to be applied (including registry waits). */
  pending: string[];
  /** Registry outcomes worth a look (declined, expired, under review). */
  notes: string[];
}

export function classifyDrift(plan: Plan, ledgerExists: boolean): DriftReport {
  const drifted: string[] = [];
  const pending: string[] = [];
  for (const change of plan.changes) {
    if (change.action === 'noop' || onlyUnverifiableSecrets(change)) continue;
    if (!ledgerExists || change.drifted) drifted.push(change.address);
    else pending.push(change.address);
  }
  const status: DriftStatus = drifted.length > 0 ? 'drifted' : pending.length > 0 ? 'pending' : 'in_sync';
  return { status, drifted, pending, notes: plan.warnings };
}

function onlyUnverifiableSecrets(change: PlannedChange): boolean {
  if (change.action !== 'update' || change.patch.length > 0) return false;
  const states = Object.values(change.secrets ?? {});
  return states.length > 0 && states.every((state) => state.value === 'unverifiable' && !state.source_before);
}
