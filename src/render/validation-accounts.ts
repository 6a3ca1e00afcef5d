// `validate --accounts`: every account's manifests checked with its own values, reported per
// account (a shared manifest that is wrong for one customer's values is that account's problem).
// Pure functions of the per-account results, like the other renderers.
import type { Problem } from '../manifest/problems.js';
import {
  formatProblem,
  renderValidationJson,
  validateReportVersion,
  type ValidationSummary,
} from '../manifest/report.js';

export interface AccountValidation {
  name: string;
  summary: ValidationSummary;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Every problem as `[account] file:line:col  Kind/name  field: message`, then one closing line. */
export function renderAccountsValidationText(accounts: readonly AccountValidation[]): string {
  const lines: string[] = [];
  for (const account of accounts)
    for (const problem of account.summary.problems) lines.push(`[${account.name}] ${formatProblem(problem)}`);
  const failing = accounts.filter((account) => account.summary.errorCount > 0);
  const errors = accounts.reduce((sum, account) => sum + account.summary.errorCount, 0);
  const warnings = accounts.reduce((sum, account) => sum + account.summary.warningCount, 0);
  if (failing.length > 0) {
    lines.push(
      `invalid: ${plural(errors, 'error')} in ${failing.length} of ${plural(accounts.length, 'account')} (${failing.map((account) => account.name).join(', ')}), ${plural(warnings, 'warning')}`,
    );
  } else {
    const resources = accounts.reduce((sum, account) => sum + account.summary.resourceCount, 0);
    lines.push(
      `valid: ${plural(accounts.length, 'account')}, ${plural(resources, 'resource')}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `{ format_version, valid, error_count, warning_count, accounts: [{ name, …the validate report }] }`. */
export function renderAccountsValidationJson(accounts: readonly AccountValidation[]): string {
  const errors = accounts.reduce((sum, account) => sum + account.summary.errorCount, 0);
  const report = {
    format_version: validateReportVersion,
    valid: errors === 0,
    error_count: errors,
    warning_count: accounts.reduce((sum, account) => sum + account.summary.warningCount, 0),
    accounts: accounts.map((account) => ({
      name: account.name,
      ...(JSON.parse(renderValidationJson(account.summary)) as Record<string, unknown>),
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** One summary of every account's problems, each message naming its account (for CI annotations). */
export function mergeAccountValidations(accounts: readonly AccountValidation[]): ValidationSummary {
  const problems: Problem[] = accounts.flatMap((account) =>
    account.summary.problems.map((problem) => ({
      ...problem,
      message: `[account ${account.name}] ${problem.message}`,
    })),
  );
  return {
    problems,
    errorCount: accounts.reduce((sum, account) => sum + account.summary.errorCount, 0),
    warningCount: accounts.reduce((sum, account) => sum + account.summary.warningCount, 0),
    resourceCount: accounts.reduce((sum, account) => sum + account.summary.resourceCount, 0),
    files: [...new Set(accounts.flatMap((account) => account.summary.files))],
  };
}
