import type { Operation } from 'fast-json-patch';
import type { SourcePlace } from '../errors.js';
import type { RegistryStatus } from '../resources/live-side.js';
import type { SecretSourceRef } from './model.js';
import type { ChangeFlags, PlanAction, PlannedChange, SecretChange } from './plan-types.js';

/**
 * A change while the planner decides it: one object it edits in place, every field optional and
 * the action free to change (a noop becomes an update when re-pointed, a create waits or is
 * blocked). Only the planning modules see it; `finishChange` turns it into a `PlannedChange`.
 */
export interface ChangeDraft {
  address: string;
  kind: string;
  name: string;
  action: PlanAction;
  id?: string;
  replace_strategy?: 'create_before_delete' | 'delete_before_create';
  reasons: string[];
  flags: ChangeFlags;
  patch: Operation[];
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  secrets?: Record<string, SecretChange>;
  depends_on: string[];
  delete_after?: string[];
  superseded_of?: string;
  source?: SourcePlace;
  secret_sources?: Record<string, SecretSourceRef>;
  protect?: boolean;
  registry?: RegistryStatus;
  drifted?: boolean;
  api_requests: number;
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
