import type { PlannerKind } from './model.js';
import type { PlannedChange } from './plan-types.js';

/**
 * How many requests apply sends for one change (docs/commands.md, plan: the plan states it), counted
 * the way the applier works: a create is one POST; an update its writes (computed from the object
 * as the plan's read found it, not read again); a delete is one request (brands and campaigns are
 * read back); a replace is its create and its delete. The lists apply reads to plan again are not counted, nor the registry polls of `--wait`,
 * which depend on how long the registry takes (the renderers show them as a range).
 */
export function estimateRequests(change: PlannedChange, kind: PlannerKind): number {
  const costs = kind.live.requests ?? {};
  const create = 1;
  const remove = costs.delete ?? 1;
  switch (change.action) {
    case 'create':
      return create;
    case 'wait':
      // Nothing without --wait; with it, polls and the create (see `waitRequests`).
      return 0;
    case 'update':
      return change.patch.length === 0 && !change.secrets ? 1 : (costs.update?.(change.patch) ?? 1);
    case 'replace':
      return create + remove;
    case 'delete':
      return remove;
    case 'adopt':
    case 'blocked':
    case 'noop':
      return 0;
    default: {
      const unreachable: never = change;
      throw new Error(`unhandled change ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Requests of `waiting` changes under `--wait` for `waitMs`: each polls the registry at 0, 1, 3, 7,
 * 15, 31 s, then every 30 s, until approved (then creates: one more) or declined, or the wait ends.
 */
export function waitRequests(waiting: number, waitMs: number): { min: number; max: number } {
  let polls = 1;
  let elapsed = 0;
  let delay = 1_000;
  while (elapsed + delay <= waitMs) {
    elapsed += delay;
    polls += 1;
    delay = Math.min(delay * 2, 30_000);
  }
  return { min: waiting, max: waiting * (polls + 1) };
}
