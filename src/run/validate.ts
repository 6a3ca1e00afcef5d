// `telform validate` as an operation: the manifests of -f (with the run's values), or those of every
// account of an accounts file (each with its own values and scope), checked offline — YAML, field
// rules, references, values, the 10DLC lint and, when asked, the secrets. Sends no request: the state
// (never the account) tells which values that break a create rule the account holds (validate-held.ts).
import { findingProblem, lintCampaigns } from '../manifest/campaign-lint.js';
import { loadManifests } from '../manifest/load.js';
import type { ValidationSummary } from '../manifest/report.js';
import type { ValueSet } from '../manifest/values.js';
import type { AccountValidation } from '../render/validation-accounts.js';
import { parseScope, type Scope } from '../resources/ownership-scope.js';
import type { GlobalOptions, RunIo } from './context.js';
import { stateLocation } from './state-location.js';
import { ExitCode } from './exit-codes.js';
import { readValues, type ValuesInput } from './values-input.js';
import type { StateLocation } from '../state/backends/registry.js';
import { judgeHeldValues, readHeldWitness } from './validate-held.js';

export type ValidateSource =
  { mode: 'one'; paths: readonly string[]; values: ValuesInput } | { mode: 'accounts'; accountsFile: string };

interface ValidateOptions {
  /** `--check-secrets`: resolve `{ fromEnv }` and `{ fromFile }` secrets and apply their rules. */
  checkSecrets: boolean;
  allowSecretFilesOutside: boolean;
  /** `--scope`: the part of the account the manifests are checked against (an account's own scope wins). */
  scope: readonly string[];
  /**
   * Where the state is (`--state`, `--workspace`, as plan finds it): a value breaking a create rule is
   * a warning only where it records the object holding it. `off` (`--no-state`): every object is new.
   */
  state: Pick<GlobalOptions, 'state' | 'workspace'> | 'off';
}

export type Validation = (
  { mode: 'one'; summary: ValidationSummary } | { mode: 'accounts'; accounts: AccountValidation[] }
) & { exitCode: number };

export async function validate(
  source: ValidateSource,
  options: ValidateOptions,
  io: Pick<RunIo, 'cwd' | 'env'>,
): Promise<Validation> {
  // Parsed when first needed, after the values are read (an account's own scope wins over the flag).
  const flagScope = (): Scope | undefined => (options.scope.length > 0 ? parseScope(options.scope) : undefined);
  if (source.mode === 'one') {
    const values = await readValues(source.values, io.cwd);
    const state = options.state === 'off' ? 'off' : stateLocation(options.state, io.env);
    const summary = await validateManifests(source.paths, values, flagScope(), options, state, io);
    return { mode: 'one', summary, exitCode: summary.errorCount > 0 ? ExitCode.error : ExitCode.ok };
  }
  const { loadAccountsFile } = await import('../manifest/accounts-file.js');
  const accounts: AccountValidation[] = [];
  for (const account of await loadAccountsFile(source.accountsFile, io.cwd)) {
    accounts.push({
      name: account.name,
      summary: await validateManifests(
        account.manifests,
        account.values,
        account.scope ?? flagScope(),
        options,
        options.state === 'off' ? 'off' : { state: account.state, workspace: account.workspace },
        io,
      ),
    });
  }
  const failed = accounts.some((account) => account.summary.errorCount > 0);
  return { mode: 'accounts', accounts, exitCode: failed ? ExitCode.error : ExitCode.ok };
}

async function validateManifests(
  paths: readonly string[],
  values: ValueSet | undefined,
  scope: Scope | undefined,
  options: ValidateOptions,
  state: StateLocation | 'off',
  io: Pick<RunIo, 'cwd' | 'env'>,
): Promise<ValidationSummary> {
  const result = await loadManifests(paths, {
    cwd: io.cwd,
    env: io.env,
    checkSecrets: options.checkSecrets,
    allowSecretFilesOutside: options.allowSecretFilesOutside,
    ...(values ? { values } : {}),
    ...(scope ? { scope } : {}),
  });
  // The 10DLC lint's findings are reported with the other problems; its errors make the manifests invalid here
  // (plan and apply still run: apply refuses only to submit a campaign with one, unless --allow-lint).
  const lint = lintCampaigns(result.model.resources).map(findingProblem);
  // The state is read only when a value needs it (most manifests break no create rule).
  const held = result.problems.some((problem) => problem.code === 'held_value')
    ? judgeHeldValues(
        result.problems,
        result.model.resources,
        state === 'off' ? { state: 'off' } : await readHeldWitness(state, io.env, io.cwd),
      )
    : result.problems;
  const problems = [...held, ...lint];
  const errorCount = problems.filter((problem) => problem.severity === 'error').length;
  return {
    problems,
    errorCount,
    warningCount: problems.length - errorCount,
    resourceCount: result.model.resources.length,
    files: result.model.files,
  };
}
