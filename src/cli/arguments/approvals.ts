// The flags that approve what a safety gate would refuse (docs/state-and-safety.md, safety), each
// declared once with its one checked parser: every command that takes one (plan, apply, revert) adds
// it from here, so a bad value (`--max-cost abc`) is the same one-line user error everywhere.
import { InvalidArgumentError, Option } from 'commander';
import { collect, count, positiveInteger, usdAmount } from '../option-parsers.js';

/** `Kind/name` (or `Kind/#id`), or `all`. */
function approvedAddress(value: string, previous: string[] = []): string[] {
  if (value !== 'all' && !/^[A-Z][A-Za-z]*\/\S+$/.test(value))
    throw new InvalidArgumentError('expected an address such as Campaign/spring-promo, or "all"');
  return collect(value, previous);
}

/** A 10DLC lint rule's id (e.g. sample-names-brand), or `all`. */
function lintRule(value: string, previous: string[] = []): string[] {
  if (!/^[a-z][a-z0-9-]*$/.test(value))
    throw new InvalidArgumentError('expected a 10DLC lint rule such as sample-names-brand, or "all"');
  return collect(value, previous);
}

/** A later apply's number whose changes a revert may take back (repeatable). */
function laterApply(value: string, previous: number[] = []): number[] {
  return [...previous, positiveInteger(value)];
}

/** Each approval flag, by the attribute commander gives it. */
const approvalFlags = {
  allowIrreversible: (help: string) =>
    new Option('--allow-irreversible <address>', help).argParser(approvedAddress).default([]),
  maxCost: (help: string) => new Option('--max-cost <usd>', help).argParser(usdAmount),
  maxNumbersAffected: (help: string) => new Option('--max-numbers-affected <n>', help).argParser(count),
  allowLint: (help: string) => new Option('--allow-lint <rule>', help).argParser(lintRule).default([]),
  forceDeletes: (help: string) => new Option('--force-deletes', help),
  allowEmpty: (help: string) => new Option('--allow-empty', help),
  over: (help: string) => new Option('--over <apply>', help).argParser(laterApply).default([]),
} as const;

type ApprovalFlagName = keyof typeof approvalFlags;

/** What each flag approves, as `plan` and `apply` say it; a command may say it in its own words. */
const defaultHelp: Record<ApprovalFlagName, string> = {
  allowIrreversible: 'approve deleting or replacing this brand/campaign (repeatable; "all" for everything)',
  maxCost: 'approve billable changes up to this many USD',
  maxNumbersAffected: 'approve a plan that breaks calls or messages of up to this many phone numbers (default 0)',
  allowLint:
    'approve submitting campaigns despite error-level findings of this 10DLC lint rule (repeatable; "all" for every rule)',
  forceDeletes: 'approve deleting all of a kind, or more than 30% of a kind with 10 or more',
  allowEmpty: 'approve manifests that hold no resource (deletes everything telform manages)',
  over: 'put back a field apply N changed even though this later apply changed it again (repeatable; the plan names each conflict)',
};

/** An approval option as a command takes it, from the one declaration (its help in the command's words if given). */
export function approvalOption(name: ApprovalFlagName, help: string = defaultHelp[name]): Option {
  return approvalFlags[name](help);
}

/** The long flag of every approval option (a test walks every command's options with it). */
export const approvalFlagNames: readonly string[] = Object.values(approvalFlags).map((make) => make('').long as string);
