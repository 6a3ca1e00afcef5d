// The report of a many-account run where CI shows it: each account's annotations (its error, the
// registry refusals and findings of its plan, what its apply did not do), each message naming the
// account, as GitHub workflow commands or a GitLab code-quality report. Names and messages come from
// the accounts file, the live accounts or a report file anyone could have written: escaped.
import type { AccountOutcome, AccountsReport } from './accounts-report.js';
import { headline, statusWord } from './accounts.js';
import { githubAnnotation, gitlabReport, planAnnotations, type PlanAnnotation } from './plan-annotations.js';
import { printable } from '../util/printable.js';

/** Every annotation of one account, its name in front of each message. */
function accountAnnotations(command: AccountsReport['command'], account: AccountOutcome): PlanAnnotation[] {
  const named = (message: string) => printable(`[account ${account.name}] ${message}`);
  const annotations: PlanAnnotation[] = [];
  if (account.error)
    annotations.push({
      severity: 'error',
      check: 'account',
      message: named(`${account.error.code}: ${account.error.message}`),
    });
  if (account.plan) {
    for (const annotation of planAnnotations(account.plan))
      annotations.push({ ...annotation, message: named(annotation.message) });
  }
  // An apply's problems are the changes it did not make; an error's are what it says more (invalid manifests).
  const check = account.error ? 'account' : command;
  for (const problem of account.problems ?? []) annotations.push({ severity: 'error', check, message: named(problem) });
  return annotations;
}

function annotations(report: AccountsReport): PlanAnnotation[] {
  return report.accounts.flatMap((account) => accountAnnotations(report.command, account));
}

/** One workflow command per annotation, then the report's headline and a line per account for the log. */
export function renderAccountsGithub(report: AccountsReport): string {
  const lines = annotations(report).map(githubAnnotation);
  lines.push(headline(report));
  for (const account of report.accounts)
    lines.push(`  ${printable(account.name)}: ${printable(statusWord(account.status))}: ${printable(account.summary)}`);
  return `${lines.join('\n')}\n`;
}

/** GitLab's code-quality report of the same annotations. */
export function renderAccountsGitlab(report: AccountsReport): string {
  return gitlabReport(annotations(report));
}
