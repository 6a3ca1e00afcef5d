// The report of `telform test` (docs/testing.md) and its two renderers: text for a terminal and JUnit
// XML for CI. The test-run operation (src/run) builds the report; these print it and do no I/O.
import { printable } from '../util/printable.js';

export interface TestFailure {
  /** 1-based. */
  step: number;
  stepName: string;
  /** The assertion's CEL text, or the check that failed (`expect_converged`, `findings`, …). */
  assertion?: string;
  message: string;
  /** What the assertion saw (`expression = value` lines), or what the failed action said. */
  values: string[];
}

export interface TestCaseResult {
  name: string;
  status: 'passed' | 'failed';
  steps: number;
  failure?: TestFailure;
}

interface TestFileResult {
  file: string;
  tests: TestCaseResult[];
}

export interface TestReport {
  files: TestFileResult[];
}

export function testTotals(report: TestReport): { tests: number; passed: number; failed: number } {
  const tests = report.files.flatMap((file) => file.tests);
  const failed = tests.filter((test) => test.status === 'failed').length;
  return { tests: tests.length, passed: tests.length - failed, failed };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** What failed, as lines (the text report indents them; JUnit puts them in the failure's body). */
function failureLines(failure: TestFailure): string[] {
  const lines = [`step ${failure.step} (${printable(failure.stepName)}): ${printable(failure.message)}`];
  if (failure.assertion !== undefined) lines.push(`assertion: ${printable(failure.assertion)}`);
  // An assertion's values are what it saw; a failed action's are what the operation said (the manifests' problems).
  for (const value of failure.values)
    lines.push(`${failure.assertion === undefined ? '  ' : 'saw: '}${printable(value)}`);
  return lines;
}

export function renderTestText(report: TestReport): string {
  const lines: string[] = [];
  for (const file of report.files) {
    lines.push(printable(file.file));
    for (const test of file.tests) {
      lines.push(
        `  ${test.status === 'passed' ? 'ok  ' : 'FAIL'}  ${printable(test.name)} (${plural(test.steps, 'step')})`,
      );
      if (test.failure) lines.push(...failureLines(test.failure).map((line) => `        ${line}`));
    }
  }
  const totals = testTotals(report);
  lines.push('', `${plural(totals.tests, 'test')}: ${totals.passed} passed, ${totals.failed} failed`);
  return `${lines.join('\n')}\n`;
}

/** XML 1.0 text: the five escapes, and characters XML cannot hold at all written as \u escapes. */
function xml(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** JUnit XML: one testsuite per file, one testcase per test, a failure with its message and what it saw. */
export function renderTestJunit(report: TestReport): string {
  const totals = testTotals(report);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="telform test" tests="${totals.tests}" failures="${totals.failed}">`,
  ];
  for (const file of report.files) {
    const failures = file.tests.filter((test) => test.status === 'failed').length;
    lines.push(`  <testsuite name="${xml(file.file)}" tests="${file.tests.length}" failures="${failures}">`);
    for (const test of file.tests) {
      const open = `    <testcase classname="${xml(file.file)}" name="${xml(test.name)}"`;
      if (!test.failure) {
        lines.push(`${open}/>`);
        continue;
      }
      const { failure } = test;
      // The message alone should say what failed: the step, and the assertion when there is one.
      const message = `step ${failure.step} (${printable(failure.stepName)}): ${printable(failure.message)}${failure.assertion === undefined ? '' : `: ${printable(failure.assertion)}`}`;
      lines.push(
        `${open}>`,
        `      <failure message="${xml(message)}">${xml(failureLines(failure).join('\n'))}</failure>`,
        '    </testcase>',
      );
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
