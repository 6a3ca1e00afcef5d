import type { AccountOutcome, AccountsReport } from './accounts-report.js';
import type { RolloutReport, WaveReport } from '../engine/waves.js';
import type { DriftReport } from './drift-schema.js';
import type { Plan, PlanSummary } from '../engine/plan-types.js';
import { renderDriftMarkdown, renderDriftText } from './drift.js';
import { summaryLine } from './format.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';
import { renderAppliedText } from './apply.js';
import { printable, printableJson } from '../util/printable.js';
import { escapeHtml, escapeMarkdown } from './markdown-escape.js';

/**
 * The report of a many-account run: a headline, a line per account, then the details of every
 * account with something to say (an error, changes, drift), each under its name. Pure functions of
 * the report, so a merged report prints exactly what one process would have printed.
 */

/** The report as the document `report show|merge` read back (and a shard writes for them). */
export function renderAccountsJson(report: AccountsReport): string {
  return `${printableJson(JSON.stringify(report, null, 2))}\n`;
}

/** One account's line after `plan`: the plan's counts, and how many changes apply would refuse. */
export function planAccountSummary(summary: PlanSummary, refusals: number): string {
  return summaryLine(summary) + (refusals > 0 ? ` Apply would refuse ${refusals}.` : '');
}

/** One account's line after `drift`: what changed outside telform, what is not yet applied, notes. */
export function driftAccountSummary(drift: DriftReport): string {
  const parts: string[] = [];
  if (drift.drifted.length > 0) parts.push(`${drift.drifted.length} changed outside telform`);
  if (drift.pending.length > 0)
    parts.push(`${drift.pending.length} manifest change${drift.pending.length === 1 ? '' : 's'} not yet applied`);
  if (drift.notes.length > 0) parts.push(`${drift.notes.length} note${drift.notes.length === 1 ? '' : 's'}`);
  return parts.length > 0 ? `${parts.join(', ')}.` : 'The account matches the manifests and the state.';
}

const statusWords: Record<string, string> = {
  error: 'error',
  no_changes: 'no changes',
  changes: 'changes',
  applied: 'applied',
  in_sync: 'in sync',
  drifted: 'drifted',
  pending: 'pending',
};

/** One line per wave: its number, size and how it stands; a failed wave names its accounts and why. */
export function waveLines(rollout: RolloutReport): string[] {
  const lines = [`Waves${rollout.resumed ? ' (resumed)' : ''}:`];
  const countWidth = Math.max(...rollout.waves.map((wave) => String(wave.accounts.length).length));
  for (const wave of rollout.waves) {
    const size = `${String(wave.accounts.length).padStart(countWidth)} ${wave.accounts.length === 1 ? 'account ' : 'accounts'}`;
    lines.push(`  ${String(wave.wave).padStart(2)}  ${size}  ${waveStatus(wave)}`);
  }
  return lines;
}

function waveStatus(wave: WaveReport, escape: (text: string) => string = printable): string {
  switch (wave.status) {
    case 'earlier':
      return 'passed in an earlier run';
    case 'passed':
      return 'passed its gate';
    case 'not_started':
      return 'not started';
    case 'failed':
      return `failed its gate: ${(wave.failures ?? []).map((failure) => `${escape(failure.account)} (${escape(failure.reason)})`).join('; ')}`;
    default: {
      const never: never = wave.status;
      return never;
    }
  }
}

export function headline(report: AccountsReport, escape: (text: string) => string = printable): string {
  const counts = new Map<string, number>();
  for (const account of report.accounts) counts.set(account.status, (counts.get(account.status) ?? 0) + 1);
  const parts = [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([status, count]) => `${count} ${escape(count > 1 && status === 'error' ? 'errors' : statusWord(status))}`);
  const shard = report.shard ? ` (shard ${escape(`${report.shard.index}/${report.shard.count}`)})` : '';
  const total = `${report.accounts.length} account${report.accounts.length === 1 ? '' : 's'}`;
  const rollout = report.rollout;
  const stopped =
    rollout?.stopped_at !== undefined
      ? ` Rollout stopped at wave ${rollout.stopped_at} of ${rollout.waves.length}.`
      : rollout
        ? ` Rollout of ${rollout.waves.length} wave${rollout.waves.length === 1 ? '' : 's'} complete.`
        : '';
  return `telform ${escape(report.command)}${shard}: ${total}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}.${stopped} Exit code ${report.exit_code}.`;
}

/** The word for a status; a report file read by `report show|merge` may hold any text there. */
export function statusWord(status: string): string {
  return statusWords[status] ?? status;
}

export function renderAccountsText(report: AccountsReport): string {
  const lines = [headline(report), ''];
  if (report.rollout) lines.push(...waveLines(report.rollout).map((line) => `  ${line}`), '');
  // Names come from the accounts file or, for `report show|merge`, from a report file anyone could have written.
  const names = new Map(report.accounts.map((account) => [account, printable(account.name)]));
  const statuses = new Map(report.accounts.map((account) => [account, printable(statusWord(account.status))]));
  const nameWidth = Math.max(0, ...[...names.values()].map((name) => name.length));
  const statusWidth = Math.max(0, ...[...statuses.values()].map((status) => status.length));
  for (const account of report.accounts) {
    lines.push(
      `  ${names.get(account)!.padEnd(nameWidth)}  ${statuses.get(account)!.padEnd(statusWidth)}  ${printable(account.summary)}`.trimEnd(),
    );
  }
  let output = `${lines.join('\n')}\n`;
  for (const account of report.accounts.filter(hasDetails)) {
    output += `\n== ${names.get(account)!} (${statuses.get(account)!}) ==\n${detailsText(report, account)}`;
  }
  return output;
}

export function renderAccountsMarkdown(report: AccountsReport): string {
  const lines = [`### ${headline(report, escapeMarkdown)}`, ''];
  if (report.rollout) {
    lines.push('| Wave | Accounts | Status |', '|---:|---:|---|');
    for (const wave of report.rollout.waves)
      lines.push(`| ${wave.wave} | ${wave.accounts.length} | ${waveStatus(wave, escapeMarkdown)} |`);
    lines.push('');
  }
  lines.push('| Account | Status | Summary |', '|---|---|---|');
  for (const account of report.accounts) {
    lines.push(
      `| ${escapeMarkdown(account.name)} | ${escapeMarkdown(statusWord(account.status))} | ${escapeMarkdown(account.summary)} |`,
    );
  }
  lines.push('');
  for (const account of report.accounts.filter(hasDetails)) {
    lines.push(
      `<details><summary>${escapeHtml(account.name)}: ${escapeHtml(statusWord(account.status))}</summary>`,
      '',
      detailsMarkdown(report, account).trimEnd(),
      '',
      '</details>',
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

function hasDetails(account: AccountOutcome): boolean {
  return (
    !['no_changes', 'in_sync'].includes(account.status) ||
    (account.drift?.notes.length ?? 0) > 0 ||
    (account.plan?.warnings.length ?? 0) > 0
  );
}

function withTime(account: AccountOutcome): Plan | undefined {
  // The renderers take a whole plan; its creation time and basis are not part of the report and none of them prints them.
  return account.plan
    ? { ...account.plan, created_at: '', basis: { ledger_lineage: '', ledger_serial: 0, objects: {} } }
    : undefined;
}

function detailsText(report: AccountsReport, account: AccountOutcome): string {
  if (account.error)
    return `error: ${printable(account.error.message)}\n${(account.problems ?? []).map((line) => `  ${printable(line)}\n`).join('')}`;
  const plan = withTime(account);
  if (report.command === 'drift' && account.drift && plan) return renderDriftText(account.drift, plan);
  if (report.command === 'apply') return renderAppliedText(account);
  return plan ? renderText(plan, { color: false }) : '';
}

function detailsMarkdown(report: AccountsReport, account: AccountOutcome): string {
  if (account.error)
    return [
      `**error:** ${escapeMarkdown(account.error.message)}`,
      ...(account.problems ?? []).map((line) => `- ${escapeMarkdown(line)}`),
    ].join('\n');
  const plan = withTime(account);
  if (report.command === 'drift' && account.drift) return renderDriftMarkdown(account.drift);
  if (report.command === 'apply')
    return [
      escapeMarkdown(account.summary),
      '',
      ...(account.problems ?? []).map((line) => `- ${escapeMarkdown(line)}`),
    ].join('\n');
  return plan ? renderMarkdown(plan) : '';
}
