import type { CreateChange, DeleteChange, PlannedChange, SecretChange } from './plan-types.js';

/*
 * Fields several actions share, read where any change may come (a renderer's line, the applier's
 * bookkeeping): each switch says which actions carry the field, so a new action must decide.
 */

function unhandled(change: never): never {
  throw new Error(`unhandled change ${JSON.stringify(change)}`);
}

/** Whether the change's object exists in the account: every action but a create (a wait or blocked change of one has no id either). */
function existsLive(change: PlannedChange): change is Exclude<PlannedChange, CreateChange> {
  switch (change.action) {
    case 'create':
      return false;
    case 'update':
    case 'replace':
    case 'delete':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return true;
    default:
      return unhandled(change);
  }
}

/** Whether the change carries a desired spec (and its secrets): every action but a delete. */
function hasDesired(change: PlannedChange): change is Exclude<PlannedChange, DeleteChange> {
  switch (change.action) {
    case 'delete':
      return false;
    case 'create':
    case 'update':
    case 'replace':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return true;
    default:
      return unhandled(change);
  }
}

/** The live id: absent for a create (and for a wait or blocked change of one). */
export function liveIdOf(change: PlannedChange): string | undefined {
  return existsLive(change) ? change.id : undefined;
}

/** The normalised live spec, when the object exists. */
export function liveSpecOf(change: PlannedChange): Record<string, unknown> | undefined {
  return existsLive(change) ? change.before : undefined;
}

/** The desired spec: absent for a delete. */
export function desiredSpecOf(change: PlannedChange): Record<string, unknown> | undefined {
  return hasDesired(change) ? change.after : undefined;
}

/** The write-only fields that will be sent, and why: none for a delete. */
export function secretsOf(change: PlannedChange): Record<string, SecretChange> | undefined {
  return hasDesired(change) ? change.secrets : undefined;
}

/** For the delete (possibly blocked) of an object a replace superseded: the resource that replaced it. */
export function supersededOf(change: PlannedChange): string | undefined {
  switch (change.action) {
    case 'delete':
    case 'blocked':
      return change.superseded_of;
    case 'create':
    case 'update':
    case 'replace':
    case 'adopt':
    case 'noop':
    case 'wait':
      return undefined;
    default:
      return unhandled(change);
  }
}
