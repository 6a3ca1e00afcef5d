import type { Plan, PlannedChange } from '../engine/plan-types.js';
import {
  actionHeading,
  countMoves,
  createLines,
  flagWords,
  formatUsd,
  noChangesLine,
  patchLines,
  secretLines,
  summaryLine,
  teardownHeadline,
  valueLines,
} from './format.js';
import { printable } from '../util/printable.js';
import { escapeHtml, escapeMarkdown } from './markdown-escape.js';
import { blastSummary, blastWords, findingLine } from './traffic.js';
import { renderMermaid } from './graph.js';
import { approvalTableMarkdown } from './approval-table.js';

/** Changes drawn in the markdown plan's graph; the rest is one "…and N more" node. */
const markdownGraphLimit = 40;

/** GitHub's comment limit is 65,536 characters; stay under 65,000 with room for the tail. */
export const markdownLimit = 65_000;
const tailReserve = 2_000;

/**
 * A pull-request comment: a summary table, irreversible and billable changes first, each
 * resource's field changes folded in `<details>`. However large the plan, the output stays under
 * `markdownLimit`; changes that do not fit are counted in a closing line.
 */
export function renderMarkdown(plan: Plan): string {
  const changes = plan.changes.filter((change) => change.action !== 'noop' || change.moved_from !== undefined);
  const headline = teardownHeadline(plan);
  const head: string[] = [
    headline ? '### telform plan: teardown' : '### telform plan',
    '',
    ...(headline ? [`> [!CAUTION]`, `> **${escapeMarkdown(headline)}**`, ''] : []),
    summaryLine(plan.summary, countMoves(plan.changes)),
    '',
  ];
  head.push('| Action | Count |', '|---|---:|');
  for (const [label, count] of [
    ['create', plan.summary.create],
    ['update', plan.summary.update],
    ['replace', plan.summary.replace],
    ['delete', plan.summary.delete],
    ['adopt', plan.summary.adopt],
    ['wait (registry)', plan.summary.wait],
    ['blocked', plan.summary.blocked],
  ] as const) {
    if (count > 0) head.push(`| ${label} | ${count} |`);
  }
  head.push(
    `| **cost** | **${formatUsd(plan.summary.cost_usd)} USD** |`,
    `| **irreversible** | **${plan.summary.irreversible}** |`,
  );
  const totals = plan.summary.blast_radius;
  if (totals && totals.numbers > 0) head.push(`| **numbers affected** | **${totals.numbers}** |`);
  head.push('');
  const blast = blastSummary(totals);
  if (blast) head.push(`**${blast}**`, '');

  const critical = changes.filter(
    (change) => change.flags.irreversible || change.flags.billable_usd > 0 || change.blast,
  );
  if (critical.length > 0) {
    head.push(
      critical.some((change) => change.blast)
        ? '#### ⚠️ Irreversible, billable or breaking traffic'
        : '#### ⚠️ Irreversible or billable',
      '',
    );
    for (const change of critical) {
      const words = [...flagWords(change), ...(change.blast ? [blastWords(change.blast)] : [])];
      head.push(
        `- **${escapeMarkdown(change.address)}** ${actionHeading[change.action]} — ${escapeMarkdown(words.join(', '))}`,
      );
    }
    head.push('');
  }
  head.push(...findingLines(plan));
  head.push(...approvalLines(plan));
  if (plan.approval_rules) head.push(...approvalTableMarkdown(plan.approval_rules));
  const values = valueLines(plan);
  if (values.length > 0) {
    head.push(
      '<details><summary>Values</summary>',
      '',
      ...values.map((line) => `- \`${printable(line).replaceAll('`', "'")}\``),
      '',
      '</details>',
      '',
    );
  }
  for (const warning of plan.warnings) head.push(`> ${escapeMarkdown(warning)}`);
  for (const note of plan.notes ?? []) head.push(`> note: ${escapeMarkdown(note)}`);
  if (plan.warnings.length > 0 || (plan.notes ?? []).length > 0) head.push('');
  if (changes.length === 0) head.push(escapeMarkdown(noChangesLine(plan)), '');

  // The order apply runs the changes in, as a graph GitHub and GitLab draw (bounded, so it stays readable).
  if (changes.length > 0)
    head.push('#### Order of changes', '', '```mermaid', renderMermaid(plan, markdownGraphLimit).trimEnd(), '```', '');
  let output = `${head.join('\n')}\n`;
  const ordered = [...critical, ...changes.filter((change) => !critical.includes(change))];
  let shown = 0;
  for (const change of ordered) {
    const block = renderBlock(change);
    if (output.length + block.length > markdownLimit - tailReserve) break;
    output += block;
    shown += 1;
  }
  if (shown < ordered.length) {
    const rest = ordered.slice(shown);
    const counts = new Map<string, number>();
    for (const change of rest) counts.set(change.action, (counts.get(change.action) ?? 0) + 1);
    const parts = [...counts].map(([action, count]) => `${count} ${action}`).join(', ');
    output += `\n_…and ${rest.length} more changes not shown (${parts}); run \`telform plan\` for the full plan._\n`;
  }
  if (plan.unmanaged.length > 0) {
    output += `\n${plan.unmanaged.length} unmanaged object(s) in the account are left alone.\n`;
  }
  return output;
}

/**
 * What a reviewer approves: each flag apply will ask for, and whether the plan recorded it (given
 * at plan time, so the merge job applies the plan without any flag of its own).
 */
function approvalLines(plan: Plan): string[] {
  const approvals = plan.required_approvals ?? [];
  if (approvals.length === 0) return [];
  const lines = ['#### Approvals this plan needs', '', '| Approval | Recorded in the plan |', '|---|---|'];
  for (const approval of approvals) {
    lines.push(
      `| \`${approval.flag}\` | ${approval.given ? '✅ yes' : '❌ no: apply refuses until it is given to the plan'} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Lint and policy findings, errors first, as a list the reviewer reads before the changes. */
function findingLines(plan: Plan): string[] {
  const findings = plan.findings ?? [];
  if (findings.length === 0) return [];
  const ordered = [
    ...findings.filter((finding) => finding.severity === 'error' && !finding.held),
    ...findings.filter((finding) => finding.severity !== 'error' || finding.held),
  ];
  return [
    '#### Findings (10DLC lint and policies)',
    '',
    ...ordered.map(
      (finding) =>
        `- ${finding.held ? 'ℹ️' : finding.severity === 'error' ? '❌' : '⚠️'} ${escapeMarkdown(findingLine(finding))}`,
    ),
    '',
  ];
}

function renderBlock(change: PlannedChange): string {
  const flags = flagWords(change);
  const lines = [
    `<details><summary><code>${escapeHtml(change.address)}</code>${change.moved_from === undefined ? '' : ` (moved from <code>${escapeHtml(change.moved_from)}</code>)`} ${actionHeading[change.action]}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}</summary>`,
  ];
  const notes = change.reasons.map((reason) => `- ${escapeMarkdown(reason)}`);
  if (change.registry)
    notes.push(`- registry status: \`${printable(change.registry.registration_status).replace(/`/g, "'")}\``);
  if (change.blast) notes.push(`- traffic: ${escapeMarkdown(blastWords(change.blast))}`);
  if (notes.length > 0) lines.push('', ...notes);
  const fields =
    change.action === 'create' || change.action === 'wait'
      ? createLines(change)
      : change.action === 'delete'
        ? []
        : [...patchLines(change), ...secretLines(change)];
  if (fields.length > 0) {
    lines.push('', '```diff');
    for (const field of fields)
      lines.push(`${field.marker === '~' ? '!' : field.marker} ${field.text.replace(/```/g, "'''")}`);
    lines.push('```');
  }
  lines.push('', '</details>', '');
  return `${lines.join('\n')}\n`;
}
