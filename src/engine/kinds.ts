import type { Kind, KindCatalog } from '../resources/index.js';
import type { PlannerKind, PlannerKinds } from './model.js';

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
    ...(kind.traffic === undefined ? {} : { traffic: kind.traffic }),
  };
}

/** Kinds by name, in the order given (the catalog's), for every stage of a run. */
export function kindsByName(kinds: Iterable<PlannerKind>): PlannerKinds {
  return new Map([...kinds].map((kind) => [kind.kind, kind]));
}

/** Every registered kind as the planner sees it. */
export function plannerKinds(catalog: KindCatalog): PlannerKinds {
  return kindsByName(catalog.kinds.map(toPlannerKind));
}
