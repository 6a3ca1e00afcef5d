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

/** The state's last applied spec of each resource, by address: a delete has no desired spec, but its references are recorded. */
export type RecordedSpecs = Readonly<Record<string, { applied_spec: Readonly<Record<string, unknown>> } | undefined>>;

/** How a left-out change is tied to the excluded one: it needs the excluded one, or the excluded one needs it. */
type Tie = 'depends' | 'needed';

/**
 * An address is a manifest resource or one the state still owns, as for `--target`; one that is
 * neither is an error with a suggestion, so a typo never applies what it meant to hold back. The
 * resources left out are neither shown, nor applied, nor part of a saved plan's basis.
 */
export function excludeFromPlan(
  plan: Plan,
  excludes: readonly string[],
  kinds: PlannerKinds,
  recorded: RecordedSpecs = {},
): Plan {
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
  const dependents = dependentsOf(plan.changes, kinds, recorded);
  const left = new Set<string>();
  const ties = new Map<string, Tie>();
  const visit = (address: string): void => {
    if (left.has(address)) return;
    left.add(address);
    for (const { address: next, tie } of dependents.get(address) ?? []) {
      if (!ties.has(next)) ties.set(next, tie);
      visit(next);
    }
  };
  for (const address of excludes) visit(address);
  const changes = plan.changes.filter((change) => !left.has(change.address) && !left.has(supersededOf(change) ?? ''));
  const kept = new Set(changes.map((change) => change.address));
  const leftOut = plan.changes.filter((change) => !kept.has(change.address)).map((change) => change.address);
  const named = [...new Set(excludes)].sort();
  const along = leftOut.filter((address) => !named.includes(address) && !address.includes('#'));
  const them = named.length === 1 ? 'it' : 'them';
  const dependentsLeft = along.filter((address) => ties.get(address) !== 'needed');
  const neededLeft = along.filter((address) => ties.get(address) === 'needed');
  const alongWords = [
    ...(dependentsLeft.length > 0 ? [`what depends on ${them} (${dependentsLeft.join(', ')})`] : []),
    ...(neededLeft.length > 0 ? [`what ${them === 'it' ? 'it needs' : 'they need'} (${neededLeft.join(', ')})`] : []),
  ];
  const objects = Object.fromEntries(
    Object.entries(plan.basis.objects).filter(([key]) => kept.has(key.split('#')[0] as string)),
  );
  return {
    ...plan,
    excluded: named,
    changes,
    summary: summarize(changes, plan.summary.api_reads ?? 0),
    warnings: [
      `--exclude: this plan leaves out ${listWords([named.join(', '), ...alongWords])}; changes to ${leftOut.length === 1 ? 'it' : 'them'} are neither shown nor applied`,
      ...plan.warnings.filter(
        (warning) =>
          !leftOut.some((address) => warning.startsWith(`${address} `) || warning.startsWith(`${address}: `)),
      ),
    ],
    basis: { ...plan.basis, objects },
  };
}

/** `a`, `a and b`, `a, b and c`. */
function listWords(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}`;
}

/**
 * By address, the changes tied to it: those that refer to it (in their desired spec, or for a
 * delete in the spec the state recorded: a number deleted off a kept trunk would be detached from
 * it) or wait for it in apply. A delete that waits for another delete is what that one needs (an
 * ACL is deleted after the trunk that uses it).
 */
function dependentsOf(
  changes: readonly PlannedChange[],
  kindsByName: PlannerKinds,
  recorded: RecordedSpecs,
): Map<string, Array<{ address: string; tie: Tie }>> {
  const dependents = new Map<string, Array<{ address: string; tie: Tie }>>();
  const byAddress = new Map(changes.map((change) => [change.address, change]));
  const add = (on: string, address: string, tie: Tie): void => {
    const list = dependents.get(on);
    if (list) list.push({ address, tie });
    else dependents.set(on, [{ address, tie }]);
  };
  for (const change of changes) {
    for (const dependency of change.depends_on) {
      const needed = change.action === 'delete' && byAddress.get(dependency)?.action === 'delete';
      add(dependency, change.address, needed ? 'needed' : 'depends');
    }
    const kind = kindsByName.get(change.kind);
    const spec =
      desiredSpecOf(change) ?? (change.action === 'delete' ? recorded[change.address]?.applied_spec : undefined);
    if (kind && spec)
      for (const { target, name } of referencedNames(kind, spec)) add(`${target}/${name}`, change.address, 'depends');
  }
  return dependents;
}
