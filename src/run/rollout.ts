// `apply --accounts FILE --waves 1,10%,100%` (and `--resume`): the accounts are applied a wave at a
// time; after each wave its gate is checked — every account of the wave applied without failure,
// then (after `--soak`) a drift of the wave's accounts is clean — and a failed gate stops the
// rollout. Progress is recorded after every account in the state backend next to the accounts'
// state, so a rollout stopped (or killed) on one machine resumes on another, applying exactly the
// accounts not yet done.
import {
  assignWaves,
  changedInputs,
  newRollout,
  parseRollout,
  remainingWaves,
  rolloutReport,
  type RolloutRecord,
  type WaveStep,
} from '../engine/waves.js';
import type { AccountSpec } from '../manifest/accounts-file.js';
import {
  buildAccountsReport,
  worstExitCode,
  type AccountOutcome,
  type AccountsReport,
} from '../render/accounts-report.js';
import { openStateBackend } from '../state/backends/registry.js';
import { DocumentStore } from '../state/document-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import { driftStep } from './account-steps.js';
import { selectAccounts } from './account-selection.js';
import { mapBounded, runOne, type AccountsRun } from './accounts.js';
import type { RunContext } from './context.js';
import { ExitCode } from './exit-codes.js';

export interface RolloutOptions {
  /** `--waves`: absent with `--resume`, which continues the recorded waves. */
  waves?: WaveStep[] | undefined;
  canary: readonly string[];
  soakMs: number;
  resume: boolean;
  /** `--restart`: a stopped rollout's record is replaced by a new one. */
  restart: boolean;
  clock?: Clock;
}

/**
 * Applies the accounts of `run` (an apply) in waves and returns the report, with the waves and the
 * exit code (1 when a gate failed). Progress notes go to `context.io.stderr`.
 */
export async function runRollout(
  run: AccountsRun,
  rollout: RolloutOptions,
  context: RunContext,
): Promise<AccountsReport> {
  const io = context.io;
  // The flag rules (cli/arguments) keep --shard off a rollout and --only off a resume.
  const { loadAccounts, rolloutLocation } = await import('../manifest/accounts-file.js');
  const document = await loadAccounts(run.accountsFile, io.cwd);
  const all = document.accounts;
  const selected = selectAccounts(all, { only: run.only }, run.accountsFile);
  const location = rolloutLocation(document);
  if (!location) {
    throw new TelformError(
      'bad_option',
      `a rollout in waves records its progress beside the accounts' state: give defaults.state in ${run.accountsFile}`,
    );
  }
  const backend = await openStateBackend(location, io.env);
  const store = await DocumentStore.open(backend, { lockWaitMs: run.globals.lockTimeout ?? 0, notify: io.stderr });
  try {
    const recorded = store.initial === undefined ? undefined : parseRollout(store.initial, store.location);
    const { rolloutInputs } = await import('./rollout-inputs.js');
    const inputs = await rolloutInputs(all, io.cwd);
    const record = chooseRecord(recorded, selected, rollout, store.location, run.accountsFile, inputs);
    const passedBefore = rollout.resume ? record.passed : 0;
    const byName = new Map(all.map((account) => [account.name, account]));
    const missing = record.waves.flat().filter((name) => !byName.has(name));
    if (missing.length > 0) {
      throw new TelformError(
        'accounts_file',
        `the rollout recorded in ${store.location} includes ${missing.join(', ')}, no longer in ${run.accountsFile}; start over with --restart`,
      );
    }
    const changed = rollout.resume ? changedInputs(record, inputs) : [];
    if (changed.length > 0) {
      const list =
        changed.length > 5 ? `${changed.slice(0, 5).join(', ')} and ${changed.length - 5} more` : changed.join(', ');
      throw new TelformError(
        'rollout_changed',
        `the manifests or values of ${list} changed since the rollout recorded in ${store.location} started; resuming would ship them past the gates the earlier version passed: start a new rollout of this version with --waves STEPS --restart`,
      );
    }
    record.status = 'running';
    delete record.stopped;
    await save(store, record);
    const outcomes = await rollOut(run, record, byName, store, rollout, context);
    record.status = record.stopped ? 'stopped' : 'completed';
    await save(store, record);
    const report = buildAccountsReport('apply', outcomes, undefined, run.runId);
    const exitCode = record.stopped ? ExitCode.error : worstExitCode(outcomes.map((outcome) => outcome.exit_code));
    return { ...report, exit_code: exitCode, rollout: rolloutReport(record, passedBefore, rollout.resume) };
  } finally {
    await store.close();
  }
}

/**
 * A plain `apply --accounts` (no `--waves`) while a recorded rollout over some of the same accounts
 * is unfinished would ship to every account the gate held back: refused, naming how to go on.
 * Reads the record without taking its lock (a rollout under way elsewhere holds it).
 */
export async function assertNoUnfinishedRollout(
  run: Pick<AccountsRun, 'accountsFile' | 'only' | 'shard'>,
  context: RunContext,
): Promise<void> {
  const { io } = context;
  const { loadAccounts, rolloutLocation } = await import('../manifest/accounts-file.js');
  const document = await loadAccounts(run.accountsFile, io.cwd);
  const location = rolloutLocation(document);
  if (!location) return;
  const backend = await openStateBackend(location, io.env);
  let text: string | undefined;
  try {
    text = (await backend.read()).ledger;
  } finally {
    await backend.close();
  }
  if (text === undefined) return;
  const record = parseRollout(text, backend.location);
  if (record.status === 'completed') return;
  const selected = selectAccounts(document.accounts, run, run.accountsFile).map((account) => account.name);
  const held = new Set(record.waves.flat().filter((name) => record.accounts[name] !== 'done'));
  const overlap = selected.filter((name) => held.has(name));
  if (overlap.length === 0) return;
  const where = record.stopped
    ? `stopped at wave ${record.stopped.wave} of ${record.waves.length}`
    : `is unfinished (${record.passed} of ${record.waves.length} waves passed)`;
  const list =
    overlap.length > 5 ? `${overlap.slice(0, 5).join(', ')} and ${overlap.length - 5} more` : overlap.join(', ');
  throw new TelformError(
    'rollout_unfinished',
    `the rollout recorded in ${backend.location} ${where}, and ${list} ${overlap.length === 1 ? 'has' : 'have'} not passed it: continue it with --resume, start over with --waves STEPS --restart, or apply anyway with --ignore-rollout`,
  );
}

/** The record to work on: the stopped (or interrupted) one with `--resume`, else a new one. */
function chooseRecord(
  recorded: RolloutRecord | undefined,
  selected: readonly AccountSpec[],
  rollout: RolloutOptions,
  location: string,
  file: string,
  inputs: Record<string, string>,
): RolloutRecord {
  const unfinished = recorded !== undefined && recorded.status !== 'completed';
  if (rollout.resume) {
    if (!recorded || !unfinished) {
      throw new TelformError(
        'rollout_nothing',
        `--resume: ${recorded ? 'the rollout recorded' : 'no rollout is recorded'} in ${location}${recorded ? ' completed' : ''}; start one with --waves`,
      );
    }
    return recorded;
  }
  if (unfinished && !rollout.restart) {
    const where = recorded.stopped
      ? `stopped at wave ${recorded.stopped.wave} of ${recorded.waves.length}`
      : `was interrupted after ${recorded.passed} of ${recorded.waves.length} waves`;
    throw new TelformError(
      'rollout_unfinished',
      `the rollout recorded in ${location} ${where}: continue it with --resume, or start over with --restart`,
    );
  }
  if (!rollout.waves) throw new TelformError('bad_option', `give --waves (e.g. 1,10%,100%) to roll out over ${file}`);
  const waves = assignWaves(
    selected.map((account) => account.name),
    rollout.waves,
    rollout.canary,
  );
  const mine = new Set(waves.flat());
  return newRollout(waves, new Date(), Object.fromEntries(Object.entries(inputs).filter(([name]) => mine.has(name))));
}

async function save(store: DocumentStore, record: RolloutRecord): Promise<void> {
  record.updated_at = new Date().toISOString();
  const { serial: _serial, ...document } = record as RolloutRecord & { serial?: number };
  await store.write(document as unknown as Record<string, unknown>);
}

/** Applies the remaining waves in order, checking each gate; stops at the first that fails. */
async function rollOut(
  run: AccountsRun,
  record: RolloutRecord,
  byName: ReadonlyMap<string, AccountSpec>,
  store: DocumentStore,
  rollout: RolloutOptions,
  context: RunContext,
): Promise<AccountOutcome[]> {
  const { io } = context;
  const all = [...byName.values()];
  const outcomes: AccountOutcome[] = [];
  const total = record.waves.length;
  for (const wave of remainingWaves(record)) {
    const tag = `[wave ${wave.wave}/${total}]`;
    io.stderr(
      `${tag} applying ${wave.todo.length} of ${wave.accounts.length} account${wave.accounts.length === 1 ? '' : 's'}${wave.todo.length > 0 ? `: ${wave.todo.join(', ')}` : ''}`,
    );
    // Each account's history names the wave that applied it.
    const waveRun: AccountsRun = { ...run, history: { trigger: 'rollout', wave: { number: wave.wave, of: total } } };
    const applied = await mapBounded(wave.todo, run.accountParallelism, async (name) => {
      const outcome = await runOne(waveRun, byName.get(name) as AccountSpec, all, context);
      run.onAccount?.(outcome);
      record.accounts[name] = outcome.exit_code === ExitCode.ok ? 'done' : 'failed';
      // Durable before the next account is reported: a rollout killed here resumes without it.
      await save(store, record);
      return outcome;
    });
    outcomes.push(...applied);
    const failedApply = applied.filter((outcome) => outcome.exit_code !== ExitCode.ok);
    if (failedApply.length > 0) {
      // Each reason names the changes that failed and the API's message, not only the counts.
      const reasons = failedApply.map((outcome) => ({
        account: outcome.name,
        reason: `apply failed: ${applyFailure(outcome)}`,
      }));
      record.stopped = { wave: wave.wave, reasons };
      io.stderr(
        `${tag} gate failed: ${reasons.map((reason) => `${reason.account} (${printable(reason.reason)})`).join('; ')}; the rollout stops here`,
      );
      return outcomes;
    }
    if (rollout.soakMs > 0) {
      io.stderr(`${tag} applied; soaking ${formatDuration(rollout.soakMs)} before the drift check`);
      await (rollout.clock ?? systemClock).sleep(rollout.soakMs);
    }
    const { onAccount: _onAccount, ...rest } = run;
    const driftRun: AccountsRun = { ...rest, command: 'drift', lock: false, step: driftStep };
    const drifts = await mapBounded(wave.accounts, run.accountParallelism, (name) =>
      runOne(driftRun, byName.get(name) as AccountSpec, all, context),
    );
    // Clean: in sync, or only waiting on the registry. Drift outside telform, an error, or a manifest
    // change not yet applied (the account is not on the version rolled out) is not.
    const unclean = drifts.flatMap((outcome) => {
      const reason = gateProblem(outcome);
      return reason === undefined ? [] : [{ account: outcome.name, reason: `drift check: ${reason}` }];
    });
    if (unclean.length > 0) {
      record.stopped = { wave: wave.wave, reasons: unclean };
      io.stderr(
        `${tag} gate failed: the drift check is not clean: ${unclean.map((reason) => `${reason.account} (${printable(reason.reason)})`).join('; ')}; the rollout stops here`,
      );
      return outcomes;
    }
    record.passed = wave.wave;
    await save(store, record);
    io.stderr(`${tag} gate passed`);
  }
  return outcomes;
}

/** What failed in an account's apply: each failed change with the API's message, else the summary. */
function applyFailure(outcome: AccountOutcome): string {
  const problems = (outcome.problems ?? []).map((line) =>
    line
      .replace(/^FAILED\s+/, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  if (problems.length > 0) return problems.join('; ');
  return outcome.error?.message ?? outcome.summary;
}

/** Why an account's drift check after its wave is not clean; undefined when it is. */
function gateProblem(outcome: AccountOutcome): string | undefined {
  if (outcome.status === 'error') return outcome.error?.message ?? outcome.summary;
  const drift = outcome.drift;
  if (outcome.status === 'drifted')
    return `changed outside telform: ${(drift?.drifted ?? []).join(', ') || outcome.summary}`;
  if (outcome.status !== 'pending') return undefined;
  // Pending is clean only while every change waits on the registry (a campaign under review).
  const waits = new Set(
    (outcome.plan?.changes ?? []).filter((change) => change.action === 'wait').map((change) => change.address),
  );
  const unapplied = (drift?.pending ?? []).filter((address) => !waits.has(address));
  return unapplied.length > 0 ? `manifest changes not yet applied: ${unapplied.join(', ')}` : undefined;
}

function formatDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000}m`;
  if (milliseconds % 1_000 === 0) return `${milliseconds / 1_000}s`;
  return `${milliseconds}ms`;
}
