// Waves: an apply over many accounts rolled out a few accounts at a time. Which accounts form each
// wave, the rollout's recorded progress and how it moves on are plain data and pure functions
// here; reading and writing the record (the state backend) and applying accounts happen at the edge.
import { TelformError } from '../util/errors.js';

/** One step of `--waves`: a cumulative count of accounts, or a cumulative percentage of them. */
export type WaveStep = { count: number } | { percent: number };

/**
 * `--waves 1,10%,100%`: each step is how many accounts have been rolled out once that wave is done
 * (cumulative, like a canary's traffic weights), as a count or a percentage (rounded up). Steps must
 * grow, and the last must be 100% so every account is in some wave.
 */
export function parseWaves(text: string): WaveStep[] {
  const items = text.split(',').map((item) => item.trim());
  const steps: WaveStep[] = [];
  for (const item of items) {
    const percent = /^(\d{1,3})%$/.exec(item);
    if (percent) {
      const value = Number(percent[1]);
      if (value < 1 || value > 100)
        throw new TelformError('bad_option', `--waves ${text}: ${item} is not a percentage from 1% to 100%`);
      steps.push({ percent: value });
    } else if (/^\d{1,6}$/.test(item) && Number(item) >= 1) {
      steps.push({ count: Number(item) });
    } else {
      throw new TelformError(
        'bad_option',
        `--waves ${text}: "${item}" is neither a number of accounts nor a percentage (e.g. 1,10%,100%)`,
      );
    }
  }
  // A step no larger than an earlier one of its unit would add nobody: a typo, not a wave to skip
  // silently. (A count and a percentage compare only once the accounts are known.)
  for (const [index, step] of steps.entries()) {
    const earlier = steps.slice(0, index).filter((before) => 'count' in before === 'count' in step);
    const size = (of: WaveStep) => ('count' in of ? of.count : of.percent);
    const larger = earlier.find((before) => size(before) >= size(step));
    if (larger) {
      const word = (of: WaveStep) => ('count' in of ? String(of.count) : `${of.percent}%`);
      throw new TelformError(
        'bad_option',
        `--waves ${text}: steps must grow (each is the cumulative size of the rollout), and ${word(step)} comes after ${word(larger)}`,
      );
    }
  }
  const last = steps.at(-1);
  if (!last || !('percent' in last) || last.percent !== 100) {
    throw new TelformError(
      'bad_option',
      `--waves ${text}: the last wave must be 100% (every account), e.g. 1,10%,100%`,
    );
  }
  return steps;
}

/**
 * The accounts of each wave. Order: the `--canary` accounts (as given), then the others in the
 * accounts file's order; the canaries alone form the first wave. Each step then extends the rollout
 * to its cumulative size; a step that adds no account (already reached) makes no wave. Depends on
 * nothing but the names, their order and the flags, so a rerun with the same inputs gets the same waves.
 */
export function assignWaves(
  accounts: readonly string[],
  steps: readonly WaveStep[],
  canaries: readonly string[] = [],
): string[][] {
  const unknown = canaries.filter((name) => !accounts.includes(name));
  if (unknown.length > 0)
    throw new TelformError('bad_option', `--canary ${unknown.join(', ')}: not among the accounts of this run`);
  const ordered = [...new Set(canaries), ...accounts.filter((name) => !canaries.includes(name))];
  const waves: string[][] = [];
  let done = 0;
  if (canaries.length > 0) {
    waves.push(ordered.slice(0, new Set(canaries).size));
    done = waves[0]?.length ?? 0;
  }
  for (const step of steps) {
    const target = Math.min(
      ordered.length,
      'count' in step ? step.count : Math.ceil((step.percent * ordered.length) / 100),
    );
    if (target <= done) continue;
    waves.push(ordered.slice(done, target));
    done = target;
  }
  return waves;
}

export type RolloutAccountStatus = 'done' | 'failed';

/** The record of a rollout, kept in the state backend so another runner can resume it. */
export interface RolloutRecord {
  format_version: 1;
  kind: 'telform-rollout';
  /** `running` while a run works on it (or was interrupted), `stopped` at a failed gate, `completed`. */
  status: 'running' | 'stopped' | 'completed';
  started_at: string;
  updated_at: string;
  /** The accounts of each wave, fixed when the rollout starts. */
  waves: string[][];
  /** Accounts applied (`done`) or failed so far; an account not listed is not done. */
  accounts: Record<string, RolloutAccountStatus>;
  /** Waves whose gate passed. */
  passed: number;
  /** Where and why the rollout stopped. */
  stopped?: { wave: number; reasons: Array<{ account: string; reason: string }> };
  /**
   * Per account, a digest of what it is rolled out with (its manifests and values) when the rollout
   * started: a resume with different inputs is refused, or it would ship the new version past the
   * gates the old one passed. Absent in a record written before digests were kept.
   */
  inputs?: Record<string, string>;
}

export const rolloutFormatVersion = 1;

export function newRollout(waves: string[][], now: Date, inputs?: Record<string, string>): RolloutRecord {
  const at = now.toISOString();
  return {
    format_version: rolloutFormatVersion,
    kind: 'telform-rollout',
    status: 'running',
    started_at: at,
    updated_at: at,
    waves,
    accounts: {},
    passed: 0,
    ...(inputs === undefined ? {} : { inputs }),
  };
}

/** The accounts whose inputs differ from those recorded when the rollout started, in wave order. */
export function changedInputs(record: RolloutRecord, current: Readonly<Record<string, string>>): string[] {
  const recorded = record.inputs;
  if (recorded === undefined) return [];
  return record.waves.flat().filter((name) => recorded[name] !== current[name]);
}

/** Reads a stored record; anything else is refused, naming where it was read. */
export function parseRollout(text: string, location: string): RolloutRecord {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new TelformError('rollout_record', `${location} does not hold a rollout record (not JSON)`);
  }
  const record = data as Partial<RolloutRecord> | null;
  if (
    !record ||
    record.kind !== 'telform-rollout' ||
    !Array.isArray(record.waves) ||
    typeof record.accounts !== 'object' ||
    record.accounts === null
  ) {
    throw new TelformError('rollout_record', `${location} does not hold a rollout record`);
  }
  if (record.format_version !== rolloutFormatVersion) {
    throw new TelformError(
      'rollout_record',
      `${location} holds a rollout record of format ${String(record.format_version)}; this telform reads format ${rolloutFormatVersion}`,
    );
  }
  return record as RolloutRecord;
}

/** The waves still to do: from the first whose gate has not passed, each with its accounts not yet done. */
export function remainingWaves(record: RolloutRecord): Array<{ wave: number; accounts: string[]; todo: string[] }> {
  return record.waves.slice(record.passed).map((accounts, index) => ({
    wave: record.passed + index + 1,
    accounts,
    todo: accounts.filter((name) => record.accounts[name] !== 'done'),
  }));
}

/** How a wave ended, for the report. */
export interface WaveReport {
  wave: number;
  accounts: string[];
  /** `passed` its gate; `failed` it; `not_started`; `earlier` passed in a run before this one. */
  status: 'passed' | 'failed' | 'not_started' | 'earlier';
  /** The accounts that failed the gate, with why. */
  failures?: Array<{ account: string; reason: string }>;
}

/** A report's view of the rollout: every wave with how it stands after this run. */
export interface RolloutReport {
  resumed: boolean;
  /** The wave the rollout stopped at (1-based), if it did. */
  stopped_at?: number;
  waves: WaveReport[];
}

export function rolloutReport(record: RolloutRecord, passedBefore: number, resumed: boolean): RolloutReport {
  const waves = record.waves.map((accounts, index): WaveReport => {
    const wave = index + 1;
    if (wave <= passedBefore) return { wave, accounts, status: 'earlier' };
    if (wave <= record.passed) return { wave, accounts, status: 'passed' };
    if (record.stopped?.wave === wave) return { wave, accounts, status: 'failed', failures: record.stopped.reasons };
    return { wave, accounts, status: 'not_started' };
  });
  return { resumed, ...(record.stopped ? { stopped_at: record.stopped.wave } : {}), waves };
}
