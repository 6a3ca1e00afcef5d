import type { ChangeBase, PlanAction, PlannedChange, SecretChange } from './plan-types.js';

/**
 * A change while the planner decides it: one object it edits in place, the fields of particular
 * actions optional and the action free to change (a noop becomes an update when re-pointed, a
 * create waits or is blocked). Only the planning modules see it; `finishChange` turns it into a
 * `PlannedChange`.
 */
export interface ChangeDraft extends ChangeBase {
  action: PlanAction;
  // The fields only some actions carry, all optional until `finishChange` checks them.
  id?: string;
  replace_strategy?: 'create_before_delete' | 'delete_before_create';
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  secrets?: Record<string, SecretChange>;
  delete_after?: string[];
  superseded_of?: string;
}

/** The fields each action must carry (see the union's members in plan-types.ts). */
const requiredFields: Record<PlanAction, ReadonlyArray<keyof ChangeDraft>> = {
  create: ['after'],
  update: ['id', 'before', 'after'],
  replace: ['id', 'replace_strategy', 'before', 'after'],
  delete: ['id'],
  adopt: ['id', 'before', 'after'],
  noop: ['id', 'before', 'after'],
  wait: ['after'],
  blocked: [],
};

/**
 * The finished change: the same object (so the plan's JSON keeps its field order), once its
 * action's required fields are checked. A missing one is a planner bug, not a user error.
 */
export function finishChange(draft: ChangeDraft): PlannedChange {
  const missing = requiredFields[draft.action].filter((field) => draft[field] === undefined);
  if (missing.length > 0) throw new Error(`planner: the ${draft.action} of ${draft.address} lacks ${missing.join(', ')}`);
  return draft as PlannedChange;
}
