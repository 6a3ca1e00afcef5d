// Flag rules several commands share: what only a run over an accounts file reads, values with
// --accounts, the scope of one account's resources (--target, --exclude, --destroy), a rollout in
// waves. Each adds its problems to the command's `Problems`.
import { parseWaves } from '../../engine/waves.js';
import type { RolloutOptions } from '../../run/rollout.js';
import type { AccountsOptionValues } from '../accounts-options.js';
import type { ApprovalOptionValues } from '../plan-command-options.js';
import type { ValuesOptionValues } from '../values-options.js';
import type { WavesOptionValues } from '../waves-options.js';
import { formatRefusal, type Format, type Report } from '../../render/formats.js';
import type { GivenFlags, Problems } from './parsed.js';

/** The flags that only a run over an accounts file reads, by option attribute and flag. */
const accountsOnlyFlags: ReadonlyArray<[string, string]> = [
  ['only', '--only'],
  ['accountParallelism', '--account-parallelism'],
  ['shard', '--shard'],
  ['runId', '--run-id'],
];

/** Without --accounts a run reads none of them: a --shard in a single-account job must not pass for a partition. */
export function checkAccountsOnly(
  problems: Problems,
  options: AccountsOptionValues,
  given: GivenFlags,
  command: string,
): void {
  if (options.accounts !== undefined) return;
  const flag = accountsOnlyFlags.find(([attribute]) => given.has(attribute));
  problems.check(
    flag !== undefined,
    () => `${flag?.[1]} works only with --accounts FILE; this ${command} runs the one account of -f`,
  );
}

/** Manifests come from -f or from the accounts file, never both. */
export function checkManifestSource(
  problems: Problems,
  options: { accounts?: string | undefined; file: readonly string[] },
): void {
  problems.check(
    options.accounts !== undefined && options.file.length > 0,
    'give either --accounts FILE or -f manifests, not both',
  );
}

/** An accounts run takes each account's values from the accounts file. */
export function checkValues(problems: Problems, options: ValuesOptionValues): void {
  const given = options.values !== undefined || options.value.length > 0;
  problems.check(
    given && Boolean(options.accounts),
    "--values and --value are for a single-account run; with --accounts, give values in the accounts file (defaults.values, or an account's values)",
  );
}

/** `--target`, `--exclude` and `--destroy` name one account's resources, and a teardown reads no manifest. */
export function checkScope(
  problems: Problems,
  options: ApprovalOptionValues,
  context: { accounts: boolean; planFile?: string | undefined },
): void {
  const scoped = [
    ...(options.target.length > 0 ? ['--target'] : []),
    ...(options.exclude.length > 0 ? ['--exclude'] : []),
    ...(options.destroy ? ['--destroy'] : []),
  ];
  const [first] = scoped;
  problems.check(
    first !== undefined && context.accounts,
    `${first} is about the resources of one account: give either ${first} or --accounts`,
  );
  problems.check(
    first !== undefined && context.planFile !== undefined,
    () =>
      `${context.planFile} is applied as it was planned: give ${first} to \`telform plan\`, not to the apply of a saved plan`,
  );
  problems.check(
    options.destroy === true && options.file.length > 0,
    '--destroy deletes everything the state manages and reads no manifests: give either -f or --destroy',
  );
  problems.check(
    options.destroy === true && options.target.length > 0,
    '--destroy covers everything the state manages: leave out parts with --exclude, not --target',
  );
}

/** The rollout the flags ask for, or undefined for an apply of every account at once. */
export function parseRollout(
  problems: Problems,
  options: WavesOptionValues & AccountsOptionValues,
): RolloutOptions | undefined {
  const rollout = options.waves !== undefined || options.resume === true;
  problems.check(
    options.ignoreRollout === true && !options.accounts,
    '--ignore-rollout is for an apply over --accounts FILE',
  );
  problems.check(
    rollout && options.ignoreRollout === true,
    '--ignore-rollout is for an apply of every account at once: give it without --waves or --resume',
  );
  if (!rollout) {
    problems.check(
      options.canary.length > 0 || options.soak !== undefined || options.restart === true,
      '--canary, --soak and --restart are for a rollout in waves: give --waves too',
    );
    return undefined;
  }
  problems.check(
    !options.accounts,
    '--waves and --resume roll out over the accounts of an accounts file: give --accounts FILE',
  );
  problems.check(
    options.resume === true && options.waves !== undefined,
    '--resume continues the waves recorded when the rollout started: give --resume without --waves',
  );
  problems.check(
    options.resume === true && options.canary.length > 0,
    '--resume continues the waves recorded when the rollout started: give --resume without --canary',
  );
  problems.check(
    options.resume === true && options.only.length > 0,
    '--resume continues the accounts recorded when the rollout started: give --resume without --only',
  );
  problems.check(
    options.shard !== undefined,
    '--waves and --resume roll out over every account of one run: give them without --shard',
  );
  const waves = options.waves === undefined ? undefined : problems.attempt(() => parseWaves(options.waves as string));
  return {
    ...(waves !== undefined ? { waves } : {}),
    canary: options.canary,
    soakMs: options.soak ?? 0,
    resume: options.resume === true,
    restart: options.restart === true,
  };
}

/** The format must render the report this run prints: one that cannot is refused by name, never replaced by text. */
export function checkFormat(problems: Problems, format: Format, report: Report): void {
  const refusal = formatRefusal(format, report);
  problems.check(refusal !== undefined, () => refusal ?? '');
}
