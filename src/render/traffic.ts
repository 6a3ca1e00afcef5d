// Words for a plan's blast radius and findings, shared by the text, markdown and graph renderers.
import type { BlastRadius, BlastTotals, PlanFinding } from '../engine/plan-types.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** "breaks calls to 37 numbers, messages of 2 numbers; 1 outbound trunk loses authentication (Trunk/pbx-out)". */
export function blastWords(blast: BlastRadius): string {
  const numbers = [
    ...(blast.calls > 0 ? [`calls to ${plural(blast.calls, 'number')}`] : []),
    ...(blast.messages > 0 ? [`messages of ${plural(blast.messages, 'number')}`] : []),
  ];
  const parts = numbers.length > 0 ? [`breaks ${numbers.join(' and ')}`] : [];
  if (blast.trunks.length > 0) {
    parts.push(
      `${plural(blast.trunks.length, 'outbound trunk')} ${blast.trunks.length === 1 ? 'loses' : 'lose'} authentication (${blast.trunks.join(', ')})`,
    );
  }
  if (blast.applications.length > 0) {
    parts.push(
      `${plural(blast.applications.length, 'application')} ${blast.applications.length === 1 ? 'loses' : 'lose'} SIP auth (${blast.applications.join(', ')})`,
    );
  }
  return parts.join('; ');
}

/** The plan's totals as one sentence, or undefined when the plan breaks no traffic. */
export function blastSummary(totals: BlastTotals | undefined): string | undefined {
  if (!totals || totals.calls + totals.messages + totals.trunks + totals.applications === 0) return undefined;
  const parts = [
    ...(totals.calls > 0 ? [`breaks calls to ${plural(totals.calls, 'number')}`] : []),
    ...(totals.messages > 0 ? [`breaks messages of ${plural(totals.messages, 'number')}`] : []),
    ...(totals.trunks > 0
      ? [`${plural(totals.trunks, 'outbound trunk')} ${totals.trunks === 1 ? 'loses' : 'lose'} authentication`]
      : []),
    ...(totals.applications > 0
      ? [`${plural(totals.applications, 'application')} ${totals.applications === 1 ? 'loses' : 'lose'} SIP auth`]
      : []),
  ];
  return `Blast radius: ${parts.join(', ')}.`;
}

/** `file:line:col  error  tcr-optout-in-samples  Campaign/x  spec.sample1: message [lint]`. */
export function findingLine(finding: PlanFinding): string {
  const place = finding.source_place
    ? `${finding.source_place.file}:${finding.source_place.line}:${finding.source_place.column}  `
    : '';
  const field = finding.field ? `${finding.field}: ` : '';
  return `${place}${finding.held ? 'held' : finding.severity}  ${finding.rule}  ${finding.address}  ${field}${finding.message} [${finding.source}]`;
}
