// The test-run operation (`telform test`, docs/testing.md): each test of each file runs on a fresh
// emulator the caller starts (only the CLI starts emulators), with a state of its own in a temporary
// folder, through the same reconcile, apply and drift operations as the commands. A step's failure
// stops its test and is reported with the step and the assertion; the next test goes on.
import { removeOnExit } from '../util/exit-cleanup.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { catalog } from '../resources/index.js';
import { parseMarkerName } from '../resources/ownership-marker.js';
import { decisionTarget } from '../resources/registration.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiClient } from '../api/client.js';
import { liveIdOf } from '../engine/change-fields.js';
import type { Plan } from '../engine/plan-types.js';
import { leavesTheAccount, type TestCase, type TestFile, type TestStep } from '../manifest/test-file.js';
import type { TestCaseResult, TestFailure, TestReport } from '../render/test-report.js';
import { TelformError } from '../util/errors.js';
import { applyReconciled, type ApplyRunOutcome } from './apply.js';
import type { GlobalOptions, RunContext, Session } from './context.js';
import { driftOf } from './drift.js';
import { approvalsFrom, reconcile, type Reconciliation } from './reconcile.js';
import { assertionContext, checkAssertion } from './test-assert.js';

/** An emulator started for one test: a client of its account, and its admin routes (`/__emulator/…`). */
export interface TestEmulator {
  client: ApiClient;
  account: string;
  authToken: string;
  /** Sends an admin request and returns its JSON answer; an error answer throws a `TelformError`. */
  admin(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts an emulator: from a snapshot file (`start:`), or with a new account. */
export type StartTestEmulator = (snapshot: string | undefined) => Promise<TestEmulator>;

/** What the steps of one test saw so far: the variables of its assertions. */
interface Observed {
  plan: unknown;
  drift: unknown;
  apply: unknown;
  error: string;
  /** Live ids by address, from every plan made (an out-of-band step names objects by address). */
  ids: Map<string, string>;
}

interface TestRun {
  file: TestFile;
  test: TestCase;
  emulator: TestEmulator;
  globals: GlobalOptions;
  context: RunContext;
  observed: Observed;
  /** Lines the operations wrote to stderr during the current step. */
  notes: string[];
}

const parallelism = 4;

export async function runTests(files: readonly TestFile[], startEmulator: StartTestEmulator): Promise<TestReport> {
  const report: TestReport = { files: [] };
  for (const file of files) {
    const tests: TestCaseResult[] = [];
    for (const test of file.tests) tests.push(await runTest(file, test, startEmulator));
    report.files.push({ file: file.file, tests });
  }
  return report;
}

async function runTest(file: TestFile, test: TestCase, startEmulator: StartTestEmulator): Promise<TestCaseResult> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-'));
  const release = removeOnExit(folder);
  try {
    const emulator = await startEmulator(
      file.start === undefined
        ? undefined
        : await withoutOwnershipMarkers(path.resolve(file.folder, file.start), folder),
    );
    try {
      const notes: string[] = [];
      const session: Session = {
        client: emulator.client,
        endpointLabel: 'local',
        account: emulator.account,
        authToken: emulator.authToken,
        close: async () => undefined,
      };
      const run: TestRun = {
        file,
        test,
        emulator,
        globals: { state: path.join(folder, 'telform.state.json'), lockTimeout: 0 },
        // What the operations say on stderr (the manifests' problems, above all) is kept for the step that failed.
        context: {
          io: { cwd: file.folder, env: { ...file.env }, stderr: (line) => notes.push(line) },
          connect: async () => session,
        },
        observed: { plan: null, drift: null, apply: null, error: '', ids: new Map() },
        notes,
      };
      for (const [index, step] of test.steps.entries()) {
        const failure = await runStep(run, step, index + 1);
        if (failure) return { name: test.name, status: 'failed', steps: test.steps.length, failure };
      }
      return { name: test.name, status: 'passed', steps: test.steps.length };
    } finally {
      await emulator.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
    release();
  }
}

function failureOf(step: TestStep, number: number, message: string, extra: Partial<TestFailure> = {}): TestFailure {
  return { step: number, stepName: step.name, message, values: [], ...extra };
}

/** The user's error as the commands print it; anything else is a bug and is thrown on. */
function userError(error: unknown): string {
  // API refusals, lost outcomes and exhausted retries are TelformErrors too, with the API's message.
  if (error instanceof TelformError) return error.message;
  throw error;
}

async function runStep(run: TestRun, step: TestStep, number: number): Promise<TestFailure | undefined> {
  run.observed.error = '';
  run.notes.length = 0;
  let error: string | undefined;
  try {
    error = await act(run, step);
  } catch (thrown) {
    error = userError(thrown);
  }
  if (error !== undefined) run.observed.error = error;
  // The lines that explain the error (the manifests' problems), not the run's notes (an account claimed, a literal secret).
  if (error !== undefined && !step.expectError)
    return failureOf(step, number, error, { values: run.notes.filter((line) => !line.startsWith('note: ')) });
  if (error === undefined && step.expectError)
    return failureOf(step, number, 'the step was expected to fail (expect_error: true) and did not', {
      assertion: 'expect_error',
    });
  if (error === undefined && step.action.kind === 'apply') {
    // Planned even when the check is off: the plan after the apply gives the ids of what it created.
    let left: string[];
    try {
      left = await changesAfterApply(run, step);
    } catch (thrown) {
      const message = userError(thrown);
      if (step.expectConverged)
        return failureOf(step, number, `the plan after the apply failed: ${message}`, {
          assertion: 'expect_converged',
        });
      left = [];
    }
    if (left.length > 0 && step.expectConverged) {
      return failureOf(step, number, `the plan after the apply is not empty: ${left.join(', ')}`, {
        assertion: 'expect_converged',
      });
    }
  }
  const findingFailure = checkFindings(run, step, number);
  if (findingFailure) return findingFailure;
  if (step.assertions.length === 0) return undefined;
  const context = assertionContext(await variables(run));
  for (const assertion of step.assertions) {
    const outcome = checkAssertion(assertion, context);
    if (!outcome.passed)
      return failureOf(step, number, outcome.message, { assertion: assertion.source, values: outcome.values });
  }
  return undefined;
}

/** Runs the step's action; returns the error it ended in (a refused or failed apply, an API refusal), if any. */
async function act(run: TestRun, step: TestStep): Promise<string | undefined> {
  const { action } = step;
  switch (action.kind) {
    case 'apply': {
      const approvals = approvalsFrom({
        allowIrreversible: action.approvals.allowIrreversible,
        ...(action.approvals.maxCost === undefined ? {} : { maxCost: action.approvals.maxCost }),
      });
      const reconciled = await reconcileFor(run, action.manifests, { lock: true, approvals });
      let outcome: ApplyRunOutcome;
      try {
        outcome = await applyReconciled(reconciled, { parallelism, waitMs: 0, history: { trigger: 'apply' } });
      } finally {
        await reconciled.close();
      }
      run.observed.apply = applySummary(outcome);
      return applyError(outcome);
    }
    case 'plan': {
      const reconciled = await reconcileFor(run, action.manifests, { lock: false });
      await reconciled.close();
      return undefined;
    }
    case 'drift': {
      const reconciled = await reconcileFor(run, action.manifests, { lock: false });
      try {
        const { report, exitCode } = driftOf(reconciled);
        run.observed.drift = { ...report, exit_code: exitCode };
      } finally {
        await reconciled.close();
      }
      return undefined;
    }
    case 'advance':
      await run.emulator.admin('POST', '/__emulator/clock/', { advance_ms: action.ms });
      return undefined;
    case 'decide': {
      const target = decisionTarget(catalog.kinds, action.address, liveIdIn(run, action.address));
      // The test file names only vetted kinds (manifest/test-file.ts).
      if (target === undefined) throw new Error(`${action.address} is of no vetted kind`);
      await run.emulator.admin('POST', `/__emulator/accounts/${encodeURIComponent(run.emulator.account)}/registry/`, {
        decision: action.decision,
        ...target,
      });
      return undefined;
    }
    case 'fault':
      await run.emulator.admin('POST', '/__emulator/faults/', { faults: action.spec === 'none' ? null : action.spec });
      return undefined;
    case 'rate_limit':
      await run.emulator.admin('POST', '/__emulator/faults/', {
        rate_limit: action.spec === 'none' ? null : action.spec,
      });
      return undefined;
    case 'out_of_band': {
      const requestPath = action.path.replace(/\{([^{}]+)\}/g, (_whole, address: string) =>
        encodeURIComponent(liveIdIn(run, address)),
      );
      // An id is the account's text: once put in, the path is checked again to stay under the account.
      if (leavesTheAccount(requestPath))
        throw new TelformError('test_invalid', `out_of_band: ${requestPath} would leave the account's API`);
      await run.emulator.client.request(action.method, requestPath, {
        mode: 'idempotent',
        ...(action.body ? { body: action.body } : {}),
      });
      return undefined;
    }
    default: {
      const never: never = action;
      throw new Error(`unhandled step ${String(never)}`);
    }
  }
}

/**
 * A snapshot of an account telform manages holds its ownership marker (an empty SIP IP ACL naming
 * the owning ledger's lineage), which would refuse the test's fresh state as another owner: the test
 * starts from a copy without markers, in its own folder. Any other ACL, one merely named like a
 * marker included, stays. A snapshot with no marker is used as it is.
 */
async function withoutOwnershipMarkers(snapshot: string, folder: string): Promise<string> {
  let document: unknown;
  try {
    document = parseYaml(await readFile(snapshot, 'utf8'));
  } catch {
    return snapshot; // The emulator says what is wrong with it.
  }
  const existing = (document as { existing?: { sip_ip_acls?: unknown } } | null)?.existing;
  const acls = existing?.sip_ip_acls;
  if (!Array.isArray(acls)) return snapshot;
  const kept = acls.filter((acl: unknown) => {
    const name = (acl as { name?: unknown } | null)?.name;
    return typeof name !== 'string' || parseMarkerName(name) === undefined;
  });
  if (kept.length === acls.length) return snapshot;
  (existing as { sip_ip_acls: unknown[] }).sip_ip_acls = kept;
  const copy = path.join(folder, 'start.snapshot.json');
  await writeFile(copy, `${JSON.stringify(document)}\n`, { mode: 0o600 });
  return copy;
}

/** The live id of `address` as the test's last plans saw it; an object no plan saw is the step's error. */
function liveIdIn(run: TestRun, address: string): string {
  const id = run.observed.ids.get(address);
  if (id === undefined)
    throw new TelformError(
      'test_invalid',
      `${address} is not in the account as this test's plans saw it: apply it before naming it`,
    );
  return id;
}

/** Reconciles the step's manifests (the test's unless the step names its own) and records the plan it made. */
async function reconcileFor(
  run: TestRun,
  manifests: string[] | undefined,
  options: { lock: boolean; approvals?: ReturnType<typeof approvalsFrom> },
): Promise<Reconciliation> {
  const reconciled = await reconcile(
    { paths: manifests ?? run.test.manifests },
    run.globals,
    options.approvals ?? approvalsFrom({}),
    run.context,
    {
      lock: options.lock,
      ...(options.lock ? {} : { readOnly: true }),
      policies: run.file.policies,
    },
  );
  recordPlan(run, reconciled.plan);
  return reconciled;
}

function recordPlan(run: TestRun, plan: Plan): void {
  // The plan as its JSON document reads: what `plan --format json` prints is what an assertion sees.
  run.observed.plan = JSON.parse(JSON.stringify(plan)) as unknown;
  for (const change of plan.changes) {
    const id = liveIdOf(change);
    if (id !== undefined) run.observed.ids.set(change.address, id);
  }
}

/**
 * Plans again after an apply and returns what the plan would still do (`Kind/name action`). A `wait`
 * is the registry's, not a change telform failed to make, so it does not count. The apply's own
 * plan stays the one assertions see.
 */
async function changesAfterApply(run: TestRun, step: TestStep): Promise<string[]> {
  const applied = run.observed.plan;
  const manifests = step.action.kind === 'apply' ? step.action.manifests : undefined;
  const reconciled = await reconcileFor(run, manifests, { lock: false });
  await reconciled.close();
  run.observed.plan = applied;
  return reconciled.plan.changes
    .filter((change) => change.action !== 'noop' && change.action !== 'wait')
    .map((change) => `${change.address} ${change.action}`);
}

function applySummary(outcome: ApplyRunOutcome): Record<string, unknown> {
  switch (outcome.status) {
    case 'refused':
      return {
        status: 'refused',
        failed: true,
        outcomes: {},
        violations: outcome.violations.map((violation) => ({ ...violation })),
      };
    case 'no_changes':
    case 'cancelled':
      return { status: outcome.status, failed: false, outcomes: {}, violations: [] };
    case 'applied':
      return {
        status: 'applied',
        failed: outcome.failed,
        outcomes: Object.fromEntries(outcome.result.outcomes),
        violations: [],
      };
    default: {
      const never: never = outcome;
      throw new Error(`unhandled apply outcome ${String(never)}`);
    }
  }
}

function applyError(outcome: ApplyRunOutcome): string | undefined {
  if (outcome.status === 'refused')
    return `apply refused: ${outcome.violations.map((violation) => violation.message).join('; ')}`;
  if (outcome.status !== 'applied' || !outcome.failed) return undefined;
  const failed = [...outcome.result.outcomes].filter(
    ([, result]) => result.status === 'failed' || result.status === 'blocked',
  );
  return `apply failed: ${failed.map(([address, result]) => `${address}: ${'error' in result ? result.error : 'reason' in result ? result.reason : result.status}`).join('; ')}`;
}

function checkFindings(run: TestRun, step: TestStep, number: number): TestFailure | undefined {
  if (step.findings.length === 0 && step.noFindings.length === 0) return undefined;
  const plan = run.observed.plan as { findings?: Array<{ rule: string; address: string }> } | null;
  const found = (plan?.findings ?? []).map((finding) => `${finding.rule} on ${finding.address}`);
  const matches = (expected: { rule: string; address?: string }) =>
    (plan?.findings ?? []).some(
      (finding) =>
        finding.rule === expected.rule && (expected.address === undefined || finding.address === expected.address),
    );
  const describe = (expected: { rule: string; address?: string }) =>
    `${expected.rule}${expected.address ? ` on ${expected.address}` : ''}`;
  const saw = [`findings = ${found.length === 0 ? 'none' : found.join(', ')}`];
  for (const expected of step.findings) {
    if (!matches(expected))
      return failureOf(step, number, `the plan has no finding ${describe(expected)}`, {
        assertion: `findings: ${describe(expected)}`,
        values: saw,
      });
  }
  for (const expected of step.noFindings) {
    if (matches(expected))
      return failureOf(step, number, `the plan has the finding ${describe(expected)}`, {
        assertion: `no_findings: ${describe(expected)}`,
        values: saw,
      });
  }
  return undefined;
}

/** The variables of an assertion (docs/testing.md lists them); the request log and billing are read now. */
async function variables(run: TestRun): Promise<Record<string, unknown>> {
  const account = encodeURIComponent(run.emulator.account);
  const log = (await run.emulator.admin('GET', `/__emulator/requests/?account=${account}&type=request`)) as {
    requests?: unknown[];
  };
  const billing = await run.emulator.admin('GET', `/__emulator/accounts/${account}/billing/`);
  return {
    plan: run.observed.plan,
    drift: run.observed.drift,
    apply: run.observed.apply,
    error: run.observed.error,
    requests: log.requests ?? [],
    billing,
  };
}
