// The CEL environment of policies and test assertions, and how an expression is compiled in it.
//
// CEL gives `matches()` RE2 semantics; the CEL library runs it on JavaScript's own regular
// expressions, which backtrack: `^(a+)+$` against 30 characters of live text takes minutes, outside
// any cost budget, and a rule over a campaign description could hang `plan` or `serve`. The library
// lets no built-in overload be replaced, so each compiled expression's `.matches(…)` calls are
// pointed at an overload of our own that runs RE2 (linear in its input, no back-references).
import { Environment, EvaluationError, type ParseResult } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { isNode } from './policy-cost.js';

/**
 * Every rule's environment: variables are maps and lists of dynamic values (docs/policies.md lists
 * them); lists and maps written in a rule may mix types.
 */
const policyEnvironment = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
});

/** The name the rewritten calls use; messages say `matches` again (see `compileCel`). */
const linearMatches = 'matches_re2';

/** A bounded memo of compiled patterns: a rule evaluated on each change of a plan compiles its pattern once. */
const compiled = new Map<string, RE2JS>();

function patternOf(source: string): RE2JS {
  let pattern = compiled.get(source);
  if (pattern) return pattern;
  try {
    pattern = RE2JS.compile(source);
  } catch (error) {
    throw new EvaluationError(`Invalid regular expression: ${source} (${(error as Error).message})`);
  }
  if (compiled.size >= 256) compiled.clear();
  compiled.set(source, pattern);
  return pattern;
}

policyEnvironment.registerFunction(`string.${linearMatches}(string): bool`, (text: string, source: string) =>
  // CEL's matches() is true when the pattern matches any part of the string.
  patternOf(source).test(text),
);

/** Points every `x.matches(y)` of a syntax tree at the linear-time overload. */
function useLinearMatches(value: unknown, seen = new Set<unknown>()): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (isNode(value)) {
    const args = value.args;
    if (value.op === 'rcall' && Array.isArray(args) && args[0] === 'matches') args[0] = linearMatches;
    useLinearMatches(args, seen);
    return;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value)) useLinearMatches(child, seen);
}

/**
 * Compiles one expression (throws the library's `ParseError` on bad syntax). Evaluating it throws
 * the library's errors, with the rewritten name said as `matches`.
 */
export function compileCel(text: string): ParseResult {
  const parsed = policyEnvironment.parse(text);
  useLinearMatches((parsed as { ast?: unknown }).ast);
  const run = ((context?: Parameters<ParseResult>[0]) => {
    try {
      return parsed(context);
    } catch (error) {
      if (error instanceof Error && error.message.includes(linearMatches))
        error.message = error.message.replaceAll(linearMatches, 'matches');
      throw error;
    }
  }) as ParseResult;
  return Object.assign(run, { ast: parsed.ast, check: parsed.check });
}
