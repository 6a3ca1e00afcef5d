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

/** The approval flags a reviewed file may hold (a CI template's `telform.approvals`): every one `plan` takes. */
const fileFlags = [
  'allowIrreversible',
  'maxCost',
  'maxNumbersAffected',
  'allowLint',
  'forceDeletes',
  'allowEmpty',
] as const;

type FileFlagValues = Partial<{
  allowIrreversible: string[];
  maxCost: number;
  maxNumbersAffected: number;
  allowLint: string[];
  forceDeletes: boolean;
  allowEmpty: boolean;
}>;

/**
 * `--approval-flags FILE`: approval flags reviewed with the manifests, one per line as on the command
 * line (`--max-cost 15`, `--allow-lint all`; blank lines and `#` comments skipped), each parsed by its
 * one declaration above. A line that is not one approval flag, or a bad value, is a problem at its line.
 */
export function parseApprovalFlagsFile(file: string, text: string): { values: FileFlagValues; problems: string[] } {
  const options = fileFlags.map((name) => approvalOption(name));
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  const names = options.map((option) => `${option.long}${option.required ? ` ${option.flags.split(' ')[1]}` : ''}`);
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}:${index + 1}`;
    const words = line.split(/\s+/);
    const option = options.find((candidate) => candidate.long === words[0]);
    if (!option || words.length !== (option.required ? 2 : 1)) {
      problems.push(`${where}: ${JSON.stringify(printableLine(line))} is not one approval flag (${names.join(', ')})`);
      return;
    }
    const key = option.attributeName();
    if (!option.required) {
      values[key] = true;
      return;
    }
    const value = words[1] as string;
    try {
      const previous = values[key] ?? (Array.isArray(option.defaultValue) ? [] : undefined);
      values[key] = option.parseArg ? option.parseArg(value, previous) : value;
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      problems.push(`${where}: ${option.long} ${JSON.stringify(printableLine(value))}: ${error.message}`);
    }
  });
  return { values: values as FileFlagValues, problems };
}

/** A line of the file as shown in a problem: no control characters. */
function printableLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** The flags given with those of the file: lists joined, a number or switch given on the command line kept. */
export function withApprovalFlagsFile<T extends FileFlagValues>(flags: T, file: FileFlagValues): T {
  const joined = (a: string[] | undefined, b: string[] | undefined) => [...new Set([...(a ?? []), ...(b ?? [])])];
  return {
    ...flags,
    allowIrreversible: joined(flags.allowIrreversible, file.allowIrreversible),
    allowLint: joined(flags.allowLint, file.allowLint),
    ...(flags.maxCost === undefined && file.maxCost !== undefined ? { maxCost: file.maxCost } : {}),
    ...(flags.maxNumbersAffected === undefined && file.maxNumbersAffected !== undefined
      ? { maxNumbersAffected: file.maxNumbersAffected }
      : {}),
    ...(file.forceDeletes ? { forceDeletes: true } : {}),
    ...(file.allowEmpty ? { allowEmpty: true } : {}),
  };
}
