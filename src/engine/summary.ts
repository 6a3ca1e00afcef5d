import type { Plan, PlannedChange, PlanSummary } from './plan-types.js';

/**
 * The plan's counts, cost and request estimate: `reads` (what reading the account sent, which apply
 * sends again before it writes) and each change's writes; blocked and unchanged resources cost nothing.
 */
export function summarize(changes: readonly PlannedChange[], reads: number): PlanSummary {
  const blast = { calls: 0, messages: 0, numbers: 0, trunks: 0, applications: 0 };
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    replace: 0,
    delete: 0,
    adopt: 0,
    wait: 0,
    blocked: 0,
    noop: 0,
    cost_usd: 0,
    irreversible: 0,
    api_requests: reads,
    api_reads: reads,
    blast_radius: blast,
  };
  const trunks = new Set<string>();
  const applications = new Set<string>();
  for (const change of changes) {
    summary[change.action] += 1;
    if (change.action === 'blocked' || change.action === 'noop') continue;
    if (change.blast) {
      blast.calls += change.blast.calls;
      blast.messages += change.blast.messages;
      blast.numbers += change.blast.numbers;
      for (const trunk of change.blast.trunks) trunks.add(trunk);
      for (const application of change.blast.applications) applications.add(application);
    }
    summary.cost_usd += change.flags.billable_usd;
    if (change.flags.irreversible) summary.irreversible += 1;
    summary.api_requests += change.api_requests;
  }
  blast.trunks = trunks.size;
  blast.applications = applications.size;
  return summary;
}

/** Registry outcomes worth a reviewer's eye: declined, expired, still under review. */
export function pendingWarnings(changes: readonly PlannedChange[]): string[] {
  const warnings: string[] = [];
  for (const change of changes) {
    const registry = change.registry;
    if (!registry) continue;
    const status = registry.registration_status.toUpperCase();
    if (status === 'FAILED') {
      const why = [
        ...(registry.declined_reasons ?? []).map((reason) => `${reason.code}: ${reason.message}`),
        ...(registry.error_code || registry.error_reason
          ? [[registry.error_code, registry.error_reason].filter(Boolean).join(': ')]
          : []),
      ];
      warnings.push(`${change.address} was declined by the registry${why.length > 0 ? ` (${why.join('; ')})` : ''}`);
    } else if (status === 'EXPIRED') {
      warnings.push(`${change.address} has expired at the registry`);
    } else if (status === 'PROCESSING') {
      warnings.push(`${change.address} is still being reviewed by the registry`);
    }
  }
  return warnings;
}

export function hasChanges(plan: Plan): boolean {
  // A move changes the state, not the account: it is applied like any change (and reviewed as one).
  return plan.changes.some((change) => change.action !== 'noop' || change.moved_from !== undefined);
}

/** The operations an apply of the plan runs: a create-before-delete replace is two (the new object, then the old one's delete). */
export function countApplySteps(plan: Plan): number {
  return plan.changes.reduce(
    (steps, change) =>
      change.action === 'noop' || change.action === 'blocked'
        ? steps
        : steps + (change.action === 'replace' && change.replace_strategy === 'create_before_delete' ? 2 : 1),
    0,
  );
}
