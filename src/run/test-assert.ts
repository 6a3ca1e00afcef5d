// The assertions of `telform test`: CEL expressions (the policies' environment) over what a test's steps
// saw. A false assertion is explained with the values of its parts: the first false term of an `&&`,
// and each side of a comparison, so a failure says what the account and the plan held.
import { EvaluationError } from '@marcbachmann/cel-js';
import type { Assertion } from '../manifest/test-file.js';
import { compileCel } from '../manifest/policy-cel.js';
import { toCel } from '../manifest/policy-eval.js';

interface CelNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  input: string;
}

interface AssertionOutcome {
  passed: boolean;
  /** Why it failed: `false`, or the evaluation error. */
  message: string;
  values: string[];
}

const comparisons = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);
const longestValue = 400;

/** A CEL value as JSON-like text (ints are BigInt in CEL), cut to a readable length. */
function showValue(value: unknown): string {
  const text =
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'bigint' ? Number(item) : item instanceof Map ? Object.fromEntries(item) : item,
    ) ?? String(value);
  return text.length > longestValue ? `${text.slice(0, longestValue)}…` : text;
}

function isNode(value: unknown): value is CelNode {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { op?: unknown }).op === 'string' &&
    typeof (value as { start?: unknown }).start === 'number'
  );
}

function childrenOf(node: CelNode): CelNode[] {
  return Array.isArray(node.args) ? node.args.filter(isNode) : [];
}

/** Whether a part reads a variable: a literal (`1`, `[]`, `"x"`) is shown in the assertion already. */
function readsVariables(node: CelNode): boolean {
  return node.op === 'id' || childrenOf(node).some(readsVariables);
}

function textOf(node: CelNode): string {
  return node.input.slice(node.start, node.end);
}

function evaluate(text: string, context: Record<string, unknown>): unknown {
  return compileCel(text)(context);
}

/** The parts of a false expression worth showing. */
function explain(node: CelNode, context: Record<string, unknown>): string[] {
  if (node.op === '&&') {
    for (const child of childrenOf(node)) {
      if (evaluate(textOf(child), context) === false) return explain(child, context);
    }
    return [];
  }
  if (comparisons.has(node.op)) {
    return childrenOf(node)
      .filter(readsVariables)
      .map((child) => `${textOf(child)} = ${showValue(evaluate(textOf(child), context))}`);
  }
  return [];
}

/** The variables an assertion sees, made CEL values (whole numbers as ints). */
export function assertionContext(variables: Record<string, unknown>): Record<string, unknown> {
  return toCel(variables) as Record<string, unknown>;
}

export function checkAssertion(assertion: Assertion, context: Record<string, unknown>): AssertionOutcome {
  let result: unknown;
  try {
    result = assertion.compiled.run(context);
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    return { passed: false, message: `the assertion could not be evaluated: ${error.summary}`, values: [] };
  }
  if (typeof result !== 'boolean')
    return {
      passed: false,
      message: `the assertion must give true or false, and gave ${showValue(result)}`,
      values: [],
    };
  if (result) return { passed: true, message: '', values: [] };
  const ast = (assertion.compiled.run as { ast?: unknown }).ast;
  let values: string[] = [];
  try {
    values = isNode(ast) ? explain(ast, context) : [];
  } catch (error) {
    // A part that fails alone (a key only the other side of an `||` guards) is not worth a second error.
    if (!(error instanceof EvaluationError)) throw error;
  }
  return { passed: false, message: 'assertion failed', values };
}
