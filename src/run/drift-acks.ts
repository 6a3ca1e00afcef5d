// Drift acknowledged by a person, for a while (docs/approvals.md): an acknowledgement names the
// resource, a fingerprint of the drift it saw (the live fields), a reason and when it ends, signed
// like an approval and appended to the state's history. `drift` reports acknowledged drift apart and
// exits 0 for it until the acknowledgement ends or the live object drifts further (its fingerprint
// changes); serve leaves it alone meanwhile.
import { createHash } from 'node:crypto';
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import type { DriftReport } from '../render/drift-schema.js';
import { parseHistory, type HistoryRecord } from '../state/history.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { stableJson } from '../util/stable-json.js';

/** What an acknowledgement pins: the action and the live spec the drift left (secrets are never in it). */
export function driftFingerprint(change: PlannedChange): string {
  const before = 'before' in change ? change.before : undefined;
  const patch = 'patch' in change ? change.patch : undefined;
  return createHash('sha256')
    .update(stableJson({ action: change.action, before: before ?? null, patch: patch ?? [] }))
    .digest('hex');
}

type AckRecord = Extract<HistoryRecord, { type: 'drift_ack' }>;

/** The acknowledgements of the state's history, newest last. */
export async function readAcknowledgements(store: LedgerStore): Promise<AckRecord[]> {
  return parseHistory(await store.readHistory()).filter((record): record is AckRecord => record.type === 'drift_ack');
}

/**
 * The report with the drift an acknowledgement still covers (same fingerprint, not ended at `nowMs`)
 * moved from `drifted` to `acknowledged`, and its status counted again.
 */
export function withAcknowledgements(
  report: DriftReport,
  plan: Plan,
  acks: readonly AckRecord[],
  nowMs: number,
): DriftReport {
  if (acks.length === 0 || report.drifted.length === 0) return report;
  const byAddress = new Map(plan.changes.map((change) => [change.address, change]));
  const acknowledged: NonNullable<DriftReport['acknowledged']> = [];
  const drifted: string[] = [];
  for (const address of report.drifted) {
    const change = byAddress.get(address);
    const fingerprint = change ? driftFingerprint(change) : undefined;
    const ack = [...acks]
      .reverse()
      .find(
        (item) =>
          item.ack.address === address && item.ack.fingerprint === fingerprint && Date.parse(item.ack.until) > nowMs,
      );
    if (ack)
      acknowledged.push({ address, by: ack.ack.person, reason: ack.ack.reason, until: ack.ack.until, seq: ack.seq });
    else drifted.push(address);
  }
  if (acknowledged.length === 0) return report;
  const status = drifted.length > 0 ? 'drifted' : report.pending.length > 0 ? 'pending' : 'in_sync';
  return { ...report, status, drifted, acknowledged };
}
