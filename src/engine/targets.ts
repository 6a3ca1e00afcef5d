import { desiredSpecOf, supersededOf } from './change-fields.js';
import type { PlannerKinds } from './model.js';
import { referencedNames } from './references.js';
import { TelformError } from '../util/errors.js';
import { suggest } from '../util/suggest.js';
import type { Plan, PlannedChange } from './plan-types.js';
import { pendingWarnings, summarize } from './summary.js';

/**
 * `--target ADDRESS` (repeatable): the plan limited to those resources and everything they depend
 * on, for an emergency fix. What a resource depends on is what its desired spec refers to (`{ ref }`),
 * whatever that resource's own action: an edited ACL comes along with a trunk that uses it even
 * when the trunk itself does not change (`depends_on` names only what apply must wait for). The rest of the account is left out of the plan — neither shown, nor
 * applied, nor part of a saved plan's basis — and the plan says so. Pure: no I/O.
 *
 * A target is a manifest resource, a resource the state still owns (its delete), or a replace
 * whose superseded object's delete comes along with it. An address that is none of these is an
 * error, with a suggestion from `known` (the manifests' and the state's addresses) and the plan: a
 * typo must not silently plan nothing.
 */
export function limitToTargets(
  plan: Plan,
  targets: readonly string[],
  kinds: PlannerKinds,
  known: Iterable<string> = [],
): Plan {
  if (targets.length === 0) return plan;
  const byAddress = new Map(plan.changes.map((change) => [change.address, change]));
  const unknown = targets.filter((target) => !byAddress.has(target));
  if (unknown.length > 0) {
    const [first] = unknown as [string];
    // Suggested from every address the manifests and the state know: a targeted run plans only what it reads.
    const hint = suggest(first, new Set([...byAddress.keys(), ...known]));
    throw new TelformError(
      'bad_option',
      `--target ${first}: no such resource in the manifests or the state${hint ? `; did you mean ${hint}?` : ''} (addresses are Kind/name, e.g. Trunk/pbx-out)`,
    );
  }
  const kept = new Set<string>();
  const visit = (address: string): void => {
    if (kept.has(address)) return;
    const change = byAddress.get(address);
    if (!change) return;
    kept.add(address);
    for (const dependency of change.depends_on) visit(dependency);
    const kind = kinds.get(change.kind);
    const spec = desiredSpecOf(change);
    if (kind && spec) for (const { target, name } of referencedNames(kind, spec)) visit(`${target}/${name}`);
  };
  for (const target of targets) visit(target);
  const changes = plan.changes.filter((change) => kept.has(change.address) || isSupersededOfKept(change, kept));
  const addresses = new Set(changes.map((change) => change.address));
  const objects = Object.fromEntries(
    Object.entries(plan.basis.objects).filter(([key]) => addresses.has(key.split('#')[0] as string)),
  );
  const left = plan.changes.length - changes.length;
  const notes = pendingWarnings(changes.filter((change) => change.action === 'noop'));
  const sorted = [...new Set(targets)].sort();
  const { notes: _wholeNotes, ...rest } = plan;
  return {
    ...rest,
    targets: sorted,
    changes,
    unmanaged: [],
    // The whole account is read to plan even a few targets.
    summary: summarize(changes, plan.summary.api_reads ?? 0),
    warnings: [
      `--target: this plan covers only ${sorted.join(', ')} and what ${sorted.length === 1 ? 'it depends' : 'they depend'} on (${changes.length} of ${plan.changes.length} resources); the other ${left} were not looked at, and changes to them are neither shown nor applied`,
      ...plan.warnings.filter((warning) => !isAbout(warning, plan.changes, addresses)),
      ...pendingWarnings(changes.filter((change) => change.action !== 'noop')).filter(
        (warning) => !plan.warnings.includes(warning),
      ),
    ],
    ...(notes.length > 0 ? { notes } : {}),
    basis: { ...plan.basis, objects },
  };
}

/** A warning that names a resource left out of the plan. */
function isSupersededOfKept(change: PlannedChange, kept: ReadonlySet<string>): boolean {
  const owner = supersededOf(change);
  return owner !== undefined && kept.has(owner);
}

function isAbout(warning: string, all: readonly PlannedChange[], kept: ReadonlySet<string>): boolean {
  return all.some((change) => !kept.has(change.address) && warning.startsWith(`${change.address} `));
}
