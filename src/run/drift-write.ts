// `drift --write`: the manifests rewritten so they say what the account now holds for the changes
// made outside telform (the pull request's diff is then exactly the accepted change). Only the
// files with something to accept are written, each atomically; every other byte is kept.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { acceptDrift } from '../engine/drift-accept.js';
import type { DocumentEdit } from '../manifest/write-back.js';
import { writeAtomically } from '../util/atomic-file.js';
import type { Reconciliation } from './reconcile.js';

export interface DriftWriteResult {
  /** `file: Kind/name field`, for each value written. */
  written: string[];
  /** What was not written, and why. */
  notes: string[];
  /** Values that differ from the manifests but could not be written (a flow-style spec, a `{ value }` field…): the drift stays. */
  unwritten: string[];
}

/** `accept`: the addresses whose changes to write (`--accept`, repeatable); empty: all of them. */
export async function writeDriftBack(
  run: Reconciliation,
  accept: readonly string[],
  cwd: string,
): Promise<DriftWriteResult> {
  const acceptance = acceptDrift(run.plan, run.store.ledger, run.kinds, accept);
  const byFile = new Map<string, DocumentEdit[]>();
  for (const resource of acceptance.resources) {
    const edits = byFile.get(resource.source.file) ?? [];
    edits.push({ address: resource.address, line: resource.source.line, fields: resource.fields });
    byFile.set(resource.source.file, edits);
  }
  const written: string[] = [];
  const notes = [...acceptance.notes];
  const unwritten: string[] = [];
  for (const [file, edits] of byFile) {
    // Through a symlink to the file it names (the link stays a link), keeping that file's permissions.
    const target = await realpath(path.resolve(cwd, file));
    const text = await readFile(target, 'utf8');
    // The `yaml` package loads only when there is something to write back.
    const { rewriteManifest } = await import('../manifest/write-back.js');
    const rewrite = rewriteManifest(text, edits);
    if (rewrite.text !== text) await writeAtomically(target, rewrite.text, (await stat(target)).mode & 0o7777);
    written.push(...rewrite.written.map((what) => `${file}: ${what}`));
    unwritten.push(...rewrite.notes.map((note) => `${file}: ${note}`));
  }
  return { written, notes, unwritten };
}
