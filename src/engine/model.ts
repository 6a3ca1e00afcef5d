import type { SourcePlace } from '../util/errors.js';
import type { LiveObject, LiveSide } from '../resources/live-side.js';
import type { KindTraffic } from '../resources/traffic.js';
import type { DiffRules } from './diff.js';
import type { SecretSourceRef } from '../state/ledger.js';

export type { SecretSourceRef } from '../state/ledger.js';

/**
 * What the planner needs to know of a kind and of a desired resource. The kind catalog and
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
  /** The API's own name field (`name`, `username`, `brand_alias`, …), if the kind has one. */
  nameField?: string;
  references: readonly ReferenceField[];
  /** By reference field: why a target does not fit (judged on its spec), or undefined. */
  referenceRules: Readonly<Record<string, (target: Readonly<Record<string, unknown>>) => string | undefined>>;
  live: LiveSide;
  /** The traffic its objects carry, route or let in (the blast radius reads it); absent: none. */
  traffic?: KindTraffic;
}

/**
 * A secret's value with where it was really read from (`env NAME`, or `file PATH` with the file's
 * real path after symbolic links): a saved plan is stale when a secret is read from elsewhere.
 */
export interface ResolvedSecret {
  value: string;
  origin: string;
}

export interface DesiredResource {
  kind: string;
  name: string;
  /** `Kind/name`. */
  address: string;
  protect: boolean;
  /** The API's name field was left out of the manifest and holds metadata.name. */
  nameDefaulted?: boolean;
  /**
   * `metadata.moved_from`: addresses of the same kind this resource was known under. The state's
   * entry at one of them becomes this resource's (docs/manifests.md, moves).
   */
  movedFrom?: string[];
  /**
   * The validated spec with defaults: reference fields hold `{ ref: name }` or a literal id;
   * secret fields are left out (see `secretSources`).
   */
  spec: Record<string, unknown>;
  secretSources: Record<string, SecretSourceRef>;
  source?: SourcePlace;
  /** Where a top-level spec field is written (or would go): a registry refusal naming it is shown there. */
  placeOfField?: (field: string) => SourcePlace;
  /**
   * Create rules values of the spec do not meet, accepted because the account holds them: a create
   * (or replace) of this resource, or an update changing one of these fields, is refused before any write.
   */
  held?: Array<{ field?: string; message: string; source?: SourcePlace }>;
}

export type Reference = { ref: string };

export function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).ref === 'string';
}

/** Every kind the planner knows, by name: built once per run (`plannerKinds`), shared by plan and apply. */
export type PlannerKinds = ReadonlyMap<string, PlannerKind>;

/** Live objects of every kind, each list read whole. */
export type LiveModel = ReadonlyMap<string, readonly LiveObject[]>;
