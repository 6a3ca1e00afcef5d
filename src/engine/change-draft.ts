import { changeFieldsByAction } from './plan-format.js';
import type { ChangeFields, PlannedChange } from './plan-types.js';

/**
 * A change while the planner decides it: one object it edits in place, the fields of particular
 * actions optional and the action free to change (a noop becomes an update when re-pointed, a
 * create waits or is blocked). Only the planning modules see it; `finishChange` turns it into a
 * `PlannedChange`.
 */
export type ChangeDraft = ChangeFields;

/**
 * The finished change: the same object (so the plan's JSON keeps its field order), once its
 * action's required fields are checked. A missing one is a planner bug, not a user error.
 */
export function finishChange(draft: ChangeDraft): PlannedChange {
  const required: readonly (keyof ChangeDraft)[] = changeFieldsByAction[draft.action].required;
  const missing = required.filter((field) => draft[field] === undefined);
  if (missing.length > 0)
    throw new Error(`planner: the ${draft.action} of ${draft.address} lacks ${missing.join(', ')}`);
  return draft as PlannedChange;
}
