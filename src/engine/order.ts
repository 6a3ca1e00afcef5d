import { liveSpecOf } from './change-fields.js';
import { TelformError } from '../util/errors.js';
import { DependencyGraph } from '../util/graph.js';
import { isReference, type DesiredResource, type PlannerKind } from './model.js';
import type { PlannedChange } from './plan-types.js';
import { referencedNames } from './references.js';

/**
 * Execution order (docs/commands.md, plan): creates and updates in dependency order
 * (ACL/credential/URI before trunk, brand before campaign, credential/ACL before the application
 * binding), deletes in reverse. Each change gets `depends_on`: the changes that must succeed first.
 */
export function orderChanges(
  changes: readonly PlannedChange[],
  kinds: ReadonlyMap<string, PlannerKind>,
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
): PlannedChange[] {
  const rank = kindRanks([...kinds.values()]);
  const byAddress = new Map(changes.map((change) => [change.address, change]));
  const producing = new Set(['create', 'replace', 'wait']);
  const releasing = new Set(['update', 'replace', 'delete']);

  const releasers = releasersByUse(changes, kinds, releasing);
  for (const change of changes) {
    const kind = kinds.get(change.kind);
    if (!kind) continue;
    const depends = new Set<string>();
    if (change.action !== 'delete') {
      const desired = desiredByAddress.get(change.address);
      for (const { target, name } of desired ? referencedNames(kind, desired.spec) : []) {
        const address = `${target}/${name}`;
        const targetChange = byAddress.get(address);
        if (targetChange && producing.has(targetChange.action)) depends.add(address);
      }
    }
    // Whatever stops using the old object (re-pointed, replaced or deleted) goes before its delete.
    const releasedBy = new Set<string>();
    if (change.action === 'delete' || change.action === 'replace') {
      const uses = [
        useKey(change.kind, 'ref', change.name),
        ...(change.id === undefined ? [] : [useKey(change.kind, 'id', change.id)]),
      ];
      for (const other of uses.flatMap((use) => releasers.get(use) ?? [])) {
        if (other !== change) releasedBy.add(other.address);
      }
    }
    if (change.action === 'delete') for (const address of releasedBy) depends.add(address);
    change.depends_on = [...depends].sort();
    if (change.action === 'replace') change.delete_after = [...releasedBy].sort();
  }

  const forward = (a: PlannedChange, b: PlannedChange): number =>
    (rank.get(a.kind) ?? 0) - (rank.get(b.kind) ?? 0) || compare(a.address, b.address);
  const creates = changes.filter((change) => change.action !== 'delete').sort(forward);
  const deletes = changes.filter((change) => change.action === 'delete').sort((a, b) => -forward(a, b));
  return [...creates, ...deletes];
}

/** Whether a live spec (canonical, refs as `{ ref }`) points at `target`. */
function useKey(kind: string, by: 'ref' | 'id', value: string): string {
  return `${kind}\u0000${by}\u0000${value}`;
}

/**
 * The changes that stop using an object (`releasing` actions), by what their live spec refers to:
 * a reference by name or an id. Indexed once, so each delete or replace looks its users up instead
 * of scanning every change (deletes × changes).
 */
function releasersByUse(
  changes: readonly PlannedChange[],
  kinds: ReadonlyMap<string, PlannerKind>,
  releasing: ReadonlySet<string>,
): Map<string, PlannedChange[]> {
  const byUse = new Map<string, PlannedChange[]>();
  for (const change of changes) {
    const kind = kinds.get(change.kind);
    const before = liveSpecOf(change);
    if (!kind || !before || !releasing.has(change.action)) continue;
    const uses = new Set<string>();
    for (const { field, target } of kind.references) {
      const value = before[field];
      if (isReference(value)) uses.add(useKey(target, 'ref', value.ref));
      else if (typeof value === 'string') uses.add(useKey(target, 'id', value));
    }
    for (const use of uses) {
      const users = byUse.get(use);
      if (users) users.push(change);
      else byUse.set(use, [change]);
    }
  }
  return byUse;
}

/**
 * Ranks kinds so that every kind comes after the kinds it references: a kind's rank is its
 * dependency wave. A cycle (a kind referring to itself is not one) is an error.
 */
export function kindRanks(kinds: readonly PlannerKind[]): Map<string, number> {
  const graph = new DependencyGraph();
  for (const kind of kinds) {
    graph.addNode(kind.kind);
    for (const reference of kind.references)
      if (reference.target !== kind.kind) graph.addEdge(kind.kind, reference.target);
  }
  const [cycle] = graph.findCycles();
  if (cycle) throw new TelformError('kind_cycle', `kinds reference each other in a cycle: ${cycle.join(' → ')}`);
  const rank = new Map<string, number>();
  for (const [level, wave] of graph.waves().entries()) for (const name of wave) rank.set(name, level);
  return rank;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
