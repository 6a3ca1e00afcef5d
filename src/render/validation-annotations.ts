import { createHash } from 'node:crypto';
import type { Problem } from '../manifest/problems.js';
import { formatProblem, type ValidationSummary } from '../manifest/report.js';
import { printable } from '../util/printable.js';

/**
 * Validation problems where CI shows them on the change under review: GitHub workflow commands
 * (`::error file=…,line=…,col=…::…`, shown on the pull request's diff) and a GitLab code-quality
 * report (shown in the merge request). Pure functions of the summary, like the other renderers.
 */

/**
 * Workflow-command escaping: `%`, CR and LF in the message; also `:` and `,` in property values.
 * Other control and bidi characters (a manifest is written by the pull request's author) are
 * escaped as in every other output, so the log shows them instead of obeying them.
 */
export function escapeData(text: string): string {
  return printable(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function githubLine(problem: Problem): string {
  const properties: string[] = [];
  if (problem.source) {
    properties.push(`file=${escapeProperty(problem.source.file)}`);
    if (problem.source.line > 0) properties.push(`line=${problem.source.line}`, `col=${problem.source.column}`);
  }
  properties.push(`title=${escapeProperty(`telform ${problem.code}`)}`);
  const message = [problem.address, problem.field ? `${problem.field}: ${problem.message}` : problem.message]
    .filter(Boolean)
    .join('  ');
  return `::${problem.severity === 'error' ? 'error' : 'warning'} ${properties.join(',')}::${escapeData(message)}`;
}

/** One workflow command per problem, then the usual one-line verdict for the log. */
export function renderValidationGithub(summary: ValidationSummary): string {
  const lines = summary.problems.map(githubLine);
  lines.push(
    summary.errorCount > 0
      ? `invalid: ${summary.errorCount} error(s), ${summary.warningCount} warning(s)`
      : `valid: ${summary.resourceCount} resource(s)`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * GitLab's code-quality report: a JSON array of issues with a stable fingerprint (so GitLab can tell
 * a problem fixed from one still there between the base and the merge request).
 */
export function renderValidationGitlab(summary: ValidationSummary): string {
  const issues = summary.problems.map(({ source, ...problem }) => ({
    // The place is in `location`; the description is the problem without it.
    description: formatProblem(problem),
    check_name: problem.code,
    fingerprint: createHash('sha256')
      .update(
        [problem.code, source?.file ?? '', problem.address ?? '', problem.field ?? '', problem.message].join('\u0000'),
      )
      .digest('hex'),
    severity: problem.severity === 'error' ? 'major' : 'minor',
    location: { path: source?.file ?? '', lines: { begin: source && source.line > 0 ? source.line : 1 } },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
