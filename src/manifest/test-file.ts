// Test files (`telform test`, docs/testing.md): YAML beside the manifests, named `*.tftest.yaml`, each
// holding tests made of steps (apply, plan, drift, advance the registry clock, set faults, change an
// object out of band) and CEL assertions. Loading checks the whole file and compiles every assertion
// with the policies' CEL environment and cost budget, so a bad file is one error naming its line
// before any emulator starts.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ParseError } from '@marcbachmann/cel-js';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type YAMLMap } from 'yaml';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { didYouMean } from '../util/suggest.js';
import { estimateCost, policyCostBudget } from './policy-cost.js';
import { type CompiledExpression } from './policy-file.js';
import { compileCel } from './policy-cel.js';
import { parseDuration } from '../util/duration.js';
import { catalog } from '../resources/index.js';
import { decidedKinds } from '../resources/registration.js';

/** The exit code of `telform test` for a test file it cannot run. */
const badTestFileExitCode = 2;

export interface Assertion {
  /** The CEL text as written. */
  source: string;
  compiled: CompiledExpression;
}

/** Approvals an apply step gives (the flags of `telform apply`). */
interface StepApprovals {
  allowIrreversible: string[];
  maxCost?: number;
}

type StepAction =
  | { kind: 'apply'; manifests?: string[]; approvals: StepApprovals }
  | { kind: 'plan'; manifests?: string[] }
  | { kind: 'drift'; manifests?: string[] }
  /** Moves the emulator's clock (registry decisions) by `ms`; `text` is how it was written. */
  | { kind: 'advance'; ms: number; text: string }
  /** Faults in the `--faults` syntax of `telform emulator`, or `none`. */
  | { kind: 'fault'; spec: string }
  /** A rate limit in the `--rate-limit` syntax, or `none`: requests past it are answered 429. */
  | { kind: 'rate_limit'; spec: string }
  /** The registry approves or declines an object of a vetted kind (a brand, a campaign) still under review, now. */
  | { kind: 'decide'; decision: 'approve' | 'decline'; address: string }
  /** A request sent to the API as someone else would; `{Kind/name}` in the path is that object's id. */
  | { kind: 'out_of_band'; method: 'POST' | 'DELETE'; path: string; body?: Record<string, unknown> };

interface FindingExpectation {
  rule: string;
  address?: string;
}

export interface TestStep {
  /** The step's name as written, else its action (`apply`, `advance 1h`, …). */
  name: string;
  action: StepAction;
  assertions: Assertion[];
  /** Apply only: check that the plan right after it is empty (default true). */
  expectConverged: boolean;
  /** The step must end in an error (a refused or failed apply, manifests that do not load). */
  expectError: boolean;
  /** Plan and apply: findings the step's plan must hold. */
  findings: FindingExpectation[];
  /** Plan and apply: findings it must not hold (no address: on no resource). */
  noFindings: FindingExpectation[];
  place: SourcePlace;
}

export interface TestCase {
  name: string;
  manifests: string[];
  steps: TestStep[];
  place: SourcePlace;
}

export interface TestFile {
  /** As given (relative to where telform runs), for the report. */
  file: string;
  /** The folder the file's paths are relative to. */
  folder: string;
  /** A snapshot (`telform snapshot`) the emulator starts each test from; none: a new account. */
  start?: string;
  env: Record<string, string>;
  policies: string[];
  tests: TestCase[];
}

const stepActions = [
  'apply',
  'plan',
  'drift',
  'advance',
  'approve',
  'decline',
  'fault',
  'rate_limit',
  'out_of_band',
] as const;
const stepKeys = ['name', 'assert', 'expect_converged', 'expect_error', 'findings', 'no_findings', ...stepActions];
const fileKeys = ['apiVersion', 'kind', 'manifests', 'env', 'start', 'policies', 'tests'];
const testKeys = ['name', 'manifests', 'steps'];

/**
 * What only the emulator can check in a test file: a `fault:` or `rate_limit:` spec it would refuse,
 * a `start:` snapshot it would not load. The CLI passes them in (this layer knows no emulator); each
 * answers what is wrong, or undefined. Without them those are found when the step runs.
 */
export interface TestFileChecks {
  fault(spec: string): string | undefined;
  rateLimit(spec: string): string | undefined;
  start(file: string): Promise<string | undefined>;
}

class Reader {
  constructor(
    readonly file: string,
    private readonly counter: LineCounter,
    readonly checks?: TestFileChecks,
  ) {}

  placeOf(node: Node | null | undefined): SourcePlace {
    const position = this.counter.linePos(node?.range?.[0] ?? 0);
    return { file: this.file, line: position.line, column: position.col };
  }

  fail(node: Node | null | undefined, message: string): never {
    throw new TelformError('test_invalid', message, {
      place: { source: this.placeOf(node) },
      exitCode: badTestFileExitCode,
    });
  }

  map(node: Node | null | undefined, what: string): YAMLMap<unknown, unknown> {
    if (!isMap(node)) this.fail(node, `${what} must be a mapping`);
    return node;
  }

  keys(node: YAMLMap<unknown, unknown>, allowed: readonly string[], what: string): void {
    for (const pair of node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!allowed.includes(name))
        this.fail(
          pair.key as Node,
          `${what}: unknown field ${JSON.stringify(name)}${didYouMean(name, allowed)} (fields: ${allowed.join(', ')})`,
        );
    }
  }

  text(node: Node | null | undefined, what: string): string {
    if (!isScalar(node) || typeof node.value !== 'string' || node.value.trim() === '')
      this.fail(node, `${what} must be a non-empty string`);
    return node.value;
  }

  texts(node: Node | null | undefined, what: string): string[] {
    if (isScalar(node)) return [this.text(node, what)];
    if (!isSeq(node) || node.items.length === 0) this.fail(node, `${what} must be a path or a list of paths`);
    return node.items.map((item) => this.text(item as Node, what));
  }

  boolean(node: Node | null | undefined, what: string): boolean {
    if (!isScalar(node) || typeof node.value !== 'boolean') this.fail(node, `${what} must be true or false`);
    return node.value;
  }

  assertion(node: Node | null | undefined, what: string): Assertion {
    const text = this.text(node, what);
    const scalar = node as Node & { value: string; type?: string };
    const start = scalar.range?.[0] ?? 0;
    const quoted = scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE' ? 1 : 0;
    // Block scalars are placed at their first line: an assertion is short, and its line is what a reader needs.
    const placeAt = (offset: number): SourcePlace => {
      const single = scalar.type !== 'BLOCK_LITERAL' && scalar.type !== 'BLOCK_FOLDED';
      const position = this.counter.linePos(single ? start + quoted + offset : start);
      return { file: this.file, line: position.line, column: position.col };
    };
    let run: CompiledExpression['run'];
    try {
      run = compileCel(text);
    } catch (error) {
      if (error instanceof ParseError) {
        throw new TelformError('test_invalid', `${what}: ${error.summary}`, {
          place: { source: placeAt(error.range?.start ?? 0) },
          exitCode: badTestFileExitCode,
        });
      }
      throw error;
    }
    const cost = estimateCost((run as { ast?: unknown }).ast);
    if (cost > policyCostBudget) {
      this.fail(
        node,
        `${what} would take about ${cost.toExponential(1)} steps, over the budget of ${policyCostBudget.toLocaleString('en-US')} an expression may take: nest fewer comprehensions`,
      );
    }
    return { source: text.trim(), compiled: { run, placeAt } };
  }
}

/** `90s`, `10m`, `1h`, `2d`, `500ms`, or a whole number of milliseconds. */
function readDuration(reader: Reader, node: Node | null | undefined): { ms: number; text: string } {
  if (isScalar(node) && typeof node.value === 'number' && Number.isInteger(node.value) && node.value >= 0)
    return { ms: node.value, text: `${node.value}ms` };
  const text = isScalar(node) && typeof node.value === 'string' ? node.value.trim() : '';
  const ms = parseDuration(text);
  if (ms === undefined) reader.fail(node, 'advance must be a duration such as 90s, 10m, 1h or 2d');
  return { ms, text };
}

function readFindings(reader: Reader, node: Node | null | undefined, what: string): FindingExpectation[] {
  if (!isSeq(node)) reader.fail(node, `${what} must be a list of { rule, address }`);
  return node.items.map((item) => {
    const entry = reader.map(item as Node, `each of ${what}`);
    reader.keys(entry, ['rule', 'address'], what);
    const rule = reader.text(entry.get('rule', true) as Node, `${what}: rule`);
    return entry.has('address')
      ? { rule, address: reader.text(entry.get('address', true) as Node, `${what}: address`) }
      : { rule };
  });
}

function readAction(reader: Reader, step: YAMLMap<unknown, unknown>, name: (typeof stepActions)[number]): StepAction {
  const node = step.get(name, true) as Node | null;
  switch (name) {
    case 'apply':
    case 'plan':
    case 'drift': {
      // `apply:` alone (null) or `apply: {}` takes the test's manifests.
      if (node === null || (isScalar(node) && node.value === null))
        return name === 'apply' ? { kind: 'apply', approvals: { allowIrreversible: [] } } : { kind: name };
      const options = reader.map(node, name);
      const allowed = name === 'apply' ? ['manifests', 'allow_irreversible', 'max_cost'] : ['manifests'];
      reader.keys(options, allowed, name);
      const manifests = options.has('manifests')
        ? { manifests: reader.texts(options.get('manifests', true) as Node, `${name}: manifests`) }
        : {};
      if (name !== 'apply') return { kind: name, ...manifests };
      const allowIrreversible = options.has('allow_irreversible')
        ? reader.texts(options.get('allow_irreversible', true) as Node, 'apply: allow_irreversible')
        : [];
      const costNode = options.get('max_cost', true) as Node | undefined;
      let maxCost: number | undefined;
      if (costNode !== undefined) {
        if (!isScalar(costNode) || typeof costNode.value !== 'number' || costNode.value < 0)
          reader.fail(costNode, 'apply: max_cost must be a number of USD');
        maxCost = costNode.value;
      }
      const approvals: StepApprovals = { allowIrreversible, ...(maxCost === undefined ? {} : { maxCost }) };
      return { kind: 'apply', ...manifests, approvals };
    }
    case 'advance':
      return { kind: 'advance', ...readDuration(reader, node) };
    case 'approve':
    case 'decline': {
      const address = reader.text(node, name);
      const decided = decidedKinds(catalog.kinds);
      const [kind, objectName, ...rest] = address.split('/');
      if (!decided.includes(kind ?? '') || !objectName || rest.length > 0) {
        const kinds = decided.length > 1 ? `${decided.slice(0, -1).join(', ')} or ${decided.at(-1)}` : decided.join('');
        reader.fail(node, `${name} names a ${kinds} by address, e.g. ${decided.at(-1) ?? 'Campaign'}/acme-orders`);
      }
      return { kind: 'decide', decision: name, address };
    }
    case 'fault': {
      const spec = reader.text(node, 'fault');
      const wrong = spec === 'none' ? undefined : reader.checks?.fault(spec);
      if (wrong !== undefined) reader.fail(node, `fault: ${wrong}`);
      return { kind: 'fault', spec };
    }
    case 'rate_limit': {
      const spec = reader.text(node, 'rate_limit');
      const wrong = spec === 'none' ? undefined : reader.checks?.rateLimit(spec);
      if (wrong !== undefined) reader.fail(node, `rate_limit: ${wrong}`);
      return { kind: 'rate_limit', spec };
    }
    case 'out_of_band': {
      const options = reader.map(node, 'out_of_band');
      reader.keys(options, ['method', 'path', 'body'], 'out_of_band');
      const method = reader.text(options.get('method', true) as Node, 'out_of_band: method');
      if (method !== 'POST' && method !== 'DELETE')
        reader.fail(options.get('method', true) as Node, 'out_of_band: method must be POST (an update) or DELETE');
      const requestPath = reader.text(options.get('path', true) as Node, 'out_of_band: path');
      if (leavesTheAccount(requestPath))
        reader.fail(
          options.get('path', true) as Node,
          'out_of_band: path may not hold . or .. segments, a backslash, a query or an encoded slash: it stays under the account',
        );
      if (!requestPath.startsWith('/'))
        reader.fail(
          options.get('path', true) as Node,
          'out_of_band: path starts with / and is under the account, e.g. /Zentrunk/Trunk/{Trunk/pbx-out}/',
        );
      const body = options.get('body', true) as Node | undefined;
      if (body !== undefined && !isMap(body))
        reader.fail(body, 'out_of_band: body must be a mapping of the API fields to send');
      return {
        kind: 'out_of_band',
        method,
        path: requestPath,
        ...(body ? { body: (body as YAMLMap).toJSON() as Record<string, unknown> } : {}),
      };
    }
    default: {
      const never: never = name;
      throw new Error(`unhandled step ${String(never)}`);
    }
  }
}

function stepName(action: StepAction): string {
  switch (action.kind) {
    case 'advance':
      return `advance ${action.text}`;
    case 'decide':
      return `${action.decision} ${action.address}`;
    case 'fault':
      return `fault ${action.spec}`;
    case 'rate_limit':
      return `rate_limit ${action.spec}`;
    case 'out_of_band':
      return `out_of_band ${action.method} ${action.path}`;
    default:
      return action.kind;
  }
}

function readStep(reader: Reader, node: Node, index: number): TestStep {
  const step = reader.map(node, `step ${index}`);
  reader.keys(step, stepKeys, `step ${index}`);
  const actions = stepActions.filter((name) => step.has(name));
  if (actions.length !== 1)
    reader.fail(
      node,
      `step ${index} must have exactly one of ${stepActions.join(', ')}${actions.length > 1 ? ` (it has ${actions.join(' and ')})` : ''}`,
    );
  const action = readAction(reader, step, actions[0] as (typeof stepActions)[number]);
  const assertNode = step.get('assert', true) as Node | undefined;
  let assertions: Assertion[] = [];
  if (assertNode !== undefined) {
    const items = isSeq(assertNode) ? (assertNode.items as Node[]) : [assertNode];
    assertions = items.map((item) => reader.assertion(item, `step ${index}: assert`));
  }
  const flag = (key: string, fallback: boolean) =>
    step.has(key) ? reader.boolean(step.get(key, true) as Node, `step ${index}: ${key}`) : fallback;
  const expectConverged = flag('expect_converged', true);
  if (step.has('expect_converged') && action.kind !== 'apply')
    reader.fail(step.get('expect_converged', true) as Node, `step ${index}: expect_converged belongs to an apply step`);
  const findings = step.has('findings') ? readFindings(reader, step.get('findings', true) as Node, 'findings') : [];
  const noFindings = step.has('no_findings')
    ? readFindings(reader, step.get('no_findings', true) as Node, 'no_findings')
    : [];
  if ((findings.length > 0 || noFindings.length > 0) && action.kind !== 'plan' && action.kind !== 'apply')
    reader.fail(node, `step ${index}: findings and no_findings belong to a plan or apply step`);
  return {
    name: step.has('name') ? reader.text(step.get('name', true) as Node, `step ${index}: name`) : stepName(action),
    action,
    assertions,
    expectConverged,
    expectError: flag('expect_error', false),
    findings,
    noFindings,
    place: reader.placeOf(node),
  };
}

function readTest(reader: Reader, node: Node, manifests: string[]): TestCase {
  const test = reader.map(node, 'each test');
  reader.keys(test, testKeys, 'test');
  const name = reader.text(test.get('name', true) as Node, 'each test needs a name, which');
  const own = test.has('manifests')
    ? reader.texts(test.get('manifests', true) as Node, `test ${name}: manifests`)
    : manifests;
  const steps = test.get('steps', true) as Node | undefined;
  if (!isSeq(steps) || steps.items.length === 0)
    reader.fail(steps ?? node, `test ${name}: steps must be a list of at least one step`);
  return {
    name,
    manifests: own,
    steps: steps.items.map((item, index) => readStep(reader, item as Node, index + 1)),
    place: reader.placeOf(node),
  };
}

/** Reads and checks one test file; any problem is a `test_invalid` error at its file:line:column (exit code 2). */
/**
 * Whether an out_of_band path could reach past the account's API (the test emulator's admin routes):
 * a dot segment, plain or percent-encoded, a backslash some servers read as a slash, an encoded slash,
 * or a query or fragment.
 */
export function leavesTheAccount(requestPath: string): boolean {
  if (/[\\?#]|%2f|%5c/i.test(requestPath)) return true;
  return requestPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}

export async function loadTestFile(file: string, cwd: string, checks?: TestFileChecks): Promise<TestFile> {
  const absolute = path.resolve(cwd, file);
  let source: string;
  try {
    source = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new TelformError(
      'test_invalid',
      `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { exitCode: badTestFileExitCode },
    );
  }
  const counter = new LineCounter();
  const document = parseDocument(source, { lineCounter: counter, prettyErrors: false });
  const reader: Reader = new Reader(file, counter, checks);
  const syntax = document.errors[0];
  if (syntax) {
    const position = counter.linePos(syntax.pos[0]);
    throw new TelformError('test_invalid', `not valid YAML: ${syntax.message.split('\n')[0] ?? ''}`, {
      place: { source: { file, line: position.line, column: position.col } },
      exitCode: badTestFileExitCode,
    });
  }
  const root = reader.map(document.contents as Node | null, 'a test file');
  if (String(root.get('apiVersion')) !== 'telform/v1' || String(root.get('kind')) !== 'Test')
    reader.fail(root, 'a test file starts with apiVersion: telform/v1 and kind: Test');
  reader.keys(root, fileKeys, 'test file');
  const manifests = root.has('manifests') ? reader.texts(root.get('manifests', true) as Node, 'manifests') : [];
  const envNode = root.get('env', true) as Node | undefined;
  const env: Record<string, string> = {};
  if (envNode !== undefined) {
    for (const pair of reader.map(envNode, 'env').items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value as Node | null;
      if (!isScalar(value) || (typeof value.value !== 'string' && typeof value.value !== 'number'))
        reader.fail(value ?? (pair.key as Node), `env: ${key} must be a string`);
      env[key] = String(value.value);
    }
  }
  const tests = root.get('tests', true) as Node | undefined;
  if (!isSeq(tests) || tests.items.length === 0)
    reader.fail(tests ?? root, 'tests must be a list of at least one test');
  const cases = tests.items.map((item) => readTest(reader, item as Node, manifests));
  const seen = new Set<string>();
  for (const test of cases) {
    if (seen.has(test.name))
      throw new TelformError('test_invalid', `the test name ${JSON.stringify(test.name)} is used twice`, {
        place: { source: test.place },
        exitCode: badTestFileExitCode,
      });
    seen.add(test.name);
    if (
      test.manifests.length === 0 &&
      test.steps.some(
        (step) =>
          ['apply', 'plan', 'drift'].includes(step.action.kind) &&
          !('manifests' in step.action && step.action.manifests),
      )
    ) {
      throw new TelformError(
        'test_invalid',
        `test ${JSON.stringify(test.name)} plans or applies but names no manifests (give manifests: in the file, the test or the step)`,
        { place: { source: test.place }, exitCode: badTestFileExitCode },
      );
    }
  }
  const startNode = root.get('start', true) as Node | undefined;
  const start = startNode === undefined ? undefined : reader.text(startNode, 'start');
  if (
    start !== undefined &&
    !(await stat(path.resolve(path.dirname(absolute), start)).catch(() => undefined))?.isFile()
  ) {
    reader.fail(startNode, `start: ${start} is not a file (a snapshot written by telform snapshot --out)`);
  }
  if (start !== undefined && checks) {
    const wrong = await checks.start(path.resolve(path.dirname(absolute), start));
    if (wrong !== undefined) reader.fail(startNode, `start: ${start}: ${wrong}`);
  }
  return {
    file,
    folder: path.dirname(absolute),
    ...(start === undefined ? {} : { start }),
    env,
    policies: root.has('policies') ? reader.texts(root.get('policies', true) as Node, 'policies') : [],
    tests: cases,
  };
}

/** The suffix that makes a YAML file a test file. */
const testFileSuffix = '.tftest.yaml';

/**
 * The test files `telform test` runs: each path a test file, or a folder whose own `*.tftest.yaml`
 * files (not its subfolders', so a folder of tests kept aside is run only when named) are taken in
 * name order. A path that gives none is a `test_invalid` error.
 */
export async function findTestFiles(paths: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info)
      throw new TelformError('test_invalid', `${given}: no such file or folder`, { exitCode: badTestFileExitCode });
    if (info.isFile()) {
      files.push(given);
      continue;
    }
    const names = (await readdir(absolute)).filter((name) => name.endsWith(testFileSuffix)).sort();
    if (names.length === 0)
      throw new TelformError('test_invalid', `${given}: no test files (*${testFileSuffix}) in this folder`, {
        exitCode: badTestFileExitCode,
      });
    files.push(...names.map((name) => path.join(given, name)));
  }
  return files;
}
