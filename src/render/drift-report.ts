// The drift report (`telform drift`, and each account of `drift --accounts`): what the live account
// changed outside telform versus manifest changes not yet applied. The drift operation (src/run)
// makes it from a plan; the renderers print it, and its JSON form is versioned with a schema.

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
