import type { ApplyResult } from '../engine/apply.js';
import type { Plan } from '../engine/plan-types.js';

/** The one-line outcome of an apply: what was done, what waits, what failed. */
export function summarizeApply(plan: Plan, result: ApplyResult): string {
  const counts = { created: 0, updated: 0, replaced: 0, deleted: 0, adopted: 0 };
  for (const change of plan.changes) {
    if (result.outcomes.get(change.address)?.status !== 'done') continue;
    if (change.action === 'create' || change.action === 'wait') counts.created += 1;
    else if (change.action === 'update') counts.updated += 1;
    else if (change.action === 'replace') counts.replaced += 1;
    else if (change.action === 'delete') counts.deleted += 1;
    else if (change.action === 'adopt') counts.adopted += 1;
  }
  return (
    `Apply complete: ${counts.created} created, ${counts.updated} updated, ${counts.replaced} replaced, ${counts.deleted} deleted, ${counts.adopted} adopted. ` +
    `Pending: ${result.pending}. Blocked: ${result.blocked}. Failed: ${result.failed}.`
  );
}
