// The history record of an apply (docs/state-and-safety.md, history): what the plan was (digest,
// seal, approvals), where the run came from, and per changed resource its action, the live spec
// before and the spec after, its secrets' fingerprints before and after (never a value), the
// requests and fees it took and what came of it. Written after the ledger, so it names the serial.
import { createHash } from 'node:crypto';
import type { ApplyResult } from '../engine/apply.js';
import { desiredSpecOf, liveIdOf, liveSpecOf } from '../engine/change-fields.js';
import type { PlannerKind } from '../engine/model.js';
import type { Plan, PlannedChange, UpdateChange } from '../engine/plan-types.js';
import { estimateRequests } from '../engine/request-estimate.js';
import type { ChangeOutcome } from '../engine/step-runner.js';
import type {
  HistoryChange,
  HistoryDraft,
  HistoryRecord,
  HistorySignoff,
  HistoryTag,
  RunOrigin,
} from '../state/history.js';
import type { LedgerEntry } from '../state/ledger.js';
import { stableJson } from '../util/stable-json.js';
import { runOrigin } from './history-origin.js';
import type { Reconciliation } from './reconcile.js';

/** The plan's digest: sha256 of its canonical JSON without the seal (which is over the same fields). */
export function planDigest(plan: Plan): string {
  const { seal: _seal, ...rest } = plan;
  return createHash('sha256').update(stableJson(rest)).digest('hex');
}

/** The manifests a run read, for asking git about them: the resources' files, else nothing known. */
export function manifestFiles(run: Reconciliation): string[] {
  return [
    ...new Set(run.desired.resources.flatMap((resource) => (resource.source ? [resource.source.file] : []))),
  ].sort();
}

/** The origin of `run`, from its environment and the manifests' folder. */
export function originOf(run: Reconciliation): Promise<RunOrigin> {
  return runOrigin(run.io.env, run.io.cwd, manifestFiles(run));
}

/** The ledger entries of the plan's addresses as they are now (copies: the apply changes them). */
export function entriesBefore(run: Reconciliation): Map<string, LedgerEntry> {
  const before = new Map<string, LedgerEntry>();
  for (const change of run.plan.changes) {
    const entry = run.store.ledger.resources[change.moved_from ?? change.address];
    if (entry) before.set(change.address, structuredClone(entry));
  }
  return before;
}

/** Appends the record of an apply that sent its plan (the ledger is compacted first). */
export async function recordApply(
  run: Reconciliation,
  result: ApplyResult,
  before: ReadonlyMap<string, LedgerEntry>,
  tag: HistoryTag,
  signoff?: HistorySignoff,
): Promise<HistoryRecord> {
  await run.store.compact();
  const changes = run.plan.changes
    // A rename alone changes the state, not the account: it is recorded too (as a move).
    .filter((change) => change.action !== 'noop' || change.moved_from !== undefined)
    .map((change) =>
      historyChange(
        change,
        result,
        before.get(change.address),
        run.store.ledger.resources[change.address],
        run.kinds.get(change.kind),
      ),
    );
  const done = changes.filter((change) => change.result === 'done').length;
  const draft: HistoryDraft = {
    type: 'apply',
    trigger: tag.trigger,
    origin: await originOf(run),
    plan: {
      digest: planDigest(run.plan),
      created_at: run.plan.created_at,
      ...(run.plan.seal ? { seal: `${run.plan.seal.key_id}:${run.plan.seal.value}` } : {}),
    },
    approvals: { ...run.approvals },
    changes,
    requests: changes.reduce((sum, change) => sum + change.requests, 0),
    fees_usd: changes.reduce((sum, change) => sum + (change.result === 'done' ? change.fees_usd : 0), 0),
    result:
      done === changes.length
        ? 'applied'
        : done === 0 && changes.some((change) => change.result === 'failed')
          ? 'failed'
          : 'partial',
    ...(tag.reverts === undefined ? {} : { reverts: tag.reverts }),
    ...(tag.over && tag.over.length > 0 ? { over: [...tag.over] } : {}),
    ...(tag.wave ? { wave: tag.wave } : {}),
    ...(tag.finishes === undefined ? {} : { finishes: tag.finishes }),
    ...(signoff ? { signoff } : {}),
  };
  return run.store.appendHistory(draft);
}

/**
 * The action a change is recorded as: what it did. A `wait` that went on (`apply --wait`, the registry
 * approved what it waited for) created the object, or updated it when it existed (a number linked):
 * recorded as that, with that write's requests, so `history` shows it and `revert` undoes it.
 */
function recordedAction(
  change: PlannedChange,
  outcome: ChangeOutcome | undefined,
  kind: PlannerKind | undefined,
): { action: string; requests: number } {
  // The move is in the state before any request is sent (engine/apply-moves.ts).
  if (change.action === 'noop') return { action: 'move', requests: 0 };
  if (change.action !== 'wait' || outcome?.status !== 'done')
    return { action: change.action, requests: change.api_requests };
  if (!change.id) return { action: 'create', requests: 1 };
  const update: UpdateChange = {
    ...change,
    action: 'update',
    id: change.id,
    before: change.before ?? {},
    after: change.after ?? {},
  };
  return { action: 'update', requests: kind ? estimateRequests(update, kind) : 1 };
}

function historyChange(
  change: PlannedChange,
  result: ApplyResult,
  before: LedgerEntry | undefined,
  after: LedgerEntry | undefined,
  kind: PlannerKind | undefined,
): HistoryChange {
  const outcome = result.outcomes.get(change.address);
  const recorded = recordedAction(change, outcome, kind);
  const secretFields = new Set([
    ...Object.keys(change.secret_sources ?? {}),
    ...Object.keys(before?.secrets ?? {}),
    ...Object.keys(after?.secrets ?? {}),
  ]);
  const id = liveIdOf(change) ?? (outcome?.status === 'done' ? outcome.id : undefined) ?? after?.id;
  // A wait that created its object had none before it (the plan's `before` of a create is empty).
  const liveBefore = recorded.action === 'create' ? undefined : liveSpecOf(change);
  const desired = change.action === 'delete' ? undefined : desiredSpecOf(change);
  return {
    address: change.address,
    kind: change.kind,
    action: recorded.action,
    ...(change.moved_from ? { moved_from: change.moved_from } : {}),
    ...(id ? { id } : {}),
    ...(liveBefore ? { before: withoutSecrets(liveBefore, secretFields) } : {}),
    ...(desired ? { after: withoutSecrets(desired, secretFields) } : {}),
    ...(before && Object.keys(before.secrets).length > 0 ? { secrets_before: before.secrets } : {}),
    ...(after && Object.keys(after.secrets).length > 0 ? { secrets_after: after.secrets } : {}),
    requests: recorded.requests,
    fees_usd: change.flags.billable_usd,
    ...(change.flags.irreversible ? { irreversible: true as const } : {}),
    result: outcome?.status ?? (recorded.action === 'move' ? 'done' : 'skipped'),
    ...(outcome && outcome.status === 'failed' ? { error: outcome.error } : {}),
  };
}

/** A spec without its write-only fields: specs never hold them, and a history must not either. */
function withoutSecrets(spec: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(spec)) if (!fields.has(field)) kept[field] = value;
  return kept;
}
