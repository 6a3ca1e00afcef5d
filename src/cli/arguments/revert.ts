// `telform revert N`'s flag rules: the revert is applied (after the terminal's "yes" or
// --auto-approve), saved for review (-o), or written into the manifests (--write -f), one of the three.
import { Problems, type Parsed } from './parsed.js';

export interface RevertFlags {
  file: string[];
  allowIrreversible: string[];
  maxCost?: number;
  maxNumbersAffected?: number;
  forceDeletes?: boolean;
  out?: string;
  write?: boolean;
  wait?: number;
  autoApprove?: boolean;
  parallelism: number;
  allowSecretFilesOutside?: boolean;
  /** `--over N2` (repeatable): later applies whose changes to the same fields the revert may take back. */
  over: number[];
  /** `--policy FILE` (repeatable): the rules every plan is judged by, approval rules included. */
  policy?: string[];
  emergency?: string;
}

/** What the revert does with its plan. */
export type RevertInput =
  | { mode: 'write'; files: string[] }
  | { mode: 'save'; out: string; flags: RevertFlags }
  | { mode: 'apply'; waitMs: number; flags: RevertFlags };

export function parseRevertArguments(flags: RevertFlags): Parsed<RevertInput> {
  const problems = new Problems();
  problems.check(
    flags.write === true && flags.out !== undefined,
    'give either --write (into the manifests) or -o (a saved plan), not both',
  );
  problems.check(
    flags.write === true && flags.file.length === 0,
    '--write needs the manifests to write into: pass -f PATH (repeatable)',
  );
  problems.check(
    flags.write !== true && flags.file.length > 0,
    '-f is read only with --write: a revert is planned from the state and its history',
  );
  // A saved revert waits when it is applied: `telform apply FILE --wait`.
  problems.check(
    flags.wait !== undefined && (flags.write === true || flags.out !== undefined),
    () =>
      `--wait is read only when the revert is applied, not with ${flags.write ? '--write' : '-o'}${flags.out ? `; wait when applying it: telform apply ${flags.out} --wait DURATION` : ''}`,
  );
  problems.check(
    flags.write === true && flags.over.length > 0,
    '--over is read only when the revert is planned: --write writes what apply N changed, and a later change shows in the diff',
  );
  problems.check(
    flags.emergency !== undefined && flags.write !== true && flags.out !== undefined,
    () => `--emergency is read when the revert is applied; give it to telform apply ${flags.out} instead`,
  );
  problems.check(
    flags.write === true && ((flags.policy ?? []).length > 0 || flags.emergency !== undefined),
    '--policy and --emergency judge a planned revert; --write only writes the manifests, judged when they are planned',
  );
  return problems.result((): RevertInput => {
    if (flags.write) return { mode: 'write', files: flags.file };
    if (flags.out !== undefined) return { mode: 'save', out: flags.out, flags };
    return { mode: 'apply', waitMs: flags.wait ?? 0, flags };
  });
}
