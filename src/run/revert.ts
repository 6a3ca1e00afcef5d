// The revert operation (`telform revert N`): apply #N's record is read from the state's history, the
// resources that put back what it changed are made from it and the ledger (engine/revert.ts), and
// they are reconciled like any manifests — the same gates, approvals, seal and saved plan. `--write`
// puts the before-values into the manifests instead, so the revert is reviewed as a pull request.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { conflictRefusal, markRevertPlan, type RevertSet } from '../engine/revert.js';
import type { PlanApprovals } from '../engine/plan-types.js';
import { loadDesired } from '../manifest/desired.js';
import { rewriteManifest, type DocumentEdit } from '../manifest/write-back.js';
import type { HistoryRecord } from '../state/history.js';
import { writeAtomically } from '../util/atomic-file.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { reconcile, type ReconcileOptions, type Reconciliation } from './reconcile.js';
import { revertOf } from './revert-record.js';

export { revertOf };

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
  options: Pick<ReconcileOptions, 'lock' | 'allowSecretFilesOutside' | 'policies' | 'approvalRules'> & {
    over?: readonly number[];
  },
): Promise<RevertRun> {
  const { record, set } = await revertOf(seq, globals, context, options.over ?? []);
  const refused = set.targets.length === 0 ? conflictRefusal(set) : undefined;
  if (refused) throw new TelformError('revert_conflict', `${refused}; nothing was sent`);
  if (set.targets.length === 0) {
    // No target would mean no limit: the plan would cover the whole account, which is not this revert.
    const why = set.notes;
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
    // A field a later apply changed again: the judgement refuses the revert unless taken with --over.
    producerRefusal: () => {
      const reason = conflictRefusal(set);
      return reason === undefined ? undefined : { code: 'revert_conflict', reason };
    },
    ...(options.policies ? { policies: options.policies } : {}),
    ...(options.approvalRules ? { approvalRules: options.approvalRules } : {}),
  });
  return { run, set, record };
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
    // A secret is never in the history, only its fingerprint: said, with where its value comes from.
    for (const [field, after] of Object.entries(change.secrets_after ?? {})) {
      const before = change.secrets_before?.[field];
      if (before && before.hmac === after.hmac) continue;
      const source = resource.secretSources[field];
      const from =
        source && 'fromEnv' in source
          ? ` (from env ${source.fromEnv})`
          : source && 'fromFile' in source
            ? ` (from file ${source.fromFile})`
            : '';
      notes.push(
        `${change.address}: apply #${record.seq} changed its ${field}${from}; the history keeps only a fingerprint of a secret, never its value, so set it back to its earlier value yourself`,
      );
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
  const originals = new Map<string, string>();
  for (const [file, edits] of byFile) {
    const absolute = path.resolve(io.cwd, file);
    const text = await readFile(absolute, 'utf8');
    const rewrite = rewriteManifest(text, edits);
    if (rewrite.text !== text) {
      originals.set(absolute, text);
      await writeAtomically(absolute, rewrite.text);
    }
    written.push(...rewrite.written.map((what) => `${file}: ${what}`));
    notes.push(...rewrite.notes);
  }
  // The manifests are validated as written; ones that do not are put back byte for byte.
  if (originals.size > 0) {
    try {
      // Warnings were said when the manifests were read above; only whether they still validate matters here.
      await loadDesired(paths, { cwd: io.cwd, env: io.env, report: () => undefined });
    } catch (error) {
      for (const [absolute, text] of originals) await writeAtomically(absolute, text);
      if (!(error instanceof TelformError)) throw error;
      const problems = error.details.problems;
      const why = Array.isArray(problems) ? problems.map(String).join('; ') : error.message;
      throw new TelformError(
        'revert_write_invalid',
        `the values from before apply #${record.seq} would leave the manifests invalid, so nothing was written: ${why}; write the revert by hand, or apply it with telform revert ${record.seq}`,
      );
    }
  }
  return { written, notes };
}
