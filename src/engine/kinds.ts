import type { Kind, KindCatalog } from '../resources/index.js';
import type { PlannerKind } from './model.js';

/** What the planner needs of a kind, as data. */
export function toPlannerKind(kind: Kind): PlannerKind {
  return {
    kind: kind.name,
    ...(kind.nameField === undefined ? {} : { nameField: kind.nameField }),
    references: Object.entries(kind.references).map(([field, target]) => ({ field, target })),
    referenceRules: kind.referenceRules ?? {},
    setFields: kind.setFields,
    secretFields: Object.keys(kind.secrets),
    live: kind.live,
  };
}

/** Every registered kind as the planner sees it. */
export function plannerKinds(catalog: KindCatalog): PlannerKind[] {
  return catalog.kinds.map(toPlannerKind);
}
