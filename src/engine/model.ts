import type { SourcePlace } from '../errors.js';
import type { LiveObject, LiveSide } from '../resources/live-side.js';
import type { DiffRules } from './diff.js';

/**
 * What the planner needs to know of a kind and of a desired resource. The resource registry and
 * the manifest loader provide these; the planner depends on nothing else.
 */
export interface ReferenceField {
  /** Top-level spec field holding another resource's id. */
  field: string;
  /** The kind a `{ ref }` in that field names. */
  target: string;
}

export interface PlannerKind extends DiffRules {
  kind: string;
  references: readonly ReferenceField[];
  live: LiveSide;
}

/** How a secret is obtained; recorded in saved plans, never the value. */
export type SecretSourceRef = { fromEnv: string } | { fromFile: string } | { literal: true };

export interface DesiredResource {
  kind: string;
  name: string;
  /** `Kind/name`. */
  address: string;
  protect: boolean;
  /**
   * The validated spec with defaults: reference fields hold `{ ref: name }` or a literal id;
   * secret fields are left out (see `secretSources`).
   */
  spec: Record<string, unknown>;
  secretSources: Record<string, SecretSourceRef>;
  source?: SourcePlace;
}

export type Reference = { ref: string };

export function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).ref === 'string';
}

/** Live objects of every kind, each list read whole. */
export type LiveModel = ReadonlyMap<string, readonly LiveObject[]>;
