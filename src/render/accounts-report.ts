import { TelformError } from '../util/errors.js';
import type { DriftReport } from './drift-schema.js';
import type { Plan } from '../engine/plan-types.js';
import type { Shard } from '../util/shard.js';
import type { RolloutReport } from '../engine/waves.js';

/**
 * The one report of a many-account run (`plan|apply|drift --accounts`): a line per account and the
 * details below, as data that the text, markdown and JSON renderers share. A sharded run prints the
 * same document for its part (with `shard` set); `report merge` joins the parts into exactly what
 * one process would have printed, so nothing in it depends on timing or on which process ran it
 * (accounts sorted by name; a plan without its creation time).
 */
export const accountsReportVersion = 1;

export type AccountsCommand = 'plan' | 'apply' | 'drift';

/**
 * A plan as kept in the report: everything but the moment it was computed and its basis (what a
 * saved plan is checked against; a new ledger's is random, and a report is not applied).
 */
export type ReportedPlan = Omit<Plan, 'created_at' | 'basis'>;

export interface AccountOutcome {
  name: string;
  /** This account's exit code, as the command would exit for it alone. */
  exit_code: number;
  /** `error`, or plan: `no_changes`/`changes`; drift: `in_sync`/`drifted`/`pending`; apply: `no_changes`/`applied`. */
  status: string;
  /** One line. */
  summary: string;
  error?: { code: string; message: string };
  plan?: ReportedPlan;
  drift?: DriftReport;
  /** What an apply did not do, one line each. */
  problems?: string[];
}

export interface AccountsReport {
  format_version: number;
  command: AccountsCommand;
  /** The worst over the accounts: 1, then 2, then 3, then 0. */
  exit_code: number;
  /** Set on the report of one shard. */
  shard?: Shard;
  /**
   * `--run-id`: which run made the report, so that `report merge --run-id` takes only that run's
   * shard files, never a report a shard left on a shared volume yesterday.
   */
  run_id?: string;
  /** Set on the report of an apply in waves (`--waves`, `--resume`): every wave and how it stands. */
  rollout?: RolloutReport;
  accounts: AccountOutcome[];
}

/** Error outranks changes (and out-of-band drift), which outrank pending manifest changes. */
const severity: Record<number, number> = { 0: 0, 3: 1, 2: 2, 1: 3 };

export function worstExitCode(codes: Iterable<number>): number {
  let worst = 0;
  for (const code of codes) if ((severity[code] ?? 3) > (severity[worst] ?? 0)) worst = code;
  return worst;
}

export function reportedPlan(plan: Plan): ReportedPlan {
  const { created_at: _createdAt, basis: _basis, ...rest } = plan;
  return rest;
}

export function buildAccountsReport(
  command: AccountsCommand,
  outcomes: readonly AccountOutcome[],
  shard?: Shard,
  runId?: string,
): AccountsReport {
  const accounts = [...outcomes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    format_version: accountsReportVersion,
    command,
    exit_code: worstExitCode(accounts.map((account) => account.exit_code)),
    ...(shard ? { shard } : {}),
    ...(runId === undefined ? {} : { run_id: runId }),
    accounts,
  };
}

/**
 * The files must be of one run: with `expected` (`report merge --run-id`), each must carry that run
 * id; without it, they must all carry the same one (or none).
 */
function checkRunIds(
  reports: ReadonlyArray<{ file: string; report: AccountsReport }>,
  expected: string | undefined,
): string | undefined {
  const first = reports[0];
  if (!first) return expected;
  for (const { file, report } of reports) {
    if (expected !== undefined) {
      if (report.run_id === undefined) {
        throw new TelformError(
          'report_merge',
          `${file} carries no run id, so it may be from another run; write shard reports with --run-id ${expected}`,
        );
      }
      if (report.run_id !== expected) {
        throw new TelformError(
          'report_merge',
          `${file} is from run ${report.run_id}, not ${expected}: that shard did not run this time, or its report was not replaced; nothing was merged`,
        );
      }
    } else if (report.run_id !== first.report.run_id) {
      const describe = (id: string | undefined) => (id === undefined ? 'no run id' : `run ${id}`);
      throw new TelformError(
        'report_merge',
        `${file} is of ${describe(report.run_id)} and ${first.file} of ${describe(first.report.run_id)}; merge the reports of one run`,
      );
    }
  }
  return expected ?? first.report.run_id;
}

/**
 * Joins per-shard reports (`report merge`): the same command, every shard of one N exactly once,
 * no account twice. A single report without a shard merges to itself.
 */
export function mergeAccountsReports(
  reports: ReadonlyArray<{ file: string; report: AccountsReport }>,
  runId?: string,
): AccountsReport {
  const first = reports[0];
  if (!first) throw new TelformError('report_merge', 'no reports to merge');
  const mergedRunId = checkRunIds(reports, runId);
  const seenShards = new Map<number, string>();
  const seenAccounts = new Map<string, string>();
  for (const { file, report } of reports) {
    if (report.command !== first.report.command) {
      throw new TelformError(
        'report_merge',
        `${file} is a ${report.command} report and ${first.file} a ${first.report.command} report; merge reports of one run`,
      );
    }
    if (reports.length > 1 || report.shard) {
      if (!report.shard)
        throw new TelformError('report_merge', `${file} is not the report of a shard (run with --shard K/N)`);
      const count = first.report.shard?.count;
      if (report.shard.count !== count) {
        throw new TelformError(
          'report_merge',
          `${file} is shard ${report.shard.index}/${report.shard.count} and ${first.file} is of ${count} shards`,
        );
      }
      const other = seenShards.get(report.shard.index);
      if (other)
        throw new TelformError('report_merge', `${file} and ${other} are both shard ${report.shard.index}/${count}`);
      seenShards.set(report.shard.index, file);
    }
    for (const account of report.accounts) {
      const other = seenAccounts.get(account.name);
      if (other) throw new TelformError('report_merge', `account ${account.name} is in both ${other} and ${file}`);
      seenAccounts.set(account.name, file);
    }
  }
  const count = first.report.shard?.count ?? 1;
  if (first.report.shard && seenShards.size !== count) {
    const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !seenShards.has(index));
    throw new TelformError(
      'report_merge',
      `shard${missing.length === 1 ? '' : 's'} ${missing.map((index) => `${index}/${count}`).join(', ')} missing`,
    );
  }
  return buildAccountsReport(
    first.report.command,
    reports.flatMap(({ report }) => report.accounts),
    undefined,
    mergedRunId,
  );
}

/** Reads a report written with `--format json`, refusing anything else in one sentence. */
export function parseAccountsReport(text: string, file: string): AccountsReport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new TelformError('report_merge', `${file} is not JSON (write shard reports with --format json)`);
  }
  const report = data as Partial<AccountsReport>;
  if (
    typeof report !== 'object' ||
    report === null ||
    typeof report.format_version !== 'number' ||
    !['plan', 'apply', 'drift'].includes(String(report.command)) ||
    !Array.isArray(report.accounts)
  ) {
    throw new TelformError('report_merge', `${file} is not the JSON report of a --accounts run`);
  }
  if (report.format_version > accountsReportVersion) {
    throw new TelformError(
      'report_merge',
      `${file} has report format ${report.format_version}, newer than this telform understands (${accountsReportVersion})`,
    );
  }
  return report as AccountsReport;
}
