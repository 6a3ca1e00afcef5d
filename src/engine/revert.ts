// `telform revert N`: the desired resources that put back what apply #N changed, for the planner to
// plan against the account as it is now (docs/state-and-safety.md, history). The base is the state:
// every resource it manages is wanted as last applied, except those apply #N touched — an update or
// replace wants its spec from before #N, a create is deleted, a delete is created again (a detached
// number attached again). Pure: the history record and the ledger in, the resources, the addresses to
// target and what cannot come back out. Secrets come back only as their sources (the history holds fingerprints, never values).
import { catalog, type KindCatalog } from '../resources/index.js';
import type { HistoryChange, HistoryRecord } from '../state/history.js';
import type { Ledger, SecretFingerprint } from '../state/ledger.js';
import type { DesiredResource, PlannerKinds, SecretSourceRef } from './model.js';
import type { Plan, PlannedChange } from './plan-types.js';
import { desiredSpecOf, liveIdOf, liveSpecOf } from './change-fields.js';
import { orphanForgottenReason, orphanReason } from './planner.js';
import { summarize } from './summary.js';
import { stableJson } from '../util/stable-json.js';

export interface RevertSet {
  /** The apply this reverts. */
  seq: number;
  resources: DesiredResource[];
  /** The addresses the revert changes (the plan is limited to them and what they refer to). */
  targets: string[];
  /** Objects of vetted kinds #N deleted (campaigns), which come back only as new registrations. */
  renewed: string[];
  /**
   * Deleted by #N but still in the account (a number: telform detaches it, never releases it): the
   * revert attaches it again as it was.
   */
  reattached: string[];
  /** Deleted objects that are planned but cannot be registered again (a brand), with why: blocked, and what waits on them. */
  unrepeatable: Array<{ address: string; reason: string }>;
  /** Resources whose put-back cannot be sent (a reference to what a later apply deleted), with why: blocked. */
  blocked: Array<{ address: string; reason: string }>;
  /** What the revert does not do, and why (one sentence each). */
  notes: string[];
  /** Per resource updated back: the fields put back to their values before #N. */
  putBack: Map<string, string[]>;
  /**
   * Fields #N changed that a later apply changed again: put back only when each of those applies is
   * given (`--over N2`); otherwise the revert is refused, naming them.
   */
  conflicts: RevertConflict[];
  /** The later applies the user let the revert take fields back from (`--over`). */
  over: number[];
}

interface RevertConflict {
  address: string;
  field: string;
  /** The later applies that changed the field again, oldest first. */
  later: number[];
  /** Every one of them was given with `--over`: the field is put back anyway. */
  taken: boolean;
}

interface RevertOptions {
  /** The history's records after #N (any order): their changes to the same fields are conflicts. */
  later?: readonly HistoryRecord[];
  /** `--over N2`: later applies whose changes the revert may take back. */
  over?: readonly number[];
  kinds?: KindCatalog;
}

/** The top-level fields a change set to another value: those of its spec after that differ from before. */
function changedFields(change: Pick<HistoryChange, 'before' | 'after'>): string[] {
  const before = change.before ?? {};
  const after = change.after ?? {};
  return Object.keys(after)
    .filter((field) => stableJson(before[field]) !== stableJson(after[field]))
    .sort();
}

/**
 * `kinds` says which deleted objects return only as a new registration (a new id, a new vetting that
 * takes days): those of kinds whose registry vets their create.
 */
export function revertSet(
  record: HistoryRecord & { type: 'apply' },
  ledger: Ledger,
  options: RevertOptions = {},
): RevertSet {
  const kinds = options.kinds ?? catalog;
  const over = [...new Set(options.over ?? [])].sort((a, b) => a - b);
  const laterRecords = (options.later ?? []).filter((later) => later.seq > record.seq).sort((a, b) => a.seq - b.seq);
  /**
   * A resource of apply #N through the records after it: its address now, renames followed
   * (`metadata.moved_from`, `state mv`; undefined once `state rm` forgot it), and the changes later
   * applies made to it.
   */
  const follow = (address: string) => {
    let now: string | undefined = address;
    const changes: Array<{ seq: number; change: HistoryChange }> = [];
    for (const later of laterRecords) {
      if (now === undefined) break;
      if (later.type === 'apply') {
        for (const change of later.changes) {
          // A move is in the state before any request is sent, whatever came of the change.
          if (change.moved_from === now) now = change.address;
          if (change.address === now && change.result === 'done') changes.push({ seq: later.seq, change });
        }
      } else if (later.type === 'state_edit') {
        for (const edit of later.edits) if (edit.address === now) now = edit.removed ? undefined : (edit.to ?? now);
      }
    }
    return { now, changes };
  };
  const laterChanges = (address: string) => follow(address).changes;
  /**
   * `value` as it can be put back in `field`: a `{ ref }` to a resource renamed since names it by its
   * name now; one to a resource the state no longer has cannot be put back (`blocked`, with why).
   */
  const putBackValue = (kind: string, field: string, value: unknown): { value: unknown } | { blocked: string } => {
    const targetKind = (kinds.get(kind)?.references as Readonly<Record<string, string>> | undefined)?.[field];
    if (!targetKind || typeof value !== 'object' || value === null || !('ref' in value)) return { value };
    const target = `${targetKind}/${String(value.ref)}`;
    const { now, changes } = follow(target);
    if (now !== undefined && wanted.has(now))
      return { value: now === target ? value : { ...value, ref: now.slice(targetKind.length + 1) } };
    const deleted = changes.find((later) => later.change.action === 'delete');
    return {
      blocked: deleted
        ? `${field}: its value before #${record.seq} refers to ${target}, which apply #${deleted.seq} deleted; revert #${deleted.seq} first (it creates ${target} again), then this one`
        : `${field}: its value before #${record.seq} refers to ${target}, which the state no longer has`,
    };
  };
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
    reattached: [],
    blocked: [],
    unrepeatable: [],
    notes: [],
    putBack: new Map(),
    conflicts: [],
    over,
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
    // What #N made or changed is acted on where the state holds it now.
    const followed = follow(change.address);
    const address = change.action === 'delete' ? change.address : followed.now;
    if (address !== undefined && address !== change.address)
      set.notes.push(`${change.address}: renamed ${address} since apply #${record.seq}; the revert follows it`);
    const managed = address === undefined ? undefined : wanted.get(address);
    if (change.moved_from)
      set.notes.push(
        `${change.address}: renamed from ${change.moved_from} by apply #${record.seq}, in the state only; telform state mv ${address ?? change.address} ${change.moved_from} renames it back`,
      );
    switch (change.action) {
      case 'create':
        if (!managed || address === undefined) {
          set.notes.push(
            `${change.address}: created by apply #${record.seq}, no longer in the state; nothing to delete`,
          );
          continue;
        }
        for (const later of followed.changes)
          if (later.change.action === 'update' || later.change.action === 'replace')
            for (const field of changedFields(later.change)) {
              // Deleting it takes back what later applies set on it too.
              const taken = over.includes(later.seq);
              const known = set.conflicts.find((conflict) => conflict.address === address && conflict.field === field);
              if (known) {
                known.later.push(later.seq);
                known.taken &&= taken;
              } else set.conflicts.push({ address, field, later: [later.seq], taken });
            }
        if (set.conflicts.some((conflict) => conflict.address === address && !conflict.taken)) continue;
        wanted.delete(address);
        set.targets.push(address);
        break;
      case 'update':
      case 'replace': {
        if (!managed || !change.before || address === undefined) {
          const gone = followed.changes.find((later) => later.change.action === 'delete');
          set.notes.push(
            gone
              ? `${change.address}: changed by apply #${record.seq}, then deleted by apply #${gone.seq}; it is not brought back (revert #${gone.seq} does that)`
              : `${change.address}: changed by apply #${record.seq}, no longer in the state; it is left as it is`,
          );
          continue;
        }
        // Field by field: only what #N changed goes back, and only where no later apply changed it again.
        const before = change.before;
        const spec = { ...managed.spec };
        const fields: string[] = [];
        const later = followed.changes;
        for (const field of changedFields(change)) {
          const changedAgain = later.filter(
            (next) =>
              (next.change.action === 'update' || next.change.action === 'replace') &&
              changedFields(next.change).includes(field),
          );
          const again = changedAgain.map((next) => next.seq);
          // The last of them already set it back to what it was before #N (a revert of #N): no conflict.
          const settledBack = stableJson(changedAgain.at(-1)?.change.after?.[field]) === stableJson(before[field]);
          if (again.length > 0 && !settledBack) {
            const taken = again.every((seq) => over.includes(seq));
            set.conflicts.push({ address, field, later: again, taken });
            if (!taken) continue;
          }
          const back = putBackValue(change.kind, field, before[field]);
          if ('blocked' in back) {
            // Sent, it would fail at apply: the plan says so instead, and sends nothing for the resource.
            set.blocked.push({ address, reason: back.blocked });
            continue;
          }
          if (field in before) spec[field] = back.value;
          else delete spec[field];
          fields.push(field);
        }
        set.putBack.set(address, fields);
        wanted.set(address, { ...managed, spec });
        set.targets.push(address);
        break;
      }
      case 'delete': {
        if (managed || !change.before) {
          if (managed) {
            const again = laterChanges(change.address).find((later) => later.change.action === 'create');
            set.notes.push(
              `${change.address}: deleted by apply #${record.seq}, and managed again${again ? ` since apply #${again.seq} created it` : ''}; it is left as it is`,
            );
          }
          if (!change.before)
            set.notes.push(
              `${change.address}: deleted by apply #${record.seq}, which had no spec of it (it was already gone); nothing to create`,
            );
          continue;
        }
        // Its references as they are now: to what was renamed since by its name now; one to what is gone blocks it.
        const spec = { ...change.before };
        for (const field of Object.keys(spec)) {
          const back = putBackValue(change.kind, field, spec[field]);
          if ('blocked' in back) set.blocked.push({ address: change.address, reason: back.blocked });
          else spec[field] = back.value;
        }
        const [kind = change.kind, ...rest] = change.address.split('/');
        wanted.set(change.address, {
          kind,
          name: rest.join('/'),
          address: change.address,
          protect: false,
          spec,
          secretSources: sourcesOf(change.secrets_before ?? {}),
        });
        // A kind telform never creates (a number) was only detached: it is attached again as it was.
        if (kinds.get(change.kind)?.live.absentError) set.reattached.push(change.address);
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
 * registered again, and what waits on it, are blocked changes, and so is what an object that stays needs. The
 * plan remembers the apply it reverts, so applying it saved is recorded as such.
 */
export function markRevertPlan(plan: Plan, set: RevertSet, kinds: PlannerKinds): Plan {
  const renewed = new Set(set.renewed);
  const unrepeatable = new Map(set.unrepeatable.map(({ address, reason }) => [address, reason]));
  const blockedBy = new Map<string, string>();
  const changes: PlannedChange[] = [];
  // A revert reads no manifests: what it deletes goes because apply #N created it.
  const ownReasons: Readonly<Record<string, string>> = {
    [orphanReason]: `created by apply #${set.seq}; the revert deletes it`,
    [orphanForgottenReason]: `created by apply #${set.seq}, and already gone from the account; it is only forgotten`,
  };
  const reworded = plan.changes.map((change) => ({
    ...change,
    reasons: change.reasons.map((reason) => ownReasons[reason] ?? reason),
  }));
  // In execution order: what a change depends on is decided before it.
  for (const change of reworded) {
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
  for (const address of new Set(set.blocked.map((blocked) => blocked.address))) {
    const index = changes.findIndex((change) => change.address === address);
    const change = changes[index];
    if (!change || change.action === 'blocked') continue;
    changes[index] = {
      ...change,
      action: 'blocked',
      reasons: set.blocked.filter((blocked) => blocked.address === address).map((blocked) => blocked.reason),
      flags: { ...change.flags, irreversible: false, billable_usd: 0 },
      api_requests: 0,
    } as PlannedChange;
  }
  keepWhatStaysNeeds(changes, kinds);
  return {
    ...plan,
    changes,
    summary: summarize(changes, plan.summary.api_reads ?? 0),
    reverts: set.seq,
    ...(set.over.length > 0 ? { reverts_over: set.over } : {}),
    // The targets are the revert's own: say what it covers in its words, not as a `--target` the user gave.
    warnings: [
      ...revertCoverage(set, changes),
      ...plan.warnings.filter((warning) => !warning.startsWith('--target: ')),
      ...set.notes,
    ],
  };
}

/**
 * What the plan of a revert covers, exactly: the fields it puts back, what it deletes and creates
 * again, the conflicts (refused, or taken with `--over`), and whatever else the plan changes that #N
 * did not (what the put-back refers to, fields changed outside telform since).
 */
function revertCoverage(set: RevertSet, changes: readonly PlannedChange[]): string[] {
  const seq = set.seq;
  const parts: string[] = [];
  const fieldsOf = (address: string) => set.putBack.get(address) ?? [];
  const byAction = (action: string) => changes.filter((change) => change.action === action);
  const putBack = [...set.putBack].filter(([, fields]) => fields.length > 0);
  if (putBack.length > 0)
    parts.push(
      `puts back ${putBack.map(([address, fields]) => `${address} ${fields.join(', ')}`).join('; ')} to the values before #${seq}`,
    );
  const targets = new Set(set.targets);
  const deletes = byAction('delete').filter((change) => targets.has(change.address));
  if (deletes.length > 0)
    parts.push(`deletes what #${seq} created: ${deletes.map((change) => change.address).join(', ')}`);
  const creates = changes.filter(
    (change) => (change.action === 'create' || change.action === 'wait') && targets.has(change.address),
  );
  if (creates.length > 0)
    parts.push(`creates again what #${seq} deleted: ${creates.map((change) => change.address).join(', ')}`);
  const reattached = changes.filter(
    (change) => set.reattached.includes(change.address) && change.action !== 'noop' && change.action !== 'blocked',
  );
  if (reattached.length > 0)
    parts.push(
      `attaches again what #${seq} detached (telform never releases a number): ${reattached.map((change) => change.address).join(', ')}`,
    );
  const lines = [`revert of apply #${seq}: this plan ${parts.length > 0 ? parts.join('; ') : 'puts nothing back'}`];
  // Fields the plan changes on a put-back resource that #N did not: the resource drifted since.
  for (const change of changes) {
    if (change.action !== 'update' || !set.putBack.has(change.address)) continue;
    const own = new Set(fieldsOf(change.address));
    const extra = [
      ...new Set(change.patch.map((operation) => operation.path.split('/')[1] ?? '').filter((field) => field !== '')),
    ].filter((field) => !own.has(field));
    if (extra.length > 0)
      lines.push(
        `${change.address}: the plan also sets ${extra.join(', ')} back to what telform last applied (changed outside telform since; apply #${seq} did not change ${extra.length === 1 ? 'it' : 'them'})`,
      );
  }
  const others = changes.filter(
    (change) => !targets.has(change.address) && change.action !== 'noop' && change.action !== 'blocked',
  );
  if (others.length > 0)
    lines.push(
      `the plan also changes what the put-back refers to: ${others.map((change) => `${change.address} (${change.action})`).join(', ')}`,
    );
  for (const conflict of set.conflicts) {
    const applies = conflict.later.map((later) => `#${later}`).join(' and ');
    lines.push(
      conflict.taken
        ? `--over ${conflict.later.join(' --over ')}: ${conflict.address} ${conflict.field} is put back although apply ${applies} changed it again`
        : `conflict: ${conflict.address} ${conflict.field} was changed again by apply ${applies}; it is not put back, and the revert is refused (--over ${conflict.later.join(' --over ')} puts it back anyway)`,
    );
  }
  if (lines.length === 1 && set.conflicts.length === 0) lines[0] += '; nothing else in the account changes';
  return lines;
}

/**
 * A revert's delete of what an object that stays refers to (its own delete blocked: a brand whose
 * campaigns the revert does not delete) is blocked too: the profile a brand is registered from is not
 * taken from under it. In place, until nothing more is blocked (what stays may keep more).
 */
function keepWhatStaysNeeds(changes: PlannedChange[], kinds: PlannerKinds): void {
  for (let changed = true; changed;) {
    changed = false;
    const staying = changes.filter((change) => change.action === 'blocked' && liveIdOf(change) !== undefined);
    for (const [index, change] of changes.entries()) {
      if (change.action !== 'delete') continue;
      const holder = staying.find((kept) => refersTo(kept, change, kinds));
      if (!holder) continue;
      changes[index] = {
        ...change,
        action: 'blocked',
        reasons: [
          `${holder.address} stays (its delete is blocked) and refers to it: it is not deleted from under ${holder.address}`,
        ],
        flags: { ...change.flags, irreversible: false, billable_usd: 0 },
        api_requests: 0,
      };
      changed = true;
    }
  }
}

/** Whether `holder`'s live spec refers to `target` (by `{ ref }` to its name, or by its id). */
function refersTo(holder: PlannedChange, target: PlannedChange, kinds: PlannerKinds): boolean {
  const spec = liveSpecOf(holder) ?? desiredSpecOf(holder) ?? {};
  const id = liveIdOf(target);
  return (kinds.get(holder.kind)?.references ?? []).some(({ field, target: kind }) => {
    if (kind !== target.kind) return false;
    const value = spec[field];
    if (typeof value === 'object' && value !== null && 'ref' in value) return value.ref === target.name;
    return id !== undefined && value === id;
  });
}

/** The refusal of a revert whose conflicts were not all taken with `--over`, or undefined. */
export function conflictRefusal(set: RevertSet): string | undefined {
  const open = set.conflicts.filter((conflict) => !conflict.taken);
  if (open.length === 0) return undefined;
  const later = [...new Set(open.flatMap((conflict) => conflict.later))].sort((a, b) => a - b);
  return `the revert of apply #${set.seq} is refused: ${open
    .map(
      (conflict) =>
        `${conflict.address} ${conflict.field} was changed again by apply ${conflict.later.map((seq) => `#${seq}`).join(' and ')}`,
    )
    .join(
      '; ',
    )}; put ${open.length === 1 ? 'it' : 'them'} back anyway with ${later.map((seq) => `--over ${seq}`).join(' ')}`;
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
