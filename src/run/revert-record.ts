// The record a revert is made from (`telform revert N`, and a saved revert applied): apply #N as the
// state's history holds it, refused when the history does not verify, and what reverting it wants
// (engine/revert.ts) given the ledger and the later applies.
import { revertSet, type RevertSet } from '../engine/revert.js';
import { parseHistory, untrustedRecord, type HistoryRecord } from '../state/history.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { openState } from './state-location.js';

/** Apply #`seq` as the history holds it, and what reverting it wants. */
export async function revertOf(
  seq: number,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
  over: readonly number[] = [],
): Promise<{ record: HistoryRecord & { type: 'apply' }; set: RevertSet }> {
  const store = await openState(globals, context.io.env, { lock: false, notify: context.io.stderr });
  try {
    const lines = await store.readHistory();
    const records = parseHistory(lines);
    const record = records.find((candidate) => candidate.seq === seq);
    if (!record) {
      const held =
        records.length === 0
          ? 'it holds no records'
          : `it holds #${records[0]?.seq} to #${records[records.length - 1]?.seq}`;
      throw new TelformError(
        'history_unknown',
        `the history of ${store.file} has no record #${seq} (${held}); see telform history`,
      );
    }
    const untrusted = untrustedRecord(lines, { head: store.ledger.history_head, serial: store.ledger.serial }, seq);
    if (untrusted !== undefined)
      throw new TelformError(
        'history_broken',
        `apply #${seq} cannot be reverted: the history of ${store.file} does not verify (${untrusted}), so what the record says is not known to be what was applied; restore the history from a backup, or revert by hand (telform history shows what it changed)`,
      );
    if (record.type !== 'apply')
      throw new TelformError(
        'history_unknown',
        `record #${seq} of ${store.file} is not an apply (it is a ${record.type.replace('_', ' ')}); only an apply can be reverted`,
      );
    if (record.changes.every((change) => change.result !== 'done'))
      throw new TelformError(
        'history_unknown',
        `apply #${seq} of ${store.file} changed nothing (every change failed or was skipped): there is nothing to revert`,
      );
    const newest = records[records.length - 1]?.seq ?? seq;
    const unknown = over.filter((later) => later <= seq || later > newest);
    if (unknown.length > 0)
      throw new TelformError(
        'bad_option',
        `--over ${unknown.join(', ')}: names an apply after #${seq} whose changes the revert may take back (the history holds #${seq + 1} to #${newest})`,
      );
    return {
      record,
      set: revertSet(record, store.ledger, { later: records.filter((later) => later.seq > seq), over }),
    };
  } finally {
    await store.close();
  }
}
