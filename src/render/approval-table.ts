// The approval rules' table of a plan (docs/approvals.md), as `telform approvals` prints it and as the
// markdown plan's "Approvals" section shows it: per change, each rule, what it needs, who approved,
// what is missing, and the windows and freezes. Rule ids, roles and names come from reviewed files,
// never from the account; addresses are escaped all the same.
import type { ApprovalTable } from '../engine/plan-types.js';
import { printable } from '../util/printable.js';
import { escapeMarkdown } from './markdown-escape.js';

type Row = ApprovalTable['changes'][number]['rules'][number];

function status(row: Row): string {
  if (row.missing > 0) return `${row.missing} missing`;
  if (!row.window_open) return 'outside its window';
  return row.needs === 'none' ? 'no approval needed' : 'approved';
}

function approvedBy(row: Row): string {
  const names = [...row.approved_by, ...row.expired.map((name) => `${name} (expired)`)];
  return names.length > 0 ? names.join(', ') : '-';
}

/** Plain text, one line per change and rule, then why apply would refuse now. */
export function renderApprovalTableText(table: ApprovalTable): string {
  const lines = [`Approvals of plan ${table.digest.slice(0, 12)}:`];
  if (table.changes.length === 0) lines.push('  no change is covered by an approval rule or a freeze');
  for (const change of table.changes) {
    lines.push(`  ${printable(change.address)}`);
    for (const row of change.rules) {
      const windows = row.windows.length > 0 ? `, within ${row.windows.join(' or ')}` : '';
      lines.push(
        `    ${row.rule}: needs ${row.needs}${row.needs === 'none' ? '' : ` (ttl ${row.ttl})`}${windows}; approved by ${approvedBy(row)}; ${status(row)}`,
      );
    }
    for (const reason of change.frozen) lines.push(`    frozen: ${reason}`);
  }
  lines.push(
    table.refusals.length === 0
      ? 'apply plan.json may proceed: every rule is satisfied now.'
      : `apply would refuse now:\n${table.refusals.map((refusal) => `  - ${printable(refusal)}`).join('\n')}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The markdown plan's section: one table row per change and rule, and how a reviewer signs. */
export function approvalTableMarkdown(table: ApprovalTable): string[] {
  const lines = [
    '#### Approvals',
    '',
    `Plan digest \`${table.digest}\`.`,
    '',
    '| Change | Rule | Needs | Approved by | Status |',
    '|---|---|---|---|---|',
  ];
  for (const change of table.changes) {
    for (const row of change.rules) {
      const needs = `${row.needs}${row.needs === 'none' ? '' : `, ttl ${row.ttl}`}${row.windows.length > 0 ? `, within ${row.windows.join(' or ')}` : ''}`;
      const ok = row.missing === 0 && row.window_open;
      lines.push(
        `| \`${escapeMarkdown(change.address)}\` | ${row.rule} | ${escapeMarkdown(needs)} | ${approvedBy(row) === '-' ? '-' : escapeMarkdown(approvedBy(row))} | ${ok ? '✅' : '❌'} ${status(row)} |`,
      );
    }
    for (const reason of change.frozen)
      lines.push(`| \`${escapeMarkdown(change.address)}\` | freeze | - | - | ❌ ${escapeMarkdown(reason)} |`);
  }
  lines.push(
    '',
    table.refusals.length === 0
      ? 'Every approval rule is satisfied.'
      : 'To approve, each reviewer signs the saved plan and commits the file it writes: `telform approve telform-plan.json --as NAME --key ~/.ssh/id_ed25519 --policy POLICY --approvals telform-approvals` (docs/approvals.md).',
    '',
  );
  return lines;
}
