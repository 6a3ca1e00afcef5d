import { liveIdOf } from '../engine/change-fields.js';
import type { Plan, PlanAction, PlannedChange } from '../engine/plan-types.js';
import {
  actionHeading,
  actionMarker,
  actionOrder,
  countMoves,
  createLines,
  flagWords,
  noChangesLine,
  patchLines,
  requestsLine,
  secretLines,
  summaryLine,
  teardownHeadline,
  valueLines,
  type FieldLine,
} from './format.js';
import { printable } from '../util/printable.js';
import { blastSummary, blastWords, findingLine } from './traffic.js';

export interface TextOptions {
  color: boolean;
  /** Also list resources that are up to date. */
  showNoop?: boolean;
  /** `apply --wait`, for the range of registry polls (plan shows a reference wait). */
  waitMs?: number;
}

const ansi = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, bold: 1, dim: 2 } as const;
type Style = keyof typeof ansi;

const actionStyle: Record<PlanAction, Style> = {
  create: 'green',
  adopt: 'cyan',
  update: 'yellow',
  replace: 'magenta',
  delete: 'red',
  wait: 'blue',
  blocked: 'red',
  noop: 'dim',
};

const markerStyle: Record<FieldLine['marker'], Style> = { '+': 'green', '-': 'red', '~': 'yellow' };

/** Terraform-like text: grouped by action, markers, only changed fields, a summary line. */
export function renderText(plan: Plan, options: TextOptions): string {
  const paint = (style: Style, text: string): string =>
    options.color ? `\u001b[${ansi[style]}m${text}\u001b[0m` : text;
  const lines: string[] = [];
  const headline = teardownHeadline(plan);
  if (headline) lines.push(paint('red', paint('bold', headline)), '');
  const visible = plan.changes.filter(
    (change) => change.action !== 'noop' || options.showNoop || change.moved_from !== undefined,
  );
  if (visible.length === 0) {
    lines.push(noChangesLine(plan));
  } else {
    for (const action of actionOrder) {
      const group = visible.filter((change) => change.action === action);
      if (group.length === 0) continue;
      for (const change of group) lines.push(...renderChange(change, paint), '');
    }
  }
  if (plan.unmanaged.length > 0) {
    lines.push(paint('bold', 'Unmanaged objects (neither in the manifests nor in the state):'));
    for (const object of plan.unmanaged) {
      const marker = object.prune ? paint('red', '-') : ' ';
      lines.push(
        `  ${marker} ${object.kind} ${printable(object.id)}${object.name ? ` (${printable(object.name)})` : ''}${object.prune ? ' will be deleted (--prune-unmanaged)' : ''}`,
      );
    }
    lines.push('');
  }
  const values = valueLines(plan);
  if (values.length > 0) {
    lines.push(paint('bold', 'Values (name = value, where it was given; used by):'));
    for (const line of values) lines.push(`  ${printable(line)}`);
    lines.push('');
  }
  for (const warning of plan.warnings) lines.push(`${paint('yellow', 'warning:')} ${printable(warning)}`);
  for (const note of plan.notes ?? []) lines.push(`note: ${printable(note)}`);
  if (plan.warnings.length > 0 || (plan.notes ?? []).length > 0) lines.push('');
  const approvals = plan.required_approvals ?? [];
  if (approvals.length > 0) {
    lines.push(
      `Approvals needed: ${approvals.map((approval) => `${approval.flag} (${approval.given ? 'given' : 'missing'})`).join(', ')}.`,
      '',
    );
  }
  if ((plan.findings ?? []).length > 0) {
    lines.push(paint('bold', 'Findings (10DLC lint and policies):'));
    for (const finding of plan.findings ?? [])
      lines.push(
        `  ${finding.severity === 'error' && !finding.held ? paint('red', findingLine(finding)) : findingLine(finding)}`,
      );
    lines.push('');
  }
  lines.push(paint('bold', summaryLine(plan.summary, countMoves(plan.changes))));
  const blast = blastSummary(plan.summary.blast_radius);
  if (blast) lines.push(paint('red', blast));
  if (plan.summary.wait > 0 || plan.summary.blocked > 0) {
    lines.push(`Waiting on the registry: ${plan.summary.wait}. Blocked: ${plan.summary.blocked}.`);
  }
  lines.push(requestsLine(plan.summary, options.waitMs));
  return `${lines.join('\n')}\n`;
}

function renderChange(change: PlannedChange, paint: (style: Style, text: string) => string): string[] {
  const style = actionStyle[change.action];
  const flags = flagWords(change);
  const strategy =
    change.action === 'replace' && change.replace_strategy
      ? change.replace_strategy === 'create_before_delete'
        ? ' (create the new one, then delete the old)'
        : ' (delete the old one first, then create)'
      : '';
  const moved = change.moved_from === undefined ? '' : ` (moved from ${printable(change.moved_from)})`;
  const heading = `  # ${printable(change.address)}${moved} ${actionHeading[change.action]}${strategy}${flags.length > 0 ? ` [${flags.join(', ')}]` : ''}`;
  const lines = [paint('bold', heading)];
  for (const reason of change.reasons) lines.push(`  #   ${printable(reason)}`);
  if (change.blast) lines.push(`  #   ${paint('red', `traffic: ${blastWords(change.blast)}`)}`);
  if (change.registry) {
    const registry = change.registry;
    lines.push(`  #   registry status: ${printable(registry.registration_status)}`);
    for (const reason of registry.declined_reasons ?? [])
      lines.push(`  #   declined: ${printable(`${reason.code}: ${reason.message}`)}`);
    if (registry.error_code || registry.error_reason) {
      lines.push(`  #   error: ${printable([registry.error_code, registry.error_reason].filter(Boolean).join(': '))}`);
    }
  }
  const id = liveIdOf(change);
  lines.push(
    `  ${paint(style, actionMarker[change.action])} ${printable(change.address)}${id ? ` (id ${printable(id)})` : ''}`,
  );
  const fields =
    change.action === 'create' || change.action === 'wait'
      ? createLines(change)
      : change.action === 'delete' || change.action === 'noop'
        ? []
        : [...patchLines(change), ...secretLines(change)];
  for (const field of fields) lines.push(`      ${paint(markerStyle[field.marker], field.marker)} ${field.text}`);
  return lines;
}
