import { supersededOf } from './change-fields.js';
import { editDistance } from '../util/suggest.js';
import type { Ledger } from '../state/ledger.js';
import type { DesiredResource } from './model.js';
import type { Plan, PlanApprovals } from './plan-types.js';

/**
 * Safety gates (docs/state-and-safety.md, safety), checked on the plan before any request is sent. Each
 * violation says which flag approves it, so an approval covers exactly what was reviewed.
 */
export interface SafetyViolation {
  code:
    'irreversible' | 'cost' | 'protected' | 'mass_delete' | 'empty' | 'blast_radius' | 'lint' | 'policy' | 'held_value';
  address?: string;
  /** The lint rule a `lint` violation is about. */
  rule?: string;
  message: string;
}

/** The flag that approves a violation, as given to `plan` or `apply`; none for a protected resource. */
export function approvingFlag(violation: SafetyViolation, plan: Plan): string | undefined {
  switch (violation.code) {
    case 'irreversible': {
      const change = plan.changes.find((candidate) => candidate.address === violation.address);
      return `--allow-irreversible ${(change && supersededOf(change)) ?? violation.address}`;
    }
    case 'cost':
      return `--max-cost ${plan.summary.cost_usd}`;
    case 'mass_delete':
      return '--force-deletes';
    case 'empty':
      return '--allow-empty';
    case 'blast_radius':
      return `--max-numbers-affected ${plan.summary.blast_radius?.numbers ?? 0}`;
    case 'lint':
      return `--allow-lint ${violation.rule ?? 'all'}`;
    case 'protected':
    case 'policy':
    case 'held_value':
      return undefined;
    default: {
      const unreachable: never = violation.code;
      throw new Error(`unhandled safety violation ${String(unreachable)}`);
    }
  }
}

/**
 * The approvals a plan needs (every gate it would hit with none given), each with whether the
 * given approvals cover it. Shown in the plan, so the pull request says what to approve.
 * `violations` is `checkSafety` of the plan with the given approvals, when the caller has it already.
 */
export function requiredApprovals(
  plan: Plan,
  given: PlanApprovals,
  desired: readonly DesiredResource[],
  ledger: Ledger,
  violations: readonly SafetyViolation[] = checkSafety(plan, given, desired, ledger),
): Array<{ flag: string; given: boolean }> {
  const none: PlanApprovals = {
    allow_irreversible: [],
    max_cost_usd: null,
    force_deletes: false,
    allow_empty: false,
    prune_unmanaged: given.prune_unmanaged,
    max_numbers_affected: null,
    allow_lint: [],
  };
  const missing = new Set(violations.map((violation) => approvingFlag(violation, plan)));
  const flags = new Set<string>();
  for (const violation of checkSafety(plan, none, desired, ledger)) {
    const flag = approvingFlag(violation, plan);
    if (flag) flags.add(flag);
  }
  return [...flags].map((flag) => ({ flag, given: !missing.has(flag) }));
}

/** Kinds with at least this many managed resources are subject to the 30% rule. */
const massDeleteMinimum = 10;
const massDeleteRatio = 0.3;

export function checkSafety(
  plan: Plan,
  approvals: PlanApprovals,
  desired: readonly DesiredResource[],
  ledger: Ledger,
): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  // A teardown (`--destroy`) is the reviewed intent these two gates guard against doing by mistake; so
  // is a revert, which reads no manifests: its deletes are what apply #N created, named in its plan.
  const teardown = plan.destroy === true || plan.reverts !== undefined;
  if (desired.length === 0 && !approvals.allow_empty && !teardown) {
    violations.push({
      code: 'empty',
      message:
        'the manifests hold no resource at all (a wrong -f path looks exactly like this); pass --allow-empty to delete everything telform manages',
    });
  }
  // Looked up only for a destructive change: most plans have none, and the state holds thousands.
  let protectedAddresses: ReadonlySet<string> | undefined;
  let protectedInState: ReadonlySet<string> | undefined;
  const allowAll = approvals.allow_irreversible.includes('all');
  for (const change of plan.changes) {
    // A blocked change sends nothing: no gate concerns it (the summary does not count it either).
    if (change.action === 'blocked') continue;
    const destructive = change.action === 'delete' || change.action === 'replace';
    // A create is irreversible only as a revert's new registration of a deleted brand or campaign.
    if (!destructive && !change.flags.irreversible) continue;
    const done = change.action === 'delete' ? 'deleted' : 'replaced';
    if (!destructive) {
      // Nothing to protect: only the irreversible gate below concerns a create.
    } else if (
      (protectedAddresses ??= new Set(
        desired.filter((resource) => resource.protect).map((resource) => resource.address),
      )).has(change.address)
    ) {
      violations.push({
        code: 'protected',
        address: change.address,
        message: `${change.address} has metadata.protect: true and would be ${done}; set metadata.protect: false and apply that first`,
      });
    } else if ((protectedInState ??= protectedEntries(ledger)).has(change.address)) {
      violations.push({
        code: 'protected',
        address: change.address,
        message: `${change.address} is protected in the state (an apply recorded metadata.protect: true) and would be ${done}; to lift it, apply it once with metadata.protect: false, or run \`telform state unprotect ${change.address}\``,
      });
    }
    // Approving a replace also approves finishing it: deleting what it superseded.
    const approvedAs = supersededOf(change) ?? change.address;
    if (change.flags.irreversible && !allowAll && !approvals.allow_irreversible.includes(approvedAs)) {
      violations.push({
        code: 'irreversible',
        address: change.address,
        message: destructive
          ? `${change.address} would be ${change.action === 'delete' ? 'deleted' : 'replaced'}, which cannot be undone; approve it with --allow-irreversible ${approvedAs}`
          : `${change.address} would be registered anew (a new id, a new vetting), which cannot be undone; approve it with --allow-irreversible ${approvedAs}`,
      });
    }
  }
  const cost = plan.summary.cost_usd;
  const allowed = approvals.max_cost_usd ?? 0;
  if (cost > allowed) {
    violations.push({
      code: 'cost',
      message: `the plan costs ${cost} USD (campaign vetting reviews) and the approved maximum is ${allowed} USD; approve it with --max-cost ${cost}`,
    });
  }
  if (!approvals.force_deletes && !teardown) violations.push(...massDeletes(plan, ledger));
  violations.push(
    ...blastRadius(plan, approvals),
    ...findingViolations(plan, approvals),
    ...heldValueViolations(plan, desired),
  );
  return violations;
}

/**
 * A held value (docs/real-accounts.md) is accepted only while the account keeps it: what a create
 * or a replace sends, and every field an update changes, must meet the create rules in full. No flag
 * approves it: the API would refuse the request.
 */
function heldValueViolations(plan: Plan, desired: readonly DesiredResource[]): SafetyViolation[] {
  const byAddress = new Map(
    desired.filter((resource) => resource.held).map((resource) => [resource.address, resource]),
  );
  const violations: SafetyViolation[] = [];
  for (const change of plan.changes) {
    const resource = byAddress.get(change.address);
    if (!resource?.held) continue;
    let broken: NonNullable<DesiredResource['held']>;
    // A change waiting for the registry sends its whole spec once it goes: judged as the create it is
    // when nothing is live yet.
    const creates = change.action === 'wait' && Object.keys(change.before ?? {}).length === 0;
    if (change.action === 'create' || change.action === 'replace' || creates) {
      broken = resource.held;
    } else if (change.action === 'update') {
      const changed = new Set(
        Object.keys({ ...change.before, ...change.after }).filter(
          (field) => !sameValue(change.before[field], change.after[field]),
        ),
      );
      broken = resource.held.filter((rule) => rule.field !== undefined && changed.has(rule.field));
    } else {
      continue;
    }
    for (const rule of broken) {
      const place = rule.source ? `${rule.source.file}:${rule.source.line}:${rule.source.column}: ` : '';
      const what =
        change.action === 'update'
          ? `changes spec.${rule.field ?? ''}`
          : `would be ${change.action === 'replace' ? 'created anew' : 'created'}`;
      violations.push({
        code: 'held_value',
        address: change.address,
        message: `${place}${change.address} ${what}, which must meet the create rules: ${rule.field === undefined ? '' : `spec.${rule.field} `}${rule.message}`,
      });
    }
  }
  return violations;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Numbers whose calls or messages the plan breaks, past `--max-numbers-affected` (default 0: any
 * number a plan cuts off is approved by name of its count, as a cost is).
 */
function blastRadius(plan: Plan, approvals: PlanApprovals): SafetyViolation[] {
  const totals = plan.summary.blast_radius;
  const allowed = approvals.max_numbers_affected ?? 0;
  if (!totals || totals.numbers <= allowed) return [];
  const parts = [
    ...(totals.calls > 0 ? [`calls to ${totals.calls} number${totals.calls === 1 ? '' : 's'}`] : []),
    ...(totals.messages > 0 ? [`messages of ${totals.messages} number${totals.messages === 1 ? '' : 's'}`] : []),
  ];
  return [
    {
      code: 'blast_radius',
      message: `the plan breaks ${parts.join(' and ')} and the approved maximum is ${allowed}; approve it with --max-numbers-affected ${totals.numbers}`,
    },
  ];
}

/** Campaign changes that submit to the registry (a review that takes days; an update is billed). */
const submissions = new Set(['create', 'update', 'replace', 'wait']);

/**
 * Error-level findings: a lint error on a campaign the plan submits (unless `--allow-lint RULE`),
 * and any policy error (a policy is the account's own rule: it has no override flag).
 */
function findingViolations(plan: Plan, approvals: PlanApprovals): SafetyViolation[] {
  const allowed = new Set(approvals.allow_lint ?? []);
  const submitted = new Set(
    plan.changes.filter((change) => submissions.has(change.action)).map((change) => change.address),
  );
  const violations: SafetyViolation[] = [];
  for (const finding of plan.findings ?? []) {
    if (finding.severity !== 'error') continue;
    if (finding.source === 'policy') {
      violations.push({
        code: 'policy',
        address: finding.address,
        message: `${finding.address} violates policy ${finding.rule}: ${finding.message}`,
      });
    } else if (submitted.has(finding.address) && !allowed.has(finding.rule) && !allowed.has('all')) {
      violations.push({
        code: 'lint',
        address: finding.address,
        rule: finding.rule,
        message: `${finding.address} would be submitted to the registry with lint error ${finding.rule}: ${finding.message}; fix it, or approve it with --allow-lint ${finding.rule}`,
      });
    }
  }
  return violations;
}

/** The addresses the state records as protected. */
function protectedEntries(ledger: Ledger): Set<string> {
  const addresses = new Set<string>();
  for (const [address, entry] of Object.entries(ledger.resources)) if (entry.protect === true) addresses.add(address);
  return addresses;
}

function massDeletes(plan: Plan, ledger: Ledger): SafetyViolation[] {
  const removing = new Map<string, number>();
  for (const change of plan.changes) {
    if ((change.action === 'delete' || change.action === 'replace') && !change.address.includes('/#')) {
      removing.set(change.kind, (removing.get(change.kind) ?? 0) + 1);
    }
  }
  // The state's count per kind is needed only when something is removed.
  if (removing.size === 0) return [];
  const managed = new Map<string, number>();
  for (const entry of Object.values(ledger.resources)) managed.set(entry.kind, (managed.get(entry.kind) ?? 0) + 1);
  const violations: SafetyViolation[] = [];
  for (const [kind, count] of removing) {
    const total = managed.get(kind) ?? 0;
    if (total === 0) continue;
    const all = count >= total;
    const tooMany = total >= massDeleteMinimum && count / total > massDeleteRatio;
    if (all || tooMany) {
      violations.push({
        code: 'mass_delete',
        message: `the plan deletes or replaces ${count} of the ${total} managed ${kind} resources${all ? ' (all of them)' : ` (more than ${massDeleteRatio * 100}%)`}; check the -f paths, then pass --force-deletes`,
      });
    }
  }
  return violations;
}

/**
 * `--allow-irreversible ADDRESS` for an address the plan does not hold approves nothing; a typo
 * there would let the reviewer believe a change was approved. One warning per such address, naming
 * the closest address that does need the approval.
 */
export function unusedApprovals(plan: Plan, approvals: PlanApprovals): string[] {
  const needing = [
    ...new Set(
      plan.changes
        .filter((change) => change.flags.irreversible)
        .map((change) => supersededOf(change) ?? change.address),
    ),
  ];
  const warnings: string[] = [];
  for (const address of approvals.allow_irreversible) {
    if (address === 'all' || needing.includes(address)) continue;
    const closest = [...needing].sort(
      (a, b) => editDistance(address, a) - editDistance(address, b) || a.localeCompare(b),
    )[0];
    warnings.push(
      `--allow-irreversible ${address} approves nothing: the plan has no irreversible change of ${address}${
        closest === undefined
          ? ' (it has no irreversible change at all)'
          : `; the closest that needs approval is ${closest}`
      }`,
    );
  }
  return warnings;
}
