// The rehearsal's report (run/rehearse.ts) under the plan: text for a terminal, markdown for the pull
// request. API messages and addresses come from the replica of the account: live text, escaped.
import type { Rehearsal } from './rehearsal-report.js';
import { printable } from '../util/printable.js';
import { escapeMarkdown, markdownCode } from './markdown-escape.js';

function requestsLine(rehearsal: Rehearsal): string {
  const { sent, estimated } = rehearsal.requests;
  return `${sent} API requests (the plan estimated about ${estimated})`;
}

function trafficLine(rehearsal: Rehearsal): string | undefined {
  const traffic = rehearsal.traffic;
  if (!traffic || traffic.numbers + traffic.trunks + traffic.applications === 0) return undefined;
  const parts = [
    traffic.calls > 0 ? `calls to ${traffic.calls} number${traffic.calls === 1 ? '' : 's'}` : undefined,
    traffic.messages > 0 ? `messages of ${traffic.messages} number${traffic.messages === 1 ? '' : 's'}` : undefined,
    traffic.trunks > 0 ? `${traffic.trunks} outbound trunk${traffic.trunks === 1 ? '' : 's'}` : undefined,
    traffic.applications > 0
      ? `${traffic.applications} application${traffic.applications === 1 ? '' : 's'}`
      : undefined,
  ].filter((part): part is string => part !== undefined);
  return `traffic broken by the rehearsed changes: ${parts.join(', ')}`;
}

export function renderRehearsalText(rehearsal: Rehearsal): string {
  const lines = [
    `Rehearsed on a replica of the account (snapshot taken ${rehearsal.takenAt}): ${rehearsal.clean ? 'it went through' : 'it did not go through'}.`,
  ];
  for (const refusal of rehearsal.refused)
    lines.push(`  refused  ${printable(refusal.address)} (${refusal.action}): ${printable(refusal.message)}`);
  for (const address of rehearsal.pending)
    lines.push(`  pending  ${printable(address)}: still waiting on the registry when the rehearsal ended`);
  lines.push(`  sent ${requestsLine(rehearsal)}`);
  const traffic = trafficLine(rehearsal);
  if (traffic) lines.push(`  ${traffic}`);
  if (rehearsal.after.length === 0) lines.push('  the plan after the rehearsal is empty');
  else {
    lines.push(
      `  the plan after the rehearsal still wants ${rehearsal.after.length} change${rehearsal.after.length === 1 ? '' : 's'}:`,
    );
    for (const change of rehearsal.after) lines.push(`    ${change.action} ${printable(change.address)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderRehearsalMarkdown(rehearsal: Rehearsal): string {
  const lines = ['', '### Rehearsed on a replica of the account', ''];
  lines.push(
    rehearsal.clean
      ? `The plan went through on a replica of the account (snapshot taken ${escapeMarkdown(rehearsal.takenAt)}): the API refused nothing and the plan after it is empty.`
      : `**The plan did not go through** on a replica of the account (snapshot taken ${escapeMarkdown(rehearsal.takenAt)}).`,
  );
  lines.push('');
  if (rehearsal.refused.length > 0) {
    lines.push('| Change | Action | What the API said |', '|---|---|---|');
    for (const refusal of rehearsal.refused)
      lines.push(
        `| ${markdownCode(refusal.address)} | ${escapeMarkdown(refusal.action)} | ${escapeMarkdown(refusal.message)} |`,
      );
    lines.push('');
  }
  for (const address of rehearsal.pending)
    lines.push(`- ${markdownCode(address)} was still waiting on the registry when the rehearsal ended.`);
  lines.push(`- Sent ${requestsLine(rehearsal)}.`);
  const traffic = trafficLine(rehearsal);
  if (traffic) lines.push(`- ${traffic[0]?.toUpperCase()}${traffic.slice(1)}.`);
  if (rehearsal.after.length === 0) lines.push('- The plan after the rehearsal is empty.');
  else
    lines.push(
      `- The plan after the rehearsal still wants: ${rehearsal.after.map((change) => `${escapeMarkdown(change.action)} ${markdownCode(change.address)}`).join(', ')}.`,
    );
  return `${lines.join('\n')}\n`;
}
