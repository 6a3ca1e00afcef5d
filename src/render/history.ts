// `telform history`: the records of a state newest first (text, JSON, markdown), or one address's
// timeline across applies, drift seen and registry events. Values come from the live account and the
// manifests: escaped for the terminal (controls, bidi) and for markdown.
import type { HistoryChange, HistoryRecord, HistorySignoff, RunOrigin } from '../state/history.js';
import { printable, printableJson } from '../util/printable.js';
import { escapeMarkdown, markdownCode } from './markdown-escape.js';

/** One state's history, or one account's of `--accounts`. */
export interface HistoryView {
  location: string;
  /** Oldest first, as stored. */
  records: readonly HistoryRecord[];
  /** `--accounts`: the account's name. */
  account?: string;
  error?: string;
}

/** `2026-11-20 10:02 UTC`: minutes are what a reader compares; JSON keeps the whole timestamp. */
export function shortTime(at: string): string {
  return `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}

/** `commit 3f2a9c1 (uncommitted changes), github-actions run 812 by alice` */
export function describeOrigin(origin: RunOrigin): string {
  const parts: string[] = [];
  if (origin.commit) parts.push(`commit ${origin.commit.slice(0, 7)}${origin.dirty ? ' (uncommitted changes)' : ''}`);
  if (origin.ci) parts.push(`${origin.ci.system} run ${origin.ci.run}`);
  if (origin.actor) parts.push(`by ${origin.actor}${origin.host && !origin.ci ? `@${origin.host}` : ''}`);
  return printable(parts.join(', '));
}

/** What the record is, in a few words: `apply`, `revert of #2`, `serve apply`, `wave 2/3`, `state mv`. */
export function describeEvent(record: HistoryRecord): string {
  switch (record.type) {
    case 'apply': {
      const what =
        record.trigger === 'revert'
          ? `revert of #${record.reverts ?? '?'}`
          : record.trigger === 'serve'
            ? 'serve apply'
            : 'apply';
      if (record.interrupted) return `${what} (interrupted; recorded from its journal by the next run)`;
      if (record.finishes !== undefined) return `${what} (the rest of #${record.finishes})`;
      return record.wave ? `${what} (rollout wave ${record.wave.number}/${record.wave.of})` : what;
    }
    case 'state_edit':
      return printable(record.command);
    case 'drift':
      return 'drift seen';
    case 'registry':
      return 'registry';
    case 'drift_ack':
      return 'drift acknowledged';
    default:
      return 'record';
  }
}

/** The newest first list of one state's records (the whole history, or the records of `address`). */
export function renderHistoryText(view: HistoryView, address?: string): string {
  const lines: string[] = [];
  const records = [...view.records].reverse();
  const heading = view.account ? `${printable(view.account)} (${printable(view.location)})` : printable(view.location);
  if (view.error) return `${heading}: ${printable(view.error)}\n`;
  if (records.length === 0) {
    const none = address
      ? `no record of ${printable(address)} in the history of ${heading}`
      : `no history in ${heading} yet: applies and state edits add to it`;
    return `${none}\n`;
  }
  lines.push(
    address
      ? `${printable(address)} in ${heading}: ${count(records.length, 'record')}, newest first`
      : `${heading}: ${count(records.length, 'record')}, newest first`,
  );
  for (const record of records) {
    lines.push('');
    lines.push(
      `#${record.seq}  ${shortTime(record.at)}  ${describeEvent(record)}  ${describeOrigin(record.origin)}`.trimEnd(),
    );
    for (const line of bodyLines(record, address)) lines.push(`    ${line}`);
  }
  return `${lines.join('\n')}\n`;
}

function bodyLines(record: HistoryRecord, address: string | undefined): string[] {
  switch (record.type) {
    case 'apply': {
      const changes = address ? record.changes.filter((change) => change.address === address) : record.changes;
      const lines = changes.flatMap((change) => [
        ...changeLines(change, address !== undefined),
        ...signoffLines(record.signoff, change.address).map((line) => `    ${line}`),
      ]);
      if (record.signoff?.emergency) lines.push(emergencyText(record.signoff.emergency));
      lines.push(
        `${record.result} · ${count(record.changes.length, 'change')} · ${count(record.requests, 'request')} · ${record.fees_usd.toFixed(2)} USD · plan ${record.plan.digest.slice(0, 12)}${record.plan.seal ? ' (saved, sealed)' : ''}`,
      );
      return lines;
    }
    case 'state_edit':
      return record.edits.map(
        (edit) =>
          `${printable(edit.address)}${edit.to ? ` → ${printable(edit.to)}` : ''}${edit.removed ? ' forgotten (left in the account)' : ''}`,
      );
    case 'drift':
      return record.drifted
        .filter((item) => !address || item.address === address)
        .map(
          (item) =>
            `${printable(item.address)} changed outside telform ${item.since ? `after ${shortTime(item.since)}` : `since ${shortTime(record.checked_at)}`}, before ${shortTime(record.at)}`,
        );
    case 'registry':
      return [
        `${printable(record.address)} ${record.from ? `${printable(record.from)} → ` : ''}${printable(record.status)}`,
      ];
    case 'drift_ack':
      return [ackText(record.ack)];
    default:
      return [];
  }
}

type Acknowledgement = Extract<HistoryRecord, { type: 'drift_ack' }>['ack'];

/** `TrunkIpAcl/office acknowledged by carol until 2026-11-28 09:22 UTC: carrier test` */
function ackText(ack: Acknowledgement): string {
  return `${printable(ack.address)} acknowledged by ${printable(ack.person)} until ${shortTime(ack.until)}: ${printable(ack.reason)}`;
}

/** `emergency by carol (sre): carrier outage INC-7` */
function emergencyText(emergency: NonNullable<HistorySignoff['emergency']>): string {
  return `emergency by ${printable(emergency.by)} (${printable(emergency.role)}): ${printable(emergency.reason)}`;
}

/**
 * The approval rules a change passed, one line each: `rule trunk-changes (2 of voice-leads): alice
 * [voice-leads], bob [voice-leads, sre]`, or `rule acl-self-heal (needs none)`.
 */
function signoffLines(signoff: HistorySignoff | undefined, address: string): string[] {
  const rules = signoff?.changes.find((change) => change.address === address)?.rules ?? [];
  return rules.map((rule) =>
    rule.needs === 'none'
      ? `rule ${printable(rule.rule)} (needs none)`
      : `rule ${printable(rule.rule)} (${printable(rule.needs)}): ${rule.approvers
          .map((approver) => `${printable(approver.person)} [${approver.roles.map(printable).join(', ')}]`)
          .join(', ')}`,
  );
}

const markers: Record<string, string> = {
  create: '+',
  update: '~',
  replace: '±',
  delete: '-',
  adopt: '=',
  wait: '…',
  blocked: '!',
  move: '→',
};

/** A change as a line, and with `fields` each top-level field that differs (`uri: "a" → "b"`). */
function changeLines(change: HistoryChange, fields: boolean): string[] {
  const result =
    change.result === 'done' ? '' : ` (${change.result}${change.error ? `: ${printable(change.error)}` : ''})`;
  const flags = [
    change.irreversible ? 'irreversible' : '',
    change.fees_usd > 0 ? `${change.fees_usd.toFixed(2)} USD` : '',
  ].filter(Boolean);
  const lines = [
    `${markers[change.action] ?? '?'} ${printable(change.address)}  ${change.action}${change.moved_from ? ` (from ${printable(change.moved_from)})` : ''}${result}${flags.length > 0 ? `  [${flags.join(', ')}]` : ''}`,
  ];
  if (!fields) return lines;
  for (const { field, before, after } of fieldChanges(change))
    lines.push(`    ${printable(field)}: ${printable(before)} → ${printable(after)}`);
  for (const field of secretChanges(change)) lines.push(`    ${printable(field)}: (secret, changed)`);
  return lines;
}

/** The top-level fields whose value differs between before and after, as JSON text (`-` when absent). */
export function fieldChanges(change: HistoryChange): Array<{ field: string; before: string; after: string }> {
  const before = change.before ?? {};
  const after = change.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return fields.flatMap((field) => {
    const was = field in before ? JSON.stringify(before[field]) : '-';
    const now = field in after ? JSON.stringify(after[field]) : '-';
    return was === now ? [] : [{ field, before: was, after: now }];
  });
}

/** The write-only fields whose fingerprint changed (never their value). */
function secretChanges(change: HistoryChange): string[] {
  const before = change.secrets_before ?? {};
  const after = change.secrets_after ?? {};
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .sort()
    .filter((field) => before[field]?.hmac !== after[field]?.hmac);
}

/** JSON: `{ state, records }` newest first (or `{ accounts: [...] }`), control and bidi characters escaped. */
export function renderHistoryJson(views: readonly HistoryView[], accounts: boolean): string {
  const shape = (view: HistoryView) => ({
    ...(view.account ? { account: view.account } : {}),
    state: view.location,
    ...(view.error ? { error: view.error } : {}),
    records: [...view.records].reverse(),
  });
  const body = accounts ? { accounts: views.map(shape) } : shape(views[0] as HistoryView);
  return `${printableJson(JSON.stringify(body, null, 2))}\n`;
}

/** Markdown (a pull request, an incident note): a table per state, newest first. */
export function renderHistoryMarkdown(views: readonly HistoryView[], address?: string): string {
  const parts: string[] = [];
  for (const view of views) {
    const title = view.account
      ? `${escapeMarkdown(view.account)} — ${markdownCode(view.location)}`
      : markdownCode(view.location);
    parts.push(`### History${address ? ` of ${markdownCode(address)}` : ''}: ${title}`, '');
    if (view.error) {
      parts.push(escapeMarkdown(view.error), '');
      continue;
    }
    if (view.records.length === 0) {
      parts.push('No records.', '');
      continue;
    }
    parts.push('| # | When | What | Origin | Changes | Result |', '|---|---|---|---|---|---|');
    for (const record of [...view.records].reverse()) {
      parts.push(
        `| ${record.seq} | ${shortTime(record.at)} | ${escapeMarkdown(describeEvent(record))} | ${escapeMarkdown(describeOrigin(record.origin))} | ${markdownChanges(record, address)} | ${record.type === 'apply' ? record.result : ''} |`,
      );
    }
    parts.push('');
  }
  return `${parts.join('\n')}`;
}

function markdownChanges(record: HistoryRecord, address: string | undefined): string {
  switch (record.type) {
    case 'apply':
      return [
        ...record.changes
          .filter((change) => !address || change.address === address)
          .map(
            (change) =>
              `${change.action} ${markdownCode(change.address)}${
                address
                  ? fieldChanges(change)
                      .map((field) => ` ${markdownCode(`${field.field}: ${field.before} → ${field.after}`)}`)
                      .join('')
                  : ''
              }${signoffLines(record.signoff, change.address)
                .map((line) => ` — ${escapeMarkdown(line)}`)
                .join('')}`,
          ),
        ...(record.signoff?.emergency ? [escapeMarkdown(emergencyText(record.signoff.emergency))] : []),
      ].join('<br>');
    case 'state_edit':
      return record.edits
        .map((edit) => `${markdownCode(edit.address)}${edit.to ? ` → ${markdownCode(edit.to)}` : ''}`)
        .join('<br>');
    case 'drift':
      return record.drifted.map((item) => `changed ${markdownCode(item.address)}`).join('<br>');
    case 'registry':
      return `${markdownCode(record.address)} ${escapeMarkdown(record.status)}`;
    case 'drift_ack':
      return `${markdownCode(record.ack.address)} acknowledged by ${escapeMarkdown(record.ack.person)} until ${shortTime(record.ack.until)}: ${escapeMarkdown(record.ack.reason)}`;
    default:
      return '';
  }
}

/** `1 record`, `2 records`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
