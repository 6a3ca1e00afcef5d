// Since when a change made outside telform can have happened (docs/state-and-safety.md, history):
// the newest moment the state's history knows the resource matched — the apply that last wrote it,
// or a check by serve that saw it in sync — up to the check that saw it changed. serve, which checks
// at every interval, narrows the window to one interval and records it when it first sees the change.
import { describeOrigin, shortTime } from '../render/history.js';
import { parseHistory, type HistoryRecord } from '../state/history.js';
import type { Reconciliation } from './reconcile.js';

export interface DriftWindow {
  address: string;
  /** The apply after which it matched (the newest that wrote it), when the history holds one. */
  apply?: HistoryRecord & { type: 'apply' };
  /** A later check that saw it in sync (serve's), ISO 8601. */
  checkedInSync?: string;
  /** serve's record of the change: when it was first seen, and since when (its previous check). */
  seen?: { at: string; since?: string };
  /** The check that saw it changed (now, for `drift`), ISO 8601. */
  checkedAt: string;
}

/** The window of each drifted address of a drift run, from its state's history as stored now. */
export async function driftWindowsOf(
  run: Reconciliation,
  drifted: readonly string[],
  checkedAt: string,
): Promise<DriftWindow[]> {
  return driftWindows(drifted, parseHistory(await run.store.readHistory()), checkedAt);
}

/** The window of each drifted address, from the history's records (oldest first, as stored). */
function driftWindows(
  addresses: readonly string[],
  records: readonly HistoryRecord[],
  checkedAt: string,
): DriftWindow[] {
  return addresses.map((address) => {
    const window: DriftWindow = { address, checkedAt };
    for (let index = records.length - 1; index >= 0; index -= 1) {
      const record = records[index] as HistoryRecord;
      if (
        record.type === 'apply' &&
        record.changes.some((change) => change.address === address && change.result === 'done')
      ) {
        window.apply = record;
        break;
      }
      if (record.type === 'drift' && !window.seen) {
        const item = record.drifted.find((drifted) => drifted.address === address);
        if (item) window.seen = { at: record.at, ...(item.since ? { since: item.since } : {}) };
      }
    }
    return window;
  });
}

/** `in sync at apply #41 (2026-11-20 10:02 UTC, commit 3f2a9c1, …); changed before the check at 10:40 UTC` */
export function describeWindow(window: DriftWindow): string {
  const from = window.seen ? (window.seen.since ?? window.apply?.at) : window.apply?.at;
  const to = window.seen ? window.seen.at : window.checkedAt;
  // Minutes are what a reader compares; a window within one minute (serve checking every few seconds) is told in seconds.
  const time = (at: string) =>
    from !== undefined && shortTime(from) === shortTime(to)
      ? `${at.slice(0, 10)} ${at.slice(11, 19)} UTC`
      : shortTime(at);
  const applied = window.apply
    ? `apply #${window.apply.seq} (${[time(window.apply.at), describeOrigin(window.apply.origin)].filter(Boolean).join(', ')})`
    : undefined;
  if (window.seen) {
    // serve saw it first: the change lies between its two checks.
    const since = window.seen.since
      ? `in sync at the check at ${time(window.seen.since)}`
      : applied
        ? `in sync at ${applied}`
        : 'no earlier check or apply of it in the history';
    return `${window.address}: ${since}; changed before the check at ${time(window.seen.at)} (seen by serve)`;
  }
  const since = applied
    ? `in sync at ${applied}`
    : 'no apply of it in the history (it may predate the history, or its records were dropped by retention)';
  return `${window.address}: ${since}; changed before the check at ${time(window.checkedAt)}`;
}
