import type { PlannedChange, SecretChange } from './plan-types.js';

/*
 * Fields several actions share, read where any change may come (a renderer's line, the applier's
 * bookkeeping): each switch says which actions carry the field, so a new action must decide.
 */

function unhandled(change: never): never {
  throw new Error(`unhandled change ${JSON.stringify(change)}`);
}

/** The live id: absent for a create (and for a wait or blocked change of one). */
export function liveIdOf(change: PlannedChange): string | undefined {
  switch (change.action) {
    case 'create':
      return undefined;
    case 'update':
    case 'replace':
    case 'delete':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return change.id;
    default:
      return unhandled(change);
  }
}

/** The normalised live spec, when the object exists. */
export function liveSpecOf(change: PlannedChange): Record<string, unknown> | undefined {
  switch (change.action) {
    case 'create':
      return undefined;
    case 'update':
    case 'replace':
    case 'delete':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return change.before;
    default:
      return unhandled(change);
  }
}

/** The desired spec: absent for a delete. */
export function desiredSpecOf(change: PlannedChange): Record<string, unknown> | undefined {
  switch (change.action) {
    case 'delete':
      return undefined;
    case 'create':
    case 'update':
    case 'replace':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return change.after;
    default:
      return unhandled(change);
  }
}

/** The write-only fields that will be sent, and why: none for a delete. */
export function secretsOf(change: PlannedChange): Record<string, SecretChange> | undefined {
  switch (change.action) {
    case 'delete':
      return undefined;
    case 'create':
    case 'update':
    case 'replace':
    case 'adopt':
    case 'noop':
    case 'wait':
    case 'blocked':
      return change.secrets;
    default:
      return unhandled(change);
  }
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
