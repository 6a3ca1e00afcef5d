import { desiredSpecOf, liveSpecOf, secretsOf, supersededOf } from '../engine/change-fields.js';
import { isReference } from '../engine/model.js';
import type { Plan, PlanAction, PlannedChange, PlanSummary } from '../engine/plan-types.js';
import { waitRequests } from '../engine/request-estimate.js';
import { sensitiveLabel } from '../engine/secret-source.js';
import { printable, printableJson } from '../util/printable.js';

/** Pieces shared by the text and markdown renderers; pure functions, no I/O. */

/** A JSON pointer as a readable field path: `/entries/10.0.0.1~132/description` → `entries["10.0.0.1/32"].description`. */
export function fieldPath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments
    .map((segment, index) => {
      if (index === 0) return printable(segment);
      if (/^\d+$/.test(segment)) return `[${segment}]`;
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) return `.${segment}`;
      return `[${printableJson(JSON.stringify(segment))}]`;
    })
    .join('');
}

/** Longest value a plan shows whole; longer ones are cut, saying how long they are. */
const shownCharacters = 120;

export function formatValue(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') {
    const characters = [...value];
    // JSON quoting escapes C0 controls; printableJson the rest (C1, bidi) that live text may hold.
    if (characters.length <= shownCharacters) return printableJson(JSON.stringify(value));
    return `${printableJson(JSON.stringify(characters.slice(0, shownCharacters - 3).join('')))}... (${characters.length} characters)`;
  }
  if (isReference(value)) return `{ ref: ${printable(value.ref)} }`;
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    const text = printableJson(JSON.stringify(value));
    return text.length > shownCharacters
      ? `${text.slice(0, shownCharacters - 3)}... (${text.length} characters)`
      : text;
  }
  return String(value);
}

/**
 * The values the manifests used, one line each: `pbx_ip = "203.0.113.10"  (accounts.yaml:14:9; TrunkIpAcl/pbx)`.
 * A value used by many resources names the first two and counts the rest.
 */
export function valueLines(plan: Plan): string[] {
  return (plan.values ?? []).map((entry) => {
    const users =
      entry.used_by.length <= 2
        ? entry.used_by.join(', ')
        : `${entry.used_by.slice(0, 2).join(', ')} and ${entry.used_by.length - 2} more`;
    return `${entry.name} = ${formatValue(entry.value)}  (${entry.origin}; ${users})`;
  });
}

export function valueAt(document: unknown, pointer: string): unknown {
  let current: unknown = document;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export interface FieldLine {
  marker: '+' | '-' | '~';
  text: string;
}

/** One line per patch operation, with the old value where there is one. */
export function patchLines(change: PlannedChange): FieldLine[] {
  return change.patch.map((operation) => {
    const path = fieldPath(operation.path);
    switch (operation.op) {
      case 'add':
        return { marker: '+', text: `${path} = ${formatValue(operation.value)}` };
      case 'remove': {
        // A set member is keyed in the patch but stored as a list in `before`: its path names it.
        const removed = valueAt(liveSpecOf(change), operation.path);
        return { marker: '-', text: removed === undefined ? path : `${path} = ${formatValue(removed)}` };
      }
      case 'replace':
        return {
          marker: '~',
          text: `${path}: ${formatValue(valueAt(liveSpecOf(change), operation.path))} → ${formatValue(operation.value)}`,
        };
      default:
        return { marker: '~', text: `${path}: ${operation.op}` };
    }
  });
}

/** Lines for a create: every desired field, a secret as its source (`(sensitive, from env PBX_PW)`). */
export function createLines(change: PlannedChange): FieldLine[] {
  return Object.entries(desiredSpecOf(change) ?? {}).map(([key, value]) => {
    const source = change.secret_sources?.[key];
    return {
      marker: '+',
      text: `${printable(key)} = ${source ? printable(sensitiveLabel(source)) : formatValue(value)}`,
    };
  });
}

/**
 * Lines for the secrets an update sends: where each comes from, and why it is sent. A change of
 * source reads like any other field change (`from env A → from env B`), value or no value change.
 */
export function secretLines(change: PlannedChange): FieldLine[] {
  return Object.entries(secretsOf(change) ?? {}).map(([field, secret]) => {
    const now = sensitiveLabel(change.secret_sources?.[field]);
    if (secret.source_before) {
      const why =
        secret.value === 'same'
          ? ''
          : secret.value === 'changed'
            ? ' (value changed)'
            : ' (will be set: cannot be compared)';
      return { marker: '~', text: `${field}: ${sensitiveLabel(secret.source_before)} → ${now}${why}` };
    }
    return {
      marker: '~',
      text: `${field} = ${now} ${secret.value === 'unverifiable' ? 'will be set (cannot be compared)' : 'changed'}`,
    };
  });
}

export const actionOrder: readonly PlanAction[] = [
  'create',
  'adopt',
  'update',
  'replace',
  'delete',
  'wait',
  'blocked',
  'noop',
];

export const actionMarker: Record<PlanAction, string> = {
  create: '+',
  adopt: '<=',
  update: '~',
  replace: '-/+',
  delete: '-',
  wait: '…',
  blocked: '!',
  noop: ' ',
};

export const actionHeading: Record<PlanAction, string> = {
  create: 'will be created',
  adopt: 'will be adopted (it exists and matches by name)',
  update: 'will be updated in place',
  replace: 'must be replaced',
  delete: 'will be deleted',
  wait: 'waits for the registry',
  blocked: 'cannot be changed',
  noop: 'is up to date',
};

/** The plan's counts; adoptions (no request, but the state takes the object over) only when there are some. */
export function summaryLine(summary: PlanSummary, moved = 0): string {
  const adopt = summary.adopt > 0 ? `, ${summary.adopt} to adopt` : '';
  const move = moved > 0 ? `, ${moved} to move` : '';
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.replace} to replace, ${summary.delete} to delete${adopt}${move}. Cost: ${formatUsd(summary.cost_usd)} USD. Irreversible: ${summary.irreversible}.`;
}

/** The wait the request range is shown for when the command does not know it (`plan`). */
export const referenceWaitMs = 10 * 60_000;

/**
 * "about N API requests", with the registry polls of `--wait` as a range when changes wait for the
 * registry (how many depends on how long the registry takes).
 */
export function requestsLine(summary: PlanSummary, waitMs: number | undefined): string {
  const reads = summary.api_reads ?? 0;
  const parts = reads > 0 ? ` (${reads} to read the account, ${summary.api_requests - reads} to change it)` : '';
  const base = `API requests to apply: about ${summary.api_requests}${parts}`;
  if (summary.wait === 0) return `${base}.`;
  const wait = waitMs ?? referenceWaitMs;
  const range = waitRequests(summary.wait, wait);
  return `${base}; with --wait ${formatMinutes(wait)}, ${summary.api_requests + range.min} to ${summary.api_requests + range.max} (registry polls).`;
}

function formatMinutes(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

export function formatUsd(amount: number): string {
  return Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
}

/**
 * What a plan with nothing to show says. With `--exclude` or `--target` the plan covers part of the
 * account only, so it cannot say the account matches: the changes left out are not looked at.
 */
export function noChangesLine(plan: Plan): string {
  if (plan.excluded && plan.excluded.length > 0)
    return `No changes outside what --exclude leaves out (${plan.excluded.map(printable).join(', ')}); those may still differ from the manifests.`;
  if (plan.targets && plan.targets.length > 0)
    return `No changes to ${plan.targets.map(printable).join(', ')} or what ${plan.targets.length === 1 ? 'it needs' : 'they need'}.`;
  return 'No changes. The account matches the manifests.';
}

/** The headline every format starts a teardown (`--destroy`) with, or undefined for an ordinary plan. */
export function teardownHeadline(plan: Plan): string | undefined {
  if (!plan.destroy) return undefined;
  const count = plan.changes.filter((change) => supersededOf(change) === undefined).length;
  return `TEARDOWN (--destroy): this plan deletes every resource telform manages in account ${printable(plan.account)} (${count}); what telform never managed is left alone.`;
}

/** How many changes carry a move (`metadata.moved_from`) for the state to record. */
export function countMoves(changes: readonly PlannedChange[]): number {
  return changes.filter((change) => change.moved_from !== undefined).length;
}

/** Flags of a change as short words, for headings. */
export function flagWords(change: PlannedChange): string[] {
  const words: string[] = [];
  if (change.flags.irreversible) words.push('irreversible');
  if (change.flags.billable_usd > 0) words.push(`billable ${formatUsd(change.flags.billable_usd)} USD`);
  if (change.flags.breaks_auth) words.push('breaks auth');
  if (change.flags.breaks_calls) words.push('breaks calls');
  if (change.flags.needs_unassign) words.push('needs unassign');
  if (change.drifted) words.push('drift');
  return words;
}
