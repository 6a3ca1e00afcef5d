import type { SourcePlace } from '../util/errors.js';

/**
 * Source positions of manifest values (docs/manifests.md): every value loaded from
 * YAML keeps the line and column it was written at, addressed by an RFC 6901 JSON pointer into
 * its document (`/spec/ip_addresses/1`), so validation now and the planner later can point at
 * `file:line:col`. Pointers are the same paths the plan's RFC 6902 patches use.
 */

/** 1-based line and column. */
export interface LineColumn {
  line: number;
  column: number;
}

/** Where a value is written and, for a mapping entry, where its key is. */
export interface ValuePosition {
  value: LineColumn;
  key?: LineColumn;
}

/** Positions of every value of one document, by JSON pointer (`''` is the document itself). */
export interface PositionMap {
  get(pointer: string): ValuePosition | undefined;
}

/**
 * A document's positions, computed when first asked for (`load`), so a clean file read by the fast
 * path (see `yaml-fast.ts`) costs nothing here until a message or the planner needs a place.
 * `alias` makes a value that is not written (a default) answer with the place of one that is.
 */
export class Positions implements PositionMap {
  #map: ReadonlyMap<string, ValuePosition> | undefined;
  #aliases: Map<string, string> | undefined;

  constructor(private readonly load: () => ReadonlyMap<string, ValuePosition>) {}

  get(pointer: string): ValuePosition | undefined {
    this.#map ??= this.load();
    return this.#map.get(this.#aliases?.get(pointer) ?? pointer);
  }

  alias(pointer: string, target: string): void {
    (this.#aliases ??= new Map()).set(pointer, target);
  }
}

export type PathSegment = string | number;

/** Escapes one pointer segment (RFC 6901 section 3). */
function escapeSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return String(segment);
  // Nearly every segment is a plain key: nothing to replace.
  return segment.includes('~') || segment.includes('/') ? segment.replaceAll('~', '~0').replaceAll('/', '~1') : segment;
}

export function toPointer(path: readonly PathSegment[]): string {
  let pointer = '';
  for (const segment of path) pointer += `/${escapeSegment(segment)}`;
  return pointer;
}

export function childPointer(pointer: string, segment: PathSegment): string {
  return `${pointer}/${escapeSegment(segment)}`;
}

/** The pointer of the nearest enclosing value (`''` for top-level values and the root). */
export function parentPointer(pointer: string): string {
  const slash = pointer.lastIndexOf('/');
  return slash <= 0 ? '' : pointer.slice(0, slash);
}

/**
 * Human form of a path for messages: `spec.entries[0].ip`. Keys that are not identifiers are
 * quoted so an odd key stays readable.
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export type PositionRole = 'value' | 'key';

/**
 * The position of the value at `pointer`, or of its key when `role` is `key` (an unknown field is
 * reported at its name). A value that is not written in the file (a default, a missing field) is
 * reported at the nearest written ancestor: its key, where the missing field would go.
 */
export function positionAt(positions: PositionMap, pointer: string, role: PositionRole = 'value'): LineColumn {
  let current = pointer;
  let first = true;
  for (;;) {
    const found = positions.get(current);
    if (found) {
      if (first && role === 'value') return found.value;
      return found.key ?? found.value;
    }
    if (current === '') return { line: 1, column: 1 };
    current = parentPointer(current);
    first = false;
  }
}

export function placeOf(file: string, position: LineColumn): SourcePlace {
  return { file, line: position.line, column: position.column };
}

/**
 * A place whose line and column are looked up when first read. Every planned resource carries its
 * place, but only an error, a saved plan or JSON output reads it; looking it up computes the exact
 * positions of the whole file, which costs more than the fast path saved (see `yaml-fast.ts`).
 * The line and column are ordinary enumerable properties to every reader (JSON, spreads, tests).
 */
export function lazyPlaceOf(file: string, locate: () => LineColumn): SourcePlace {
  let position: LineColumn | undefined;
  const at = (): LineColumn => (position ??= locate());
  // Getters in a literal: own and enumerable like `defineProperties` makes them, at less than half the cost.
  return {
    file,
    get line() {
      return at().line;
    },
    get column() {
      return at().column;
    },
  };
}
