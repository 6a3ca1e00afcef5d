import type { SourcePlace } from '../util/errors.js';
import type { SecretSource } from './secrets.js';
import {
  lazyPlaceOf,
  placeOf,
  positionAt,
  toPointer,
  type PathSegment,
  type PositionMap,
  type PositionRole,
} from './source.js';

/**
 * The manifests as loaded and validated: every resource with the place of each of its values, and
 * its secrets as sources. `desired.ts` turns them into the engine's desired resources
 * (the README: manifest → desired model → plan). Plain data, no behaviour, except that
 * secrets are sources whose literal values print as `(sensitive)`.
 */

/** A field referring to another manifest resource by `metadata.name`; the engine resolves it to an id. */
export interface RefValue {
  ref: string;
}

export function isRef(value: unknown): value is RefValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as RefValue).ref === 'string' &&
    Object.keys(value).length === 1
  );
}

/** Where a resource was declared, with the position of every value in its document. */
export interface ResourceSource {
  /** The file as shown to the user (relative to the working directory when inside it). */
  file: string;
  absolute: string;
  /** 0-based index of the document among the non-empty YAML documents of its file. */
  document: number;
  /** By JSON pointer into the document: `/spec/ip_addresses/0`, `/metadata/name`. */
  positions: PositionMap;
}

export interface ManifestResource {
  kind: string;
  /** `metadata.name`: the manifest identity, unique per kind. */
  name: string;
  /** `Kind/name`. */
  address: string;
  /** `metadata.protect`: delete and replace are refused (docs/state-and-safety.md, safety). */
  protect: boolean;
  /** The API's name field was left out, so it holds metadata.name (a name `state mv` kept wins over it). */
  nameDefaulted?: boolean;
  /** `metadata.moved_from`: the addresses (`Kind/name`) it was known under, in the order written. */
  movedFrom?: string[];
  /**
   * The spec, with the API's defaults filled (docs/manifests.md) and the API name field
   * defaulted to `metadata.name`. Reference fields hold `{ ref: name }` or a literal id; secret
   * fields hold a `SecretSource`, never a resolved value.
   */
  spec: Record<string, unknown>;
  source: ResourceSource;
  /**
   * Create rules the spec does not meet (reported as `held_value` warnings): valid while the account
   * holds those values, so the plan refuses a create, or a change of such a field, before any write.
   */
  held?: HeldRule[];
}

/** A create rule a held value does not meet: the top-level field (absent when about the whole spec), why, and where. */
export interface HeldRule {
  field?: string;
  message: string;
  source?: SourcePlace;
}

export interface ManifestModel {
  /** In the order declared: files in `-f` order (folders sorted), documents in file order. */
  resources: ManifestResource[];
  /** Every manifest file read, as shown to the user. */
  files: string[];
}

/** Where a value of the resource is written; `path` is from the document root, e.g. `['spec', 'name']`. */
export function placeOfValue(
  resource: ManifestResource,
  path: readonly PathSegment[],
  role: PositionRole = 'value',
): SourcePlace {
  return placeOf(resource.source.file, positionAt(resource.source.positions, toPointer(path), role));
}

/**
 * `placeOfValue`, looked up only when read (`lazyPlaceOf`): for places kept in case of a problem.
 * Call it once the document's defaults are in place (after loading), as the answer may depend on them.
 */
export function lazyPlaceOfValue(
  resource: ManifestResource,
  path: readonly PathSegment[],
  role: PositionRole = 'value',
): SourcePlace {
  return lazyPlaceAt(resource, toPointer(path), role);
}

function lazyPlaceAt(resource: ManifestResource, pointer: string, role: PositionRole): SourcePlace {
  // Only the positions are kept, not the resource: the engine's copy of the spec outlives this one.
  const positions = resource.source.positions;
  return lazyPlaceOf(resource.source.file, () => positionAt(positions, pointer, role));
}

/** Where the resource is declared: its `metadata.name`. */
export function placeOfResource(resource: ManifestResource): SourcePlace {
  return lazyPlaceAt(resource, '/metadata/name', 'value');
}
