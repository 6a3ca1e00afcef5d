import type { SourcePlace } from '../util/errors.js';

/**
 * A problem found while loading or validating manifests. Validation collects every problem before
 * reporting: nothing here throws for bad input.
 *
 * Messages are one sentence without the place (the formatter adds `file:line:col  Kind/name  field:`)
 * and never contain a secret value.
 */
export type Severity = 'error' | 'warning';

/** Stable problem codes, for `--format json` consumers and tests. */
export type ProblemCode =
  | 'file_unreadable'
  | 'file_too_large'
  | 'file_not_text'
  | 'no_manifests'
  | 'yaml_syntax'
  | 'yaml_warning'
  | 'yaml_alias'
  | 'yaml_too_deep'
  | 'yaml_key'
  | 'not_a_mapping'
  | 'unknown_field'
  | 'missing_field'
  | 'invalid_type'
  | 'invalid_value'
  | 'invalid_format'
  | 'too_short'
  | 'too_long'
  | 'too_small'
  | 'too_large'
  | 'rule'
  | 'duplicate_name'
  | 'duplicate_value'
  | 'duplicate_member'
  | 'ref_missing'
  | 'out_of_scope'
  | 'ref_wrong_kind'
  | 'ref_unsuitable'
  | 'ref_cycle'
  | 'move_invalid'
  | 'literal_secret'
  | 'secret_unresolved'
  | 'secret_source'
  | 'secret_rule'
  | 'value_missing'
  | 'value_secret'
  | 'value_unused'
  | 'advice'
  | 'held_value'
  | 'lint';

export interface Problem {
  severity: Severity;
  code: ProblemCode;
  message: string;
  /** Where; absent only when the problem is about the whole input (no manifests at all). */
  source?: SourcePlace;
  /** `Kind/name` when the problem belongs to one resource. */
  address?: string;
  /** Dotted path of the field, e.g. `spec.entries[0].ip`. */
  field?: string;
  /** A second place the message names (the first definition of a duplicate, the target of a ref). */
  related?: SourcePlace;
}

/** Collects problems in the order found; `sorted()` gives the order they are reported in. */
export class ProblemList {
  readonly #items: Problem[] = [];
  #errors = 0;

  add(problem: Problem): void {
    this.#items.push(problem);
    if (problem.severity === 'error') this.#errors++;
  }

  error(code: ProblemCode, message: string, where: Omit<Problem, 'severity' | 'code' | 'message'> = {}): void {
    this.add({ severity: 'error', code, message, ...where });
  }

  warning(code: ProblemCode, message: string, where: Omit<Problem, 'severity' | 'code' | 'message'> = {}): void {
    this.add({ severity: 'warning', code, message, ...where });
  }

  get errorCount(): number {
    return this.#errors;
  }

  get size(): number {
    return this.#items.length;
  }

  /**
   * Problems by file (in the order files were given), then line, column and message; problems
   * without a place first. Deterministic, so reports can be compared whole in tests.
   */
  sorted(fileOrder: readonly string[]): Problem[] {
    // Most lists checked per document are empty: nothing to order.
    if (this.#items.length < 2) return [...this.#items];
    const rank = new Map(fileOrder.map((file, index) => [file, index]));
    return [...this.#items].sort((a, b) => compareProblems(a, b, rank));
  }
}

function compareProblems(a: Problem, b: Problem, rank: ReadonlyMap<string, number>): number {
  if (!a.source || !b.source) return (a.source ? 1 : 0) - (b.source ? 1 : 0) || compareStrings(a.message, b.message);
  const byFile =
    (rank.get(a.source.file) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.source.file) ?? Number.MAX_SAFE_INTEGER);
  if (byFile !== 0) return byFile;
  if (a.source.file !== b.source.file) return a.source.file < b.source.file ? -1 : 1;
  return (
    a.source.line - b.source.line ||
    a.source.column - b.source.column ||
    compareStrings(a.field ?? '', b.field ?? '') ||
    compareStrings(a.message, b.message)
  );
}

/** Code-unit order: the same on every machine, unlike `localeCompare`. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
