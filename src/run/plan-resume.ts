// A reviewed plan that partly failed is finished, not planned again (docs/approvals.md): `apply
// plan.json` after an apply of that same file stopped part-way (a 5xx, a timeout, a step the API
// refused) applies only the changes the last attempt's record shows not done. It is allowed only when
// nothing else changed the state since that attempt (its record is the history's last apply or state
// edit; settling the attempt's own open requests moves the serial, so the serial is no test), and only
// when the account did not move under the rest: every object a remaining change was planned against
// must still be as the plan saw it. A remaining change the account already holds (a write whose
// answer was lost) counts as done.
import { summarize } from '../engine/summary.js';
import type { Plan } from '../engine/plan-types.js';
import { parseHistory, type HistoryRecord } from '../state/history.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { TelformError } from '../util/errors.js';
import { staleAddresses } from './saved-plan.js';

type ApplyRecord = Extract<HistoryRecord, { type: 'apply' }>;

/** What is left of a saved plan to apply, and the record of the attempt it finishes. */
export interface ResumedPlan {
  /** The saved plan with only its remaining changes (its seal kept: the record names the same file). */
  plan: Plan;
  /** The history number of the attempt it finishes. */
  finishes: number;
  /** The saved plan as reviewed and signed: its approvals are judged against it. */
  reviewed: Plan;
}

/**
 * The remaining part of `saved` when the state moved only by an earlier attempt to apply it; undefined
 * when no attempt of this plan is the state's last write (the caller then refuses it as stale).
 * Refuses naming the objects that changed when the account moved under the remaining changes.
 */
export async function resumablePart(
  saved: Plan,
  fresh: Plan,
  store: LedgerStore,
  file: string,
): Promise<ResumedPlan | undefined> {
  // A plan made before the state's first write saw no lineage yet (an unwritten ledger gets a new one each time).
  const sameLedger = saved.basis.ledger_serial === 0 || saved.basis.ledger_lineage === fresh.basis.ledger_lineage;
  if (!saved.seal || !sameLedger) return undefined;
  const seal = `${saved.seal.key_id}:${saved.seal.value}`;
  const records = parseHistory(await store.readHistory());
  // The state's last change must be an attempt of this very plan: any other apply or edit makes it stale.
  const last = [...records].reverse().find((record) => record.type === 'apply' || record.type === 'state_edit');
  if (last?.type !== 'apply' || last.plan.seal !== seal) return undefined;
  const attempt: ApplyRecord = last;
  // Applied whole: nothing is left, and the plan is stale as any other applied plan.
  if (attempt.result === 'applied') return undefined;
  const notDone = new Set(attempt.changes.filter((change) => change.result !== 'done').map((change) => change.address));
  const freshByAddress = new Map(fresh.changes.map((change) => [change.address, change]));
  const moved = new Set(staleAddresses(saved, fresh).map((text) => text.split(' ')[0] as string));
  const remaining = saved.changes.filter((change) => notDone.has(change.address));
  const changed = remaining.filter(
    (change) => moved.has(change.address) && freshByAddress.get(change.address)?.action !== 'noop',
  );
  if (changed.length > 0) {
    const named = staleAddresses(saved, fresh).filter((text) =>
      changed.some((change) => text === change.address || text.startsWith(`${change.address} `)),
    );
    throw new TelformError(
      'plan_stale',
      `${file} was partly applied (history #${attempt.seq}), and the account changed under what is left of it since: ${named.join(', ')} changed; make a new plan`,
      { details: { changed: named, finishes: attempt.seq } },
    );
  }
  // What the account already holds as the plan wants it (its write went through, the answer was lost) is done.
  const left = remaining.filter(
    (change) => !(moved.has(change.address) && freshByAddress.get(change.address)?.action === 'noop'),
  );
  const plan: Plan = { ...saved, changes: left, summary: summarize(left, saved.summary.api_reads ?? 0) };
  return { plan, finishes: attempt.seq, reviewed: saved };
}

/** `note: plan.json was partly applied (history #3): applying the 1 of its 3 changes not done`. */
export function resumedNote(saved: { file: string; plan: Plan }, resumed: ResumedPlan): string {
  const writes = (plan: Plan) => plan.changes.filter((change) => change.action !== 'noop').length;
  return `note: ${saved.file} was partly applied (history #${resumed.finishes}): applying the ${writes(resumed.plan)} of its ${writes(saved.plan)} changes not done`;
}
