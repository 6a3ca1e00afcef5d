import type { Kind, KindRegistry } from '../resources/index.js';
import type { LiveSide } from '../resources/live-side.js';
import type { PlannerKind } from './model.js';

/** A kind with its live side (the client issue adds `live` to every kind object). */
export type LiveKind = Kind & { readonly live: LiveSide };

export function hasLiveSide(kind: Kind): kind is LiveKind {
  return kind.live !== undefined;
}

/** What the planner needs of a kind, as data. */
export function toPlannerKind(kind: LiveKind): PlannerKind {
  return {
    kind: kind.name,
    references: Object.entries(kind.references).map(([field, target]) => ({ field, target })),
    setFields: kind.setFields,
    secretFields: Object.keys(kind.secrets),
    live: kind.live,
  };
}

/** Every registered kind as the planner sees it; a kind without a live side is a programming error. */
export function plannerKinds(registry: KindRegistry): PlannerKind[] {
  return registry.kinds.map((kind) => {
    if (!hasLiveSide(kind)) throw new Error(`kind ${kind.name} has no live side`);
    return toPlannerKind(kind);
  });
}
