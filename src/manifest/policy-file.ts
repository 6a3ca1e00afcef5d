// Policy files: rules written as CEL expressions (the language of Kubernetes admission policies) over
// each planned change and its resource. Loading compiles every expression, so a syntax error is
// reported at its file, line and column before the account is read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ParseError, type ParseResult } from '@marcbachmann/cel-js';
import { compileCel } from './policy-cel.js';
import { estimateCost, policyCostBudget } from './policy-cost.js';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type Scalar, type YAMLMap } from 'yaml';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { didYouMean } from '../util/suggest.js';

export interface PolicyRule {
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** Compiled `expression`: true when the change complies. */
  expression: CompiledExpression;
  /** Compiled `match`: the rule applies only to changes for which it is true (all when absent). */
  match?: CompiledExpression;
  /** The policy file, as given. */
  file: string;
  place: SourcePlace;
}

export interface CompiledExpression {
  run: ParseResult;
  /** Where offset `n` of the expression is in the file. */
  placeAt(offset: number): SourcePlace;
}

const severities = new Set(['error', 'warning', 'info']);

/** A `policy_invalid` error at a place of the file (the CLI prints the place before the message). */
function fail(file: string, place: SourcePlace | undefined, message: string): never {
  throw new TelformError(
    'policy_invalid',
    place ? message : `${file}: ${message}`,
    place ? { place: { source: place } } : {},
  );
}

/**
 * Where each character of a scalar's text is in the file: a plain or quoted scalar on one line is
 * shifted by its opening quote; a block scalar (`|`, `>`) starts on the line after its header, at
 * its indentation.
 */
function locator(file: string, source: string, counter: LineCounter, node: Scalar): (offset: number) => SourcePlace {
  const start = node.range?.[0] ?? 0;
  const value = String(node.value);
  const at = (index: number): SourcePlace => {
    const position = counter.linePos(index);
    return { file, line: position.line, column: position.col };
  };
  if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    const firstLine = source.indexOf('\n', start) + 1;
    const indent = /^[ ]*/.exec(source.slice(firstLine))?.[0].length ?? 0;
    return (offset) => {
      const before = value.slice(0, offset).split('\n');
      const line = before.length - 1;
      let lineStart = firstLine;
      for (let index = 0; index < line; index += 1) lineStart = source.indexOf('\n', lineStart) + 1;
      return at(lineStart + indent + (before[line]?.length ?? 0));
    };
  }
  const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
  return (offset) => at(start + quoted + offset);
}

/** Compiles one CEL field of a policy file (an approval rule's `match` too), within the cost budget. */
export function compilePolicyExpression(
  file: string,
  source: string,
  counter: LineCounter,
  node: Node | null,
  field: string,
  ruleId: string,
): CompiledExpression {
  if (!isScalar(node) || typeof node.value !== 'string' || node.value.trim() === '') {
    const place = node?.range ? { file, ...linePlace(counter, node.range[0]) } : undefined;
    fail(file, place, `rule ${ruleId}: ${field} must be a CEL expression (a string)`);
  }
  const placeAt = locator(file, source, counter, node);
  let run: CompiledExpression['run'];
  try {
    run = compileCel(node.value);
  } catch (error) {
    if (error instanceof ParseError)
      fail(file, placeAt(error.range?.start ?? 0), `rule ${ruleId}: ${field}: ${error.summary}`);
    throw error;
  }
  const cost = estimateCost((run as { ast?: unknown }).ast);
  if (cost > policyCostBudget) {
    throw new TelformError(
      'policy_failed',
      `rule ${ruleId}: ${field} would take about ${cost.toExponential(1)} steps per change, over the budget of ${policyCostBudget.toLocaleString('en-US')} a rule may take: nest fewer comprehensions (all, exists, map, filter)`,
      { place: { source: placeAt(0) } },
    );
  }
  return { run, placeAt };
}

function linePlace(counter: LineCounter, offset: number): { line: number; column: number } {
  const position = counter.linePos(offset);
  return { line: position.line, column: position.col };
}

/** A policy file read and its shape checked: its text, where each offset is, and its top-level mapping. */
interface PolicyDocument {
  file: string;
  source: string;
  counter: LineCounter;
  root: YAMLMap;
  /** The place of a node of the file (its first line when the node has none). */
  placeOfNode(node: Node | null | undefined): SourcePlace;
}

/**
 * The one reader of a policy file, for its CEL `rules` (below) and its approval rules, freezes and
 * people (approval-policy.ts): `apiVersion: telform/v1`, `kind: Policy`, and only the known top-level
 * keys. Any problem is a `policy_invalid` error naming the file, line and column.
 */
export async function readPolicyDocument(file: string, cwd: string): Promise<PolicyDocument> {
  let source: string;
  try {
    source = await readFile(path.resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new TelformError(
      'policy_invalid',
      `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const counter = new LineCounter();
  const document = parseDocument(source, { lineCounter: counter, prettyErrors: false });
  const syntax = document.errors[0];
  if (syntax)
    fail(
      file,
      { file, ...linePlace(counter, syntax.pos[0]) },
      `not valid YAML: ${syntax.message.split('\n')[0] ?? ''}`,
    );
  const root = document.contents;
  const placeOfNode = (node: Node | null | undefined): SourcePlace =>
    node?.range ? { file, ...linePlace(counter, node.range[0]) } : { file, line: 1, column: 1 };
  if (!isMap(root)) fail(file, placeOfNode(root), 'a policy file is a mapping with apiVersion, kind: Policy and rules');
  if (String(root.get('kind')) !== 'Policy' || String(root.get('apiVersion')) !== 'telform/v1')
    fail(file, placeOfNode(root), 'a policy file starts with apiVersion: telform/v1 and kind: Policy');
  // A misspelt key (`rule:`, `rulez:`) would otherwise be skipped silently, with its rules never run.
  // `people`, `approvals` and `freeze` are read by approval-policy.ts (docs/approvals.md).
  const topLevel = ['apiVersion', 'kind', 'metadata', 'rules', 'people', 'approvals', 'freeze'];
  for (const pair of root.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!topLevel.includes(name))
      fail(
        file,
        placeOfNode(pair.key as Node),
        `unknown field ${JSON.stringify(name)}${didYouMean(name, topLevel)} (a policy file holds ${topLevel.join(', ')})`,
      );
  }
  return { file, source, counter, root, placeOfNode };
}

/**
 * The CEL rules of a policy file: `rules`, each with `id`, `severity` (`error`, `warning` or `info`),
 * `message` and `expression` (optionally `match`).
 */
export async function loadPolicyFile(file: string, cwd: string): Promise<PolicyRule[]> {
  const { source, counter, root, placeOfNode } = await readPolicyDocument(file, cwd);
  const rules = root.get('rules', true);
  // A file of approval rules alone has no CEL rules to run.
  if (rules === undefined && (root.has('approvals') || root.has('freeze'))) return [];
  if (!isSeq(rules) || rules.items.length === 0)
    fail(file, placeOfNode((rules as Node | undefined) ?? root), 'rules must be a list of at least one rule');
  const seen = new Set<string>();
  return rules.items.map((item) => {
    if (!isMap(item))
      fail(file, placeOfNode(item as Node), 'each rule is a mapping with id, severity, message and expression');
    const id = item.get('id');
    if (typeof id !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(id))
      fail(file, placeOfNode(item), 'each rule needs an id in kebab-case, e.g. outbound-trunks-secure');
    if (seen.has(id)) fail(file, placeOfNode(item), `rule id ${id} is used twice`);
    seen.add(id);
    const severity = item.get('severity') ?? 'error';
    if (typeof severity !== 'string' || !severities.has(severity))
      fail(
        file,
        placeOfNode(item.get('severity', true) as Node),
        `rule ${id}: severity must be error, warning or info`,
      );
    const message = item.get('message');
    if (typeof message !== 'string' || message.trim() === '')
      fail(file, placeOfNode(item), `rule ${id}: message must say what the rule asks`);
    for (const key of item.items) {
      const name = isScalar(key.key) ? String(key.key.value) : '';
      if (!['id', 'severity', 'message', 'expression', 'match'].includes(name))
        fail(
          file,
          placeOfNode(key.key as Node),
          `rule ${id}: unknown field ${name} (fields: id, severity, message, match, expression)`,
        );
    }
    const rule: PolicyRule = {
      id,
      severity: severity as PolicyRule['severity'],
      message,
      expression: compilePolicyExpression(
        file,
        source,
        counter,
        item.get('expression', true) as Node | null,
        'expression',
        id,
      ),
      file,
      place: placeOfNode(item),
    };
    if (item.has('match'))
      rule.match = compilePolicyExpression(file, source, counter, item.get('match', true) as Node | null, 'match', id);
    return rule;
  });
}

/** Every rule of every policy file, in order; rule ids must be unique across files. */
export async function loadPolicies(files: readonly string[], cwd: string): Promise<PolicyRule[]> {
  const rules: PolicyRule[] = [];
  for (const file of files) {
    for (const rule of await loadPolicyFile(file, cwd)) {
      const first = rules.find((other) => other.id === rule.id);
      if (first) fail(file, rule.place, `rule id ${rule.id} is already defined in ${first.file}:${first.place.line}`);
      rules.push(rule);
    }
  }
  return rules;
}
