// Fields a read did not return (docs/real-accounts.md): unknown, not absent. The planner compares
// them with what telform last applied, as it does write-only inputs, and the plan says which they were.
import type { LiveObject } from '../resources/live-side.js';
import type { LedgerEntry } from '../state/ledger.js';
import type { DesiredResource, PlannerKind } from './model.js';

/** The fields of a live object its read left out (write-only inputs are said elsewhere), sorted. */
function unknownFields(kind: PlannerKind, live: LiveObject): string[] {
  return (live.unread ?? []).filter((field) => !kind.live.fields.unreadable.includes(field)).sort();
}

/**
 * What the planner assumes for each unknown field: the value telform last applied (a field the ledger
 * never held was not sent, so it is taken as absent); without a ledger entry, the manifest's value, so
 * an unknown field is never a change, drift or a replace on its own.
 */
export function assumedUnknowns(
  kind: PlannerKind,
  live: LiveObject,
  entry: LedgerEntry | undefined,
  desired: DesiredResource | undefined,
): Array<[string, unknown]> {
  return unknownFields(kind, live).map((field) => [field, entry ? entry.applied_spec[field] : desired?.spec[field]]);
}

/**
 * The fields reads left out of managed objects, per kind, and how many objects: one note per kind, so a
 * reader knows those were not compared with the account (unknown is not absent). Only objects the plan
 * changes are counted: a converged plan says nothing (each change's reasons say it beside the change).
 */
export class UnknownFields {
  private readonly byAddress = new Map<string, { kind: string; fields: readonly string[] }>();

  note(kind: string, fields: readonly string[], address: string): void {
    this.byAddress.set(address, { kind, fields });
  }

  warnings(changes: ReadonlyArray<{ address: string; action: string }>): string[] {
    const byKind = new Map<string, { fields: Set<string>; objects: number }>();
    for (const change of changes) {
      const noted = change.action === 'noop' ? undefined : this.byAddress.get(change.address);
      if (!noted) continue;
      const seen = byKind.get(noted.kind) ?? { fields: new Set<string>(), objects: 0 };
      for (const field of noted.fields) seen.fields.add(field);
      seen.objects += 1;
      byKind.set(noted.kind, seen);
    }
    return [...byKind]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(
        ([kind, { fields, objects }]) =>
          `${kind}: the API did not read back ${[...fields].sort().join(', ')} of ${objects} managed object(s) this plan changes; telform takes each as it last applied it (or, before its first apply, as the manifest says), never as drift`,
      );
  }
}

/** The key of an object whose read by id failed (`PlanInputs.unreadable`): its kind and id. */
export function unreadableKey(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}
