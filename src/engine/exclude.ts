// `--exclude ADDRESS` (repeatable), the complement of `--target`: the plan without those resources
// and without everything that depends on them (a trunk on an excluded ACL, the numbers on an excluded
// trunk, the ACL whose delete waits for an excluded trunk's). Pure: no I/O.
import { desiredSpecOf, supersededOf } from './change-fields.js';
import type { PlannerKinds } from './model.js';
import { referencedNames } from './references.js';
import { TelformError } from '../util/errors.js';
import { suggest } from '../util/suggest.js';
import type { Plan, PlannedChange } from './plan-types.js';
import { summarize } from './summary.js';

/**
 * An address is a manifest resource or one the state still owns, as for `--target`; one that is
 * neither is an error with a suggestion, so a typo never applies what it meant to hold back. The
 * resources left out are neither shown, nor applied, nor part of a saved plan's basis.
 */
export function excludeFromPlan(plan: Plan, excludes: readonly string[], kinds: PlannerKinds): Plan {
  if (excludes.length === 0) return plan;
  const byAddress = new Map(plan.changes.map((change) => [change.address, change]));
  for (const address of excludes) {
    if (byAddress.has(address)) continue;
    const hint = suggest(address, byAddress.keys());
    throw new TelformError(
      'bad_option',
      `--exclude ${address}: no such resource in the manifests or the state${hint ? `; did you mean ${hint}?` : ''} (addresses are Kind/name, e.g. Trunk/pbx-out)`,
    );
  }
  const dependents = dependentsOf(plan.changes, kinds);
  const left = new Set<string>();
  const visit = (address: string): void => {
    if (left.has(address)) return;
    left.add(address);
    for (const dependent of dependents.get(address) ?? []) visit(dependent);
  };
  for (const address of excludes) visit(address);
  const changes = plan.changes.filter((change) => !left.has(change.address) && !left.has(supersededOf(change) ?? ''));
  const kept = new Set(changes.map((change) => change.address));
  const leftOut = plan.changes.filter((change) => !kept.has(change.address)).map((change) => change.address);
  const named = [...new Set(excludes)].sort();
  const along = leftOut.filter((address) => !named.includes(address) && !address.includes('#'));
  const objects = Object.fromEntries(Object.entries(plan.basis.objects).filter(([key]) => kept.has(key.split('#')[0] as string)));
  return {
    ...plan,
    excluded: named,
    changes,
    summary: summarize(changes, plan.summary.api_reads ?? 0),
    warnings: [
      `--exclude: this plan leaves out ${named.join(', ')}${along.length > 0 ? ` and what depends on ${named.length === 1 ? 'it' : 'them'} (${along.join(', ')})` : ''}; changes to ${leftOut.length === 1 ? 'it' : 'them'} are neither shown nor applied`,
      ...plan.warnings.filter((warning) => !leftOut.some((address) => warning.startsWith(`${address} `) || warning.startsWith(`${address}: `))),
    ],
    basis: { ...plan.basis, objects },
  };
}

/** By address, the changes that depend on it: wait for it in apply, or refer to it in their desired spec. */
function dependentsOf(changes: readonly PlannedChange[], kindsByName: PlannerKinds): Map<string, string[]> {
  const dependents = new Map<string, string[]>();
  const add = (on: string, dependent: string): void => {
    const list = dependents.get(on);
    if (list) list.push(dependent);
    else dependents.set(on, [dependent]);
  };
  for (const change of changes) {
    for (const dependency of change.depends_on) add(dependency, change.address);
    const kind = kindsByName.get(change.kind);
    const spec = desiredSpecOf(change);
    if (kind && spec) for (const { target, name } of referencedNames(kind, spec)) add(`${target}/${name}`, change.address);
  }
  return dependents;
}
