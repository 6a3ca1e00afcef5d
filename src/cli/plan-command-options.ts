import type { Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { collect, count, usdAmount } from './option-parsers.js';

/** The approval flags shared by `plan` (recorded in a saved plan) and `apply`. */
export function addApprovalOptions(command: Command): Command {
  return command
    .option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, [])
    .option('--allow-irreversible <address>', 'approve deleting or replacing this brand/campaign (repeatable; "all" for everything)', collect, [])
    .option('--max-cost <usd>', 'approve billable changes up to this many USD', usdAmount)
    .option('--max-numbers-affected <n>', 'approve a plan that breaks calls or messages of up to this many phone numbers (default 0)', count)
    .option('--allow-lint <rule>', 'approve submitting campaigns despite error-level findings of this 10DLC lint rule (repeatable; "all" for every rule)', collect, [])
    .option('--policy <file>', 'evaluate the CEL rules of this policy file over every change; an error-level violation makes apply refuse (repeatable)', collect, [])
    .option('--force-deletes', 'approve deleting all of a kind, or more than 30% of a kind with 10 or more')
    .option('--allow-empty', 'approve manifests that hold no resource (deletes everything telform manages)')
    .option('--prune-unmanaged <kind>', 'also delete objects of this kind that neither the manifests nor the state know (repeatable)', collect, [])
    .option('--target <address>', 'only this resource and what it depends on, e.g. Trunk/pbx-out (repeatable; the rest is not looked at)', collect, [])
    .option('--exclude <address>', 'leave out this resource and what depends on it, e.g. Campaign/spring-promo (repeatable)', collect, [])
    .option('--destroy', 'plan a teardown: delete everything the state manages (no manifests are read); each irreversible, protected or billable change still needs its own approval');
}

/** `--allow-secret-files-outside`, on the commands that read secrets (validate, plan, apply, drift). */
export function addSecretFileOption(command: Command): Command {
  return command.option(
    '--allow-secret-files-outside',
    'let { fromFile } secrets lie outside the folders the manifests are loaded from (special files under /proc, /sys, /dev stay refused)',
  );
}

export interface SecretFileOptionValue {
  allowSecretFilesOutside?: boolean;
}

export interface ApprovalOptionValues {
  file: string[];
  allowIrreversible: string[];
  maxCost?: number;
  maxNumbersAffected?: number;
  allowLint: string[];
  policy: string[];
  forceDeletes?: boolean;
  allowEmpty?: boolean;
  pruneUnmanaged: string[];
  target: string[];
  exclude: string[];
  destroy?: boolean;
}

/** `--target`, `--exclude` and `--destroy` name one account's resources, and a teardown reads no manifest. */
export function checkScopeOptions(options: ApprovalOptionValues, context: { accounts: boolean; planFile?: string | undefined }): void {
  const scoped = [...(options.target.length > 0 ? ['--target'] : []), ...(options.exclude.length > 0 ? ['--exclude'] : []), ...(options.destroy ? ['--destroy'] : [])];
  const [first] = scoped;
  if (first && context.accounts) throw new TelformError('bad_option', `${first} is about the resources of one account: give either ${first} or --accounts`);
  if (first && context.planFile) {
    throw new TelformError('bad_option', `${context.planFile} is applied as it was planned: give ${first} to \`telform plan\`, not to the apply of a saved plan`);
  }
  if (options.destroy && options.file.length > 0) {
    throw new TelformError('bad_option', '--destroy deletes everything the state manages and reads no manifests: give either -f or --destroy');
  }
  if (options.destroy && options.target.length > 0) throw new TelformError('bad_option', '--destroy covers everything the state manages: leave out parts with --exclude, not --target');
}
