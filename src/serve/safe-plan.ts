// What `--apply safe` may apply on its own: a plan that needs no approval at all. Every safety gate
// must pass with no approval given (nothing irreversible, billable, protected or bulk; nothing
// pruned), and no change may carry a flag a person should weigh even where no gate stops it
// (breaking authentication or calls, clearing an application's binding, registering again a brand or
// campaign that went away outside telform), nor be one telform refuses to make. Anything else is
// left for a person, with the reasons, as an event.
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import type { SafetyViolation } from '../engine/safety.js';
import { catalog, type KindCatalog } from '../resources/index.js';
import type { AccountCheck, PlanLine, RegistryEntry } from './model.js';

/**
 * Why a person must look at this plan before it is applied; empty when serve may apply it. Which
 * creates are registrations the registry vets is each kind's `registry.vetted` in `kinds`.
 */
export function reasonsToHold(
  plan: Plan,
  violations: readonly SafetyViolation[],
  kinds: KindCatalog = catalog,
): string[] {
  const reasons = violations.map((violation) => violation.message);
  for (const change of plan.changes) {
    if (change.action === 'noop' || change.action === 'wait') continue;
    const { flags } = change;
    if (change.action === 'blocked')
      reasons.push(`${change.address}: telform will not make this change (${change.reasons.join('; ')})`);
    // A brand or campaign gone from the account was deactivated by someone (or expired): registering
    // it again is a new vetting submission, which a person decides on, not a heal.
    if (
      kinds.get(change.kind)?.registry?.vetted === true &&
      (change.action === 'create' || change.action === 'replace') &&
      change.drifted === true
    ) {
      reasons.push(
        `${change.address} was deleted or deactivated outside telform: registering it again is a new vetting submission; run telform apply to make it`,
      );
    }
    if (flags.breaks_auth) reasons.push(`${change.address} would break authentication of what still uses it`);
    if (flags.breaks_calls) reasons.push(`${change.address} would break calls`);
    if (flags.needs_unassign) reasons.push(`${change.address} needs an application's binding cleared first`);
    // Traffic the blast radius counts that no flag names (an ACL losing an address a trunk uses).
    const lost = change.blast ? change.blast.trunks.length + change.blast.applications.length : 0;
    if (lost > 0) reasons.push(`${change.address} would make ${lost} trunk(s) or application(s) lose authentication`);
    // The gates name these already when they refuse; said again only when no gate did (a plan
    // approved at plan time still needs a person here).
    if (flags.irreversible && !violations.some((violation) => violation.address === change.address))
      reasons.push(`${change.address} cannot be undone`);
    if (flags.billable_usd > 0 && !violations.some((violation) => violation.code === 'cost'))
      reasons.push(`${change.address} costs ${flags.billable_usd} USD`);
  }
  return [...new Set(reasons)];
}

/** The changes a person would review: every change but the no-ops. */
export function planLines(plan: Plan): PlanLine[] {
  return plan.changes
    .filter((change) => change.action !== 'noop')
    .map((change) => ({
      address: change.address,
      action: change.action,
      drifted: change.drifted === true,
      reasons: change.reasons,
    }));
}

/**
 * The registry status of each managed object the plan's read found (brands, campaigns and number
 * links): the changes of the kinds in `kinds` that declare a `registry`.
 */
export function registryEntries(plan: Plan, kinds: KindCatalog = catalog): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const change of plan.changes) {
    if (!kinds.get(change.kind)?.registry || !change.registry || !hasId(change)) continue;
    const reason = registryReason(change.registry);
    entries.push({
      address: change.address,
      kind: change.kind,
      id: change.id,
      status: change.registry.registration_status.toUpperCase(),
      ...(reason === undefined ? {} : { reason }),
    });
  }
  return entries;
}

function hasId(change: PlannedChange): change is PlannedChange & { id: string } {
  return 'id' in change && typeof change.id === 'string' && change.id !== '';
}

/** The registry's own words for a decline or a failure, when it gives any. */
export function registryReason(registry: NonNullable<PlannedChange['registry']>): string | undefined {
  const parts = [
    ...(registry.declined_reasons ?? []).map((reason) => `${reason.code}: ${reason.message}`),
    ...(registry.error_code || registry.error_reason
      ? [[registry.error_code, registry.error_reason].filter(Boolean).join(': ')]
      : []),
  ];
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** A check that failed, as serve records it. */
export function failedCheck(
  error: { code: string; message: string },
  requests: number,
  rateLimited: number,
): AccountCheck {
  return { status: 'error', drifted: [], pending: [], notes: [], registry: [], plan: [], error, requests, rateLimited };
}
