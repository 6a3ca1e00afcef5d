// `telform validate`'s flag rules: the manifests of -f, or those of every account of an accounts file.
import type { Format } from '../../render/index.js';
import type { SecretFileOptionValue } from '../plan-command-options.js';
import type { ValuesOptionValues } from '../values-options.js';
import { Problems, type Parsed } from './parsed.js';
import { checkFormat, checkManifestSource, checkValues } from './shared.js';

export interface ValidateFlags extends SecretFileOptionValue, ValuesOptionValues {
  /** No default: commander leaves it out when -f is not given. */
  file?: string[];
  accounts?: string;
  format: Format;
  checkSecrets?: boolean;
  /** `--scope`: the part of the account the manifests are checked against. */
  scope?: string[];
  /** `--no-state` gives false: every object is judged as new. */
  state?: boolean;
}

export type ValidateInput =
  | { mode: 'accounts'; accountsFile: string; flags: ValidateFlags }
  | { mode: 'one'; paths: string[]; flags: ValidateFlags };

export function parseValidateArguments(flags: ValidateFlags): Parsed<ValidateInput> {
  const problems = new Problems();
  const file = flags.file ?? [];
  checkManifestSource(problems, { ...flags, file });
  checkValues(problems, flags);
  problems.check(
    flags.accounts === undefined && file.length === 0,
    'no manifests given: pass -f PATH (repeatable), or --accounts FILE',
  );
  checkFormat(problems, flags.format, flags.accounts !== undefined ? 'accountsValidation' : 'validation');
  return problems.result((): ValidateInput =>
    flags.accounts !== undefined
      ? { mode: 'accounts', accountsFile: flags.accounts, flags }
      : { mode: 'one', paths: file, flags },
  );
}
