// `telform revert N`: the desired resources that put back what apply #N changed, for the planner to
// plan against the account as it is now (docs/state-and-safety.md, history). The base is the state:
// every resource it manages is wanted as last applied, except those apply #N touched — an update or
// replace wants its spec from before #N, a create is deleted, a delete is created again. Pure: the
// history record and the ledger in, the resources, the addresses to target and what cannot come back
// out. Secrets come back only as their sources (the history holds fingerprints, never values).
import { catalog, type KindCatalog } from '../resources/index.js';
import type { HistoryChange, HistoryRecord } from '../state/history.js';
import type { Ledger, SecretFingerprint } from '../state/ledger.js';
import type { DesiredResource, PlannerKinds, SecretSourceRef } from './model.js';
import type { Plan, PlannedChange } from './plan-types.js';
import { summarize } from './summary.js';

/** Kinds whose deleted object does not return at all: a released number goes back to the carrier. */
const lostKinds = new Set(['PhoneNumber']);

export interface RevertSet {
  /** The apply this reverts. */
  seq: number;
  resources: DesiredResource[];
  /** The addresses the revert changes (the plan is limited to them and what they refer to). */
  targets: string[];
  /** Objects of vetted kinds #N deleted (campaigns), which come back only as new registrations. */
  renewed: string[];
  /** What cannot come back, by address, with why. */
  lost: Array<{ address: string; reason: string }>;
  /** Deleted objects that are planned but cannot be registered again (a brand), with why: blocked, and what waits on them. */
  unrepeatable: Array<{ address: string; reason: string }>;
  /** What the revert does not do, and why (one sentence each). */
  notes: string[];
}

/**
 * `kinds` says which deleted objects return only as a new registration (a new id, a new vetting that
 * takes days): those of kinds whose registry vets their create.
 */
export function revertSet(
  record: HistoryRecord & { type: 'apply' },
  ledger: Ledger,
  kinds: KindCatalog = catalog,
): RevertSet {
  const wanted = new Map<string, DesiredResource>();
  for (const [address, entry] of Object.entries(ledger.resources)) {
    wanted.set(address, {
      kind: entry.kind,
      name: entry.name,
      address,
      protect: entry.protect === true,
      spec: { ...entry.applied_spec },
      secretSources: sourcesOf(entry.secrets),
    });
  }
  const set: RevertSet = {
    seq: record.seq,
    resources: [],
    targets: [],
    renewed: [],
    lost: [],
    unrepeatable: [],
    notes: [],
  };
  for (const change of record.changes) {
    if (change.result !== 'done') {
      if (change.action !== 'wait' && change.action !== 'blocked')
        set.notes.push(
          `${change.address}: apply #${record.seq} did not make its ${change.action} (${change.result}), so there is nothing to put back`,
        );
      continue;
    }
    secretNote(change, record.seq, set);
    const managed = wanted.get(change.address);
    switch (change.action) {
      case 'create':
        if (!managed) {
          set.notes.push(
            `${change.address}: created by apply #${record.seq}, no longer in the state; nothing to delete`,
          );
          continue;
        }
        wanted.delete(change.address);
        set.targets.push(change.address);
        break;
      case 'update':
      case 'replace':
        if (!managed || !change.before) {
          set.notes.push(
            `${change.address}: changed by apply #${record.seq}, no longer in the state; it is left as it is`,
          );
          continue;
        }
        wanted.set(change.address, { ...managed, spec: { ...change.before } });
        set.targets.push(change.address);
        break;
      case 'delete': {
        if (lostKinds.has(change.kind)) {
          set.lost.push({
            address: change.address,
            reason: `released by apply #${record.seq}: a released number goes back to the carrier and cannot be brought back (ordering one is not reverting)`,
          });
          continue;
        }
        if (managed || !change.before) {
          if (!change.before)
            set.notes.push(
              `${change.address}: deleted by apply #${record.seq}, which had no spec of it (it was already gone); nothing to create`,
            );
          continue;
        }
        const [kind = change.kind, ...rest] = change.address.split('/');
        wanted.set(change.address, {
          kind,
          name: rest.join('/'),
          address: change.address,
          protect: false,
          spec: { ...change.before },
          secretSources: sourcesOf(change.secrets_before ?? {}),
        });
        const registry = kinds.get(change.kind)?.registry;
        const refusal = registry?.registersOnce?.(change.before);
        if (refusal)
          set.unrepeatable.push({ address: change.address, reason: `deleted by apply #${record.seq}: ${refusal}` });
        else if (registry?.vetted === true) set.renewed.push(change.address);
        set.targets.push(change.address);
        break;
      }
      default:
        // An adoption changed nothing in the account: the object stays as it is, and managed.
        if (change.action === 'adopt')
          set.notes.push(`${change.address}: adopted by apply #${record.seq} without a change; it stays managed`);
    }
  }
  set.resources = [...wanted.values()];
  set.targets.sort();
  return set;
}

/**
 * The plan of a revert, made honest: a campaign created again is marked irreversible (a new
 * registration, refused without `--allow-irreversible`) and priced at the vetting review its kind
 * declares (`billableUpdateUsd`: 15 USD, so the plan needs `--max-cost`); a brand that cannot be
 * registered again, and what waits on it, and what cannot come back at all are blocked changes. The
 * plan remembers the apply it reverts, so applying it saved is recorded as such.
 */
export function markRevertPlan(plan: Plan, set: RevertSet, kinds: PlannerKinds): Plan {
  const renewed = new Set(set.renewed);
  const unrepeatable = new Map(set.unrepeatable.map(({ address, reason }) => [address, reason]));
  const blockedBy = new Map<string, string>();
  const changes: PlannedChange[] = [];
  // In execution order: what a change depends on is decided before it.
  for (const change of plan.changes) {
    const reason = unrepeatable.get(change.address);
    const waitsOn = change.depends_on.find((address) => blockedBy.has(address));
    if ((reason || waitsOn) && (change.action === 'create' || change.action === 'wait')) {
      blockedBy.set(change.address, change.address);
      changes.push(
        blockedChange(
          change,
          reason ?? `it is registered under ${waitsOn}, which cannot come back: it cannot come back either`,
        ),
      );
      continue;
    }
    if (!renewed.has(change.address) || (change.action !== 'create' && change.action !== 'wait')) {
      changes.push(change);
      continue;
    }
    // Registering it again submits it to the registry's vetting review, which the account paid for
    // once and lost with the delete: the same review an update buys, at the price the kind declares.
    const fee = kinds.get(change.kind)?.live.billableUpdateUsd ?? 0;
    changes.push({
      ...change,
      flags: { ...change.flags, irreversible: true, billable_usd: fee },
      reasons: [
        ...change.reasons,
        `apply #${set.seq} deleted it: it returns only as a new registration (a new id, a new vetting that can take days), never as the one that was deleted`,
        ...(fee > 0 ? [`registering it again submits it to the registry's vetting review: ${fee} USD`] : []),
      ],
    });
  }
  for (const { address, reason } of set.lost) {
    const [kind = '', ...rest] = address.split('/');
    changes.push({
      action: 'blocked',
      address,
      kind,
      name: rest.join('/'),
      reasons: [reason],
      flags: { billable_usd: 0, irreversible: false, breaks_auth: false, breaks_calls: false, needs_unassign: false },
      patch: [],
      depends_on: [],
      api_requests: 0,
    });
  }
  return {
    ...plan,
    changes,
    summary: summarize(changes, plan.summary.api_reads ?? 0),
    reverts: set.seq,
    // The targets are the revert's own: say what it covers in its words, not as a `--target` the user gave.
    warnings: [
      `revert of apply #${set.seq}: this plan covers only what that apply changed (${set.targets.join(', ') || 'nothing left to put back'}) and what it depends on; the rest of the account is left as it is`,
      ...plan.warnings.filter((warning) => !warning.startsWith('--target: ')),
      ...set.notes,
    ],
  };
}

/** A create that cannot be made, as a blocked change: nothing sent, nothing billed. */
function blockedChange(change: PlannedChange & { action: 'create' | 'wait' }, reason: string): PlannedChange {
  return {
    ...change,
    action: 'blocked',
    reasons: [...change.reasons.filter((why) => !why.startsWith('waits for ')), reason],
    flags: { ...change.flags, billable_usd: 0, irreversible: false },
    api_requests: 0,
  };
}

/** The sources of the secrets as the ledger records them; a literal has no place to read it again. */
function sourcesOf(secrets: Record<string, SecretFingerprint>): Record<string, SecretSourceRef> {
  const sources: Record<string, SecretSourceRef> = {};
  for (const [field, fingerprint] of Object.entries(secrets))
    if (fingerprint.source && !('literal' in fingerprint.source)) sources[field] = fingerprint.source;
  return sources;
}

function secretNote(change: HistoryChange, seq: number, set: RevertSet): void {
  const before = change.secrets_before ?? {};
  const after = change.secrets_after ?? {};
  for (const field of Object.keys(before)) {
    if (after[field] && after[field].hmac !== before[field]?.hmac) {
      set.notes.push(
        `${change.address}: apply #${seq} changed its ${field}; the history keeps only fingerprints, so the earlier value comes back only if its source holds it again`,
      );
    }
  }
}
