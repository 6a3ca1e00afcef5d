import type { Command } from 'commander';
import { collect, count, usdAmount } from './option-parsers.js';

/** The approval flags shared by `plan` (recorded in a saved plan) and `apply`. */
export function addApprovalOptions(command: Command): Command {
  return command
    .option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, [])
    .option(
      '--allow-irreversible <address>',
      'approve deleting or replacing this brand/campaign (repeatable; "all" for everything)',
      collect,
      [],
    )
    .option('--max-cost <usd>', 'approve billable changes up to this many USD', usdAmount)
    .option(
      '--max-numbers-affected <n>',
      'approve a plan that breaks calls or messages of up to this many phone numbers (default 0)',
      count,
    )
    .option(
      '--allow-lint <rule>',
      'approve submitting campaigns despite error-level findings of this 10DLC lint rule (repeatable; "all" for every rule)',
      collect,
      [],
    )
    .option(
      '--policy <file>',
      'evaluate the CEL rules of this policy file over every change; an error-level violation makes apply refuse (repeatable)',
      collect,
      [],
    )
    .option('--force-deletes', 'approve deleting all of a kind, or more than 30% of a kind with 10 or more')
    .option('--allow-empty', 'approve manifests that hold no resource (deletes everything telform manages)')
    .option(
      '--prune-unmanaged <kind>',
      'also delete objects of this kind that neither the manifests nor the state know (repeatable)',
      collect,
      [],
    )
    .option(
      '--target <address>',
      'only this resource and what it depends on, e.g. Trunk/pbx-out (repeatable; the rest is not looked at)',
      collect,
      [],
    )
    .option(
      '--exclude <address>',
      'leave out this resource and what depends on it, e.g. Campaign/spring-promo (repeatable)',
      collect,
      [],
    )
    .option(
      '--destroy',
      'plan a teardown: delete everything the state manages (no manifests are read); each irreversible, protected or billable change still needs its own approval',
    );
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
