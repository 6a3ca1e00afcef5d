// `apply --accounts FILE --waves 1,10%,100%` (and `--resume`): the accounts are applied a wave at a
// time; after each wave its gate is checked — every account of the wave applied without failure,
// then (after `--soak`) a drift of the wave's accounts is clean — and a failed gate stops the
// rollout. Progress is recorded after every account in the state backend next to the accounts'
// state, so a rollout stopped (or killed) on one machine resumes on another, applying exactly the
// accounts not yet done.
import { assignWaves, newRollout, parseRollout, remainingWaves, rolloutReport, type RolloutRecord, type WaveStep } from '../engine/waves.js';
import type { AccountSpec } from '../manifest/accounts-file.js';
import { buildAccountsReport, worstExitCode, type AccountOutcome, type AccountsReport } from '../render/accounts-report.js';
import { openStateBackend } from '../state/backends/registry.js';
import { DocumentStore } from '../state/document-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { driftStep } from './account-steps.js';
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
export async function runRollout(run: AccountsRun, rollout: RolloutOptions, context: RunContext): Promise<AccountsReport> {
  const io = context.io;
  if (run.shard) throw new TelformError('bad_option', '--waves and --resume roll out over every account of one run: give them without --shard');
  if (rollout.resume && run.only.length > 0) throw new TelformError('bad_option', '--resume continues the accounts recorded when the rollout started: give --resume without --only');
  const { loadAccounts, rolloutLocation } = await import('../manifest/accounts-file.js');
  const document = await loadAccounts(run.accountsFile, io.cwd);
  const all = document.accounts;
  const unknown = run.only.filter((name) => !all.some((account) => account.name === name));
  if (unknown.length > 0) throw new TelformError('bad_option', `--only ${unknown.join(', ')}: not in ${run.accountsFile}`);
  const selected = all.filter((account) => run.only.length === 0 || run.only.includes(account.name));
  const location = rolloutLocation(document);
  if (!location) {
    throw new TelformError('bad_option', `a rollout in waves records its progress beside the accounts' state: give defaults.state in ${run.accountsFile}`);
  }
  const backend = await openStateBackend(location, io.env);
  const store = await DocumentStore.open(backend, { lockWaitMs: run.globals.lockTimeout ?? 0, notify: io.stderr });
  try {
    const recorded = store.initial === undefined ? undefined : parseRollout(store.initial, store.location);
    const record = chooseRecord(recorded, selected, rollout, store.location, run.accountsFile);
    const passedBefore = rollout.resume ? record.passed : 0;
    const byName = new Map(all.map((account) => [account.name, account]));
    const missing = record.waves.flat().filter((name) => !byName.has(name));
    if (missing.length > 0) {
      throw new TelformError('accounts_file', `the rollout recorded in ${store.location} includes ${missing.join(', ')}, no longer in ${run.accountsFile}; start over with --restart`);
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

/** The record to work on: the stopped (or interrupted) one with `--resume`, else a new one. */
function chooseRecord(recorded: RolloutRecord | undefined, selected: readonly AccountSpec[], rollout: RolloutOptions, location: string, file: string): RolloutRecord {
  const unfinished = recorded !== undefined && recorded.status !== 'completed';
  if (rollout.resume) {
    if (!recorded || !unfinished) {
      throw new TelformError('rollout_nothing', `--resume: ${recorded ? 'the rollout recorded' : 'no rollout is recorded'} in ${location}${recorded ? ' completed' : ''}; start one with --waves`);
    }
    return recorded;
  }
  if (unfinished && !rollout.restart) {
    const where = recorded.stopped ? `stopped at wave ${recorded.stopped.wave} of ${recorded.waves.length}` : `was interrupted after ${recorded.passed} of ${recorded.waves.length} waves`;
    throw new TelformError('rollout_unfinished', `the rollout recorded in ${location} ${where}: continue it with --resume, or start over with --restart`);
  }
  if (!rollout.waves) throw new TelformError('bad_option', `give --waves (e.g. 1,10%,100%) to roll out over ${file}`);
  return newRollout(assignWaves(selected.map((account) => account.name), rollout.waves, rollout.canary), new Date());
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
    io.stderr(`${tag} applying ${wave.todo.length} of ${wave.accounts.length} account${wave.accounts.length === 1 ? '' : 's'}${wave.todo.length > 0 ? `: ${wave.todo.join(', ')}` : ''}`);
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
      record.stopped = { wave: wave.wave, reasons: failedApply.map((outcome) => ({ account: outcome.name, reason: `apply failed: ${outcome.summary}` })) };
      io.stderr(`${tag} gate failed: ${failedApply.map((outcome) => outcome.name).join(', ')} did not apply; the rollout stops here`);
      return outcomes;
    }
    if (rollout.soakMs > 0) {
      io.stderr(`${tag} applied; soaking ${formatDuration(rollout.soakMs)} before the drift check`);
      await (rollout.clock ?? systemClock).sleep(rollout.soakMs);
    }
    const { onAccount: _onAccount, ...rest } = run;
    const driftRun: AccountsRun = { ...rest, command: 'drift', lock: false, step: driftStep };
    const drifts = await mapBounded(wave.accounts, run.accountParallelism, (name) => runOne(driftRun, byName.get(name) as AccountSpec, all, context));
    // Clean: in sync, or only waiting on the registry (pending); drift outside telform or an error is not.
    const unclean = drifts.filter((outcome) => outcome.status === 'drifted' || outcome.status === 'error');
    if (unclean.length > 0) {
      record.stopped = { wave: wave.wave, reasons: unclean.map((outcome) => ({ account: outcome.name, reason: `drift check: ${outcome.summary}` })) };
      io.stderr(`${tag} gate failed: the drift check of ${unclean.map((outcome) => outcome.name).join(', ')} is not clean; the rollout stops here`);
      return outcomes;
    }
    record.passed = wave.wave;
    await save(store, record);
    io.stderr(`${tag} gate passed`);
  }
  return outcomes;
}

function formatDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000}m`;
  if (milliseconds % 1_000 === 0) return `${milliseconds / 1_000}s`;
  return `${milliseconds}ms`;
}
