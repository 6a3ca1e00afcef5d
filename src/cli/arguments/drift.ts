// `telform drift`'s flag rules: one account's report, its write-back (`--write`), or a report over an
// accounts file. `--write` rewrites one account's manifests, so it is refused with `--accounts`.
import type { Format } from '../../render/index.js';
import type { AccountsOptionValues } from '../accounts-options.js';
import type { SecretFileOptionValue } from '../plan-command-options.js';
import type { ValuesOptionValues } from '../values-options.js';
import { Problems, type GivenFlags, type Parsed } from './parsed.js';
import { checkAccountsOnly, checkFormat, checkManifestSource, checkValues } from './shared.js';

export interface DriftFlags extends AccountsOptionValues, SecretFileOptionValue, ValuesOptionValues {
  file: string[];
  format: Format;
  write?: boolean;
  accept: string[];
}

export type DriftInput =
  | { mode: 'accounts'; accountsFile: string; flags: DriftFlags }
  | { mode: 'write'; paths: string[]; accept: string[]; flags: DriftFlags }
  | { mode: 'report'; paths: string[]; format: Format; flags: DriftFlags };

export function parseDriftArguments(flags: DriftFlags, given: GivenFlags): Parsed<DriftInput> {
  const problems = new Problems();
  checkAccountsOnly(problems, flags, given, 'drift');
  checkManifestSource(problems, flags);
  checkValues(problems, flags);
  problems.check(flags.accept.length > 0 && !flags.write, '--accept chooses what --write writes: give --write too');
  problems.check(
    flags.write === true && flags.accounts !== undefined,
    "--write rewrites one account's manifests: give either --write or --accounts",
  );
  problems.check(
    flags.write === true && given.has('format'),
    '--write writes manifests and prints what it wrote: give either --write or --format',
  );
  if (!flags.write) checkFormat(problems, flags.format, flags.accounts !== undefined ? 'accounts' : 'drift');
  return problems.result((): DriftInput => {
    if (flags.accounts !== undefined) return { mode: 'accounts', accountsFile: flags.accounts, flags };
    if (flags.write) return { mode: 'write', paths: flags.file, accept: flags.accept, flags };
    return { mode: 'report', paths: flags.file, format: flags.format, flags };
  });
}
