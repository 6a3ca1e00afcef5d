import type { JsonValue, SourcePlace } from '../util/errors.js';
import type { Problem } from './problems.js';

/**
 * The `validate` report, as text for people and JSON for editors and CI. Pure
 * functions of the problems: no I/O, like the plan renderers.
 */

export interface ValidationSummary {
  problems: readonly Problem[];
  errorCount: number;
  warningCount: number;
  resourceCount: number;
  files: readonly string[];
}

/** Version of the JSON report's shape; bumped on any incompatible change. */
export const validateReportVersion = 1;

function formatSource(source: SourcePlace | undefined): string {
  if (!source) return '';
  return source.line > 0 ? `${source.file}:${source.line}:${source.column}` : source.file;
}

/** `file:line:col  Kind/name  field: message`, with `warning: ` before the message of a warning. */
export function formatProblem(problem: Problem): string {
  const parts = [formatSource(problem.source), problem.address ?? ''].filter((part) => part !== '');
  const message = problem.severity === 'warning' ? `warning: ${problem.message}` : problem.message;
  parts.push(problem.field ? `${problem.field}: ${message}` : message);
  return parts.join('  ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export function renderValidationText(summary: ValidationSummary): string {
  const lines = summary.problems.map(formatProblem);
  const where = `${plural(summary.resourceCount, 'resource')} in ${plural(summary.files.length, 'file')}`;
  if (summary.errorCount > 0) {
    lines.push(
      `invalid: ${plural(summary.errorCount, 'error')}, ${plural(summary.warningCount, 'warning')} in ${plural(summary.files.length, 'file')}`,
    );
  } else {
    lines.push(`valid: ${where}${summary.warningCount > 0 ? `, ${plural(summary.warningCount, 'warning')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function placeJson(source: SourcePlace | undefined): JsonValue {
  if (!source) return null;
  return {
    file: source.file,
    line: source.line > 0 ? source.line : null,
    column: source.line > 0 ? source.column : null,
  };
}

export function renderValidationJson(summary: ValidationSummary): string {
  const report: JsonValue = {
    format_version: validateReportVersion,
    valid: summary.errorCount === 0,
    error_count: summary.errorCount,
    warning_count: summary.warningCount,
    resource_count: summary.resourceCount,
    files: [...summary.files],
    problems: summary.problems.map((problem) => ({
      severity: problem.severity,
      code: problem.code,
      file: problem.source?.file ?? null,
      line: problem.source && problem.source.line > 0 ? problem.source.line : null,
      column: problem.source && problem.source.line > 0 ? problem.source.column : null,
      address: problem.address ?? null,
      field: problem.field ?? null,
      message: problem.message,
      related: placeJson(problem.related),
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
