import type { LiveObject } from '../resources/live-side.js';
import type { Match } from './match.js';
import { isReference, type LiveModel, type PlannerKind } from './model.js';

/**
 * References across the desired and live models. Live objects carry ids; manifests carry
 * `{ ref: name }` or literal ids. Both are brought to one form before diffing: an id that belongs
 * to a managed resource of the target kind becomes `{ ref: name }`, so `{ ref: office }` and the
 * id of the live `office` list compare equal and a plan right after an apply is empty.
 */
export class ReferenceIndex {
  /** kind → id → manifest name. */
  private readonly names = new Map<string, Map<string, string>>();

  constructor(matches: readonly Match[]) {
    for (const match of matches) {
      if (match.type === 'matched') this.add(match.desired.kind, match.live.id, match.desired.name);
      else if (match.type === 'missing' && match.entry)
        this.add(match.desired.kind, match.entry.id, match.desired.name);
      else if (match.type === 'orphaned') this.add(match.entry.kind, match.entry.id, match.entry.name);
    }
  }

  private add(kind: string, id: string, name: string): void {
    let byId = this.names.get(kind);
    if (!byId) this.names.set(kind, (byId = new Map()));
    byId.set(id, name);
  }

  nameOf(kind: string, id: string): string | undefined {
    return this.names.get(kind)?.get(id);
  }

  /** The spec with every reference field in canonical form. */
  canonical(kind: PlannerKind, spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...spec };
    for (const { field, target } of kind.references) {
      const value = out[field];
      if (typeof value === 'string' && value !== '') {
        const name = this.nameOf(target, value);
        if (name !== undefined) out[field] = { ref: name };
      }
    }
    return out;
  }
}

/** Who uses a live object: the live objects whose reference fields hold its id. */
export interface Referrer {
  kind: string;
  id: string;
  field: string;
}

export class UsageIndex {
  private readonly referrers = new Map<string, Referrer[]>();

  constructor(kinds: Iterable<PlannerKind>, live: LiveModel) {
    for (const kind of kinds) {
      for (const object of live.get(kind.kind) ?? []) {
        for (const { field, target } of kind.references) {
          const value = object.spec[field];
          if (typeof value !== 'string' || value === '') continue;
          const key = `${target}\0${value}`;
          const list = this.referrers.get(key) ?? [];
          list.push({ kind: kind.kind, id: object.id, field });
          this.referrers.set(key, list);
        }
      }
    }
  }

  of(kind: string, live: LiveObject): Referrer[] {
    return this.referrers.get(`${kind}\0${live.id}`) ?? [];
  }
}

/** Names a desired spec refers to, by target kind, for dependency edges. */
export function referencedNames(
  kind: PlannerKind,
  spec: Readonly<Record<string, unknown>>,
): Array<{ target: string; name: string; field: string }> {
  const result: Array<{ target: string; name: string; field: string }> = [];
  for (const { field, target } of kind.references) {
    const value = spec[field];
    if (isReference(value)) result.push({ target, name: value.ref, field });
  }
  return result;
}
