// The revert operation (`telform revert N`): apply #N's record is read from the state's history, the
// resources that put back what it changed are made from it and the ledger (engine/revert.ts), and
// they are reconciled like any manifests — the same gates, approvals, seal and saved plan. `--write`
// puts the before-values into the manifests instead, so the revert is reviewed as a pull request.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { conflictRefusal, markRevertPlan, revertSet, type RevertSet } from '../engine/revert.js';
import type { PlanApprovals } from '../engine/plan-types.js';
import { loadDesired } from '../manifest/desired.js';
import { rewriteManifest, type DocumentEdit } from '../manifest/write-back.js';
import { parseHistory, untrustedRecord, type HistoryRecord } from '../state/history.js';
import { writeAtomically } from '../util/atomic-file.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import { openState } from './state-location.js';

export interface RevertRun {
  run: Reconciliation;
  set: RevertSet;
  record: HistoryRecord & { type: 'apply' };
}

/** Reads apply #`seq` and the ledger (without the lock), then reconciles the revert (`lock`: to apply it). */
export async function reconcileRevert(
  seq: number,
  globals: GlobalOptions,
  approvals: PlanApprovals,
  context: RunContext,
  options: { lock: boolean; allowSecretFilesOutside?: boolean | undefined; over?: readonly number[] },
): Promise<RevertRun> {
  const { record, set } = await revertOf(seq, globals, context, options.over ?? []);
  const refused = set.targets.length === 0 ? conflictRefusal(set) : undefined;
  if (refused) throw new TelformError('revert_conflict', `${refused}; nothing was sent`);
  if (set.targets.length === 0) {
    // No target would mean no limit: the plan would cover the whole account, which is not this revert.
    const why = [...set.lost.map((lost) => `${lost.address}: ${lost.reason}`), ...set.notes];
    throw new TelformError(
      'history_unknown',
      `nothing that apply #${seq} changed can be put back${why.length > 0 ? `: ${why.join('; ')}` : ''}`,
    );
  }
  const run = await reconcile({ resources: set.resources }, globals, approvals, context, {
    lock: options.lock,
    allowSecretFilesOutside: options.allowSecretFilesOutside,
    targets: set.targets,
    adjust: (plan, kinds) => markRevertPlan(plan, set, kinds),
  });
  return { run, set, record };
}

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

export interface RevertWrite {
  /** `file: Kind/name field`, for each value written. */
  written: string[];
  notes: string[];
}

/**
 * `revert N --write -f MANIFESTS`: each field apply #N changed gets its value from before #N in the
 * manifest that declares it (as `drift --write` writes, every other byte kept). A resource #N created
 * or deleted is a document to remove or add by hand: said, not written.
 */
export async function writeRevertBack(
  record: HistoryRecord & { type: 'apply' },
  paths: readonly string[],
  context: Pick<RunContext, 'io'>,
): Promise<RevertWrite> {
  const { io } = context;
  const desired = await loadDesired(paths, { cwd: io.cwd, env: io.env, report: io.stderr });
  const byAddress = new Map(desired.resources.map((resource) => [resource.address, resource]));
  const byFile = new Map<string, DocumentEdit[]>();
  const notes: string[] = [];
  for (const change of record.changes) {
    if (change.result !== 'done') continue;
    const resource = byAddress.get(change.address);
    if (change.action === 'create') {
      notes.push(
        `${change.address}: created by apply #${record.seq}; remove its document${resource?.source ? ` (${resource.source.file}:${resource.source.line})` : ''} to delete it`,
      );
      continue;
    }
    if (change.action === 'delete') {
      notes.push(
        `${change.address}: deleted by apply #${record.seq}; add its document back (telform history ${change.address} shows its spec)`,
      );
      continue;
    }
    if ((change.action !== 'update' && change.action !== 'replace') || !change.before || !change.after) continue;
    if (!resource?.source) {
      notes.push(`${change.address}: not declared in the manifests given, so nothing is written for it`);
      continue;
    }
    const before = change.before;
    const after = change.after;
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      .map((field) => ({ field, value: before[field] }));
    if (fields.length === 0) continue;
    const edits = byFile.get(resource.source.file) ?? [];
    edits.push({ address: change.address, line: resource.source.line, fields });
    byFile.set(resource.source.file, edits);
  }
  const written: string[] = [];
  for (const [file, edits] of byFile) {
    const absolute = path.resolve(io.cwd, file);
    const text = await readFile(absolute, 'utf8');
    const rewrite = rewriteManifest(text, edits);
    if (rewrite.text !== text) await writeAtomically(absolute, rewrite.text);
    written.push(...rewrite.written.map((what) => `${file}: ${what}`));
    notes.push(...rewrite.notes);
  }
  return { written, notes };
}
