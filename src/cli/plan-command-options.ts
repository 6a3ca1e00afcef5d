import type { Command } from 'commander';
import { collect } from './option-parsers.js';
import { approvalOption } from './arguments/approvals.js';

/** The approval flags shared by `plan` (recorded in a saved plan) and `apply`. */
export function addApprovalOptions(command: Command): Command {
  command.option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, []);
  for (const name of ['allowIrreversible', 'maxCost', 'maxNumbersAffected', 'allowLint'] as const)
    command.addOption(approvalOption(name));
  return command
    .option(
      '--policy <file>',
      'evaluate the CEL rules of this policy file over every change; an error-level violation makes apply refuse (repeatable)',
      collect,
      [],
    )
    .addOption(approvalOption('forceDeletes'))
    .addOption(approvalOption('allowEmpty'))
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
