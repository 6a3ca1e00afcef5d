import type { ImportedResource } from '../manifest/account-import.js';
import { printable } from '../util/printable.js';

/** What `telform import` did, as its report prints it. */
export interface ImportReport {
  imported: readonly ImportedResource[];
  /** How many manifest files it wrote. */
  files: number;
  /** The folder it wrote them to. */
  out: string;
  /** Objects the state manages already. */
  skipped?: readonly string[];
  /** Objects it cannot write as a manifest validate accepts. */
  refused?: ReadonlyArray<{ address: string; id: string; reason: string }>;
}

/**
 * What `telform import` did: the count, what it skipped because the state manages it already, the
 * names it had to make up, the secrets to provide.
 */
export function renderImportReport({
  imported,
  files: fileCount,
  out,
  skipped = [],
  refused = [],
}: ImportReport): string {
  const lines = [
    `Imported ${imported.length} resource${imported.length === 1 ? '' : 's'} into ${out} (${fileCount} file${fileCount === 1 ? '' : 's'}) and recorded them in the state.`,
  ];
  if (refused.length > 0) {
    lines.push(
      `Not imported: ${refused.length} object${refused.length === 1 ? '' : 's'} telform cannot write as a manifest validate accepts (neither written nor recorded; the plan leaves ${refused.length === 1 ? 'it' : 'them'} alone as unmanaged):`,
    );
    // Addresses, ids and reasons carry live names and values: escaped for the terminal.
    for (const item of refused)
      lines.push(`  ${printable(item.address)} (${printable(item.id)}): ${printable(item.reason)}`);
  }
  if (skipped.length > 0) {
    lines.push(
      `Skipped ${skipped.length} object${skipped.length === 1 ? '' : 's'} the state already manages (its manifests keep them):`,
    );
    for (const address of skipped) lines.push(`  ${address}`);
  }
  const madeUp = imported.filter((resource) => resource.madeUpName);
  if (madeUp.length > 0) {
    lines.push(
      `Names made up for ${madeUp.length} object${madeUp.length === 1 ? '' : 's'} (spec keeps the live name):`,
    );
    for (const resource of madeUp) lines.push(`  ${printable(resource.madeUpName ?? '')}`);
  }
  const variables = imported.flatMap((resource) => Object.values(resource.secretVariables));
  if (variables.length > 0) {
    lines.push(`Secrets to provide before plan or apply (${variables.length}):`);
    for (const variable of variables) lines.push(`  ${printable(variable)}`);
  }
  return `${lines.join('\n')}\n`;
}
