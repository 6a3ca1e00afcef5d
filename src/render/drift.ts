import { driftReportVersion } from './drift-report.js';
import type { DriftReport } from './drift-schema.js';
import type { Plan } from '../engine/plan-types.js';
import { patchLines } from './format.js';
import { printable, printableJson } from '../util/printable.js';
import { escapeMarkdown } from './markdown-escape.js';

/** `telform drift` as text: what changed outside telform, what waits to be applied, registry notes. */
export function renderDriftText(report: DriftReport, plan: Plan): string {
  const lines: string[] = [];
  const byAddress = new Map(plan.changes.map((change) => [change.address, change]));
  if (report.status === 'in_sync') lines.push('In sync: the account matches the manifests and the state.');
  if (report.drifted.length > 0) {
    lines.push(`Changed outside telform (${report.drifted.length}):`);
    for (const address of report.drifted) {
      const change = byAddress.get(address);
      const what =
        change?.action === 'create'
          ? 'deleted from the account'
          : change?.action === 'delete'
            ? 'still in the account'
            : 'differs (account → manifest)';
      lines.push(`  ${printable(address)}: ${what}`);
      if (change && change.action !== 'create')
        for (const field of patchLines(change)) lines.push(`      ${field.marker} ${field.text}`);
    }
  }
  if (report.pending.length > 0) {
    lines.push(`Manifest changes not yet applied (${report.pending.length}):`);
    for (const address of report.pending)
      lines.push(`  ${printable(address)}: ${byAddress.get(address)?.action ?? 'change'}`);
  }
  if ((report.acknowledged ?? []).length > 0) {
    lines.push(`Acknowledged drift (${report.acknowledged?.length}):`);
    for (const ack of report.acknowledged ?? [])
      lines.push(
        `  ${printable(ack.address)}: by ${ack.by} until ${ack.until}: ${printable(ack.reason)} (history #${ack.seq})`,
      );
  }
  for (const note of report.notes) lines.push(`note: ${printable(note)}`);
  return `${lines.join('\n')}\n`;
}

export function renderDriftJson(report: DriftReport, plan: Plan): string {
  return `${printableJson(JSON.stringify({ format_version: driftReportVersion, ...report, plan }, null, 2))}\n`;
}

/**
 * The drift report as markdown (a scheduled job's issue). With the plan, each resource changed
 * outside telform shows what differs, as the manifest would put it back.
 */
export function renderDriftMarkdown(report: DriftReport, plan?: Plan): string {
  const lines = ['### telform drift', '', `Status: **${escapeMarkdown(report.status.replace('_', ' '))}**`, ''];
  const byAddress = new Map((plan?.changes ?? []).map((change) => [change.address, change]));
  if (report.drifted.length > 0) {
    lines.push('Changed outside telform:', '');
    for (const address of report.drifted) {
      const change = byAddress.get(address);
      const what =
        change?.action === 'create'
          ? ': deleted from the account'
          : change?.action === 'delete'
            ? ': still in the account'
            : '';
      lines.push(`- \`${printable(address).replace(/`/g, "'")}\`${what}`);
      const fields = change && change.action !== 'create' && change.action !== 'delete' ? patchLines(change) : [];
      if (fields.length > 0)
        lines.push(
          '',
          '  ```diff',
          ...fields.map(
            (field) => `  ${field.marker === '~' ? '!' : field.marker} ${field.text.replace(/```/g, "'''")}`,
          ),
          '  ```',
        );
    }
    lines.push('');
  }
  if (report.pending.length > 0)
    lines.push(
      'Not yet applied:',
      '',
      ...report.pending.map((address) => `- \`${printable(address).replace(/`/g, "'")}\``),
      '',
    );
  if ((report.acknowledged ?? []).length > 0)
    lines.push(
      'Acknowledged drift (not counted until it ends or the object drifts further):',
      '',
      ...(report.acknowledged ?? []).map(
        (ack) =>
          `- \`${printable(ack.address).replace(/`/g, "'")}\`: by ${escapeMarkdown(ack.by)} until ${ack.until}: ${escapeMarkdown(ack.reason)} (history #${ack.seq})`,
      ),
      '',
    );
  for (const note of report.notes) lines.push(`> ${escapeMarkdown(note)}`);
  return `${lines.join('\n')}\n`;
}
