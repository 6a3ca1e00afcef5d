import { describe, expect, it } from 'vitest';
import {
  renderHistoryJson,
  renderHistoryMarkdown,
  renderHistoryText,
  type HistoryView,
} from '../../src/render/history.js';
import type { HistoryRecord } from '../../src/state/history.js';

// `telform history --accounts` in each format: one section per account, each from its own state, an
// account whose state could not be read said in its place; live text escaped for the destination.
const record: HistoryRecord = {
  format_version: 1,
  seq: 3,
  prev: 'a'.repeat(64),
  at: '2026-11-20T10:02:41.000Z',
  origin: {
    commit: '3f2a9c1d00000000000000000000000000000000',
    ci: { system: 'github-actions', run: '812' },
    actor: 'ana|ops',
  },
  hash: 'b'.repeat(64),
  type: 'apply',
  trigger: 'rollout',
  wave: { number: 2, of: 3 },
  plan: { digest: 'c'.repeat(64), created_at: '2026-11-20T10:02:00.000Z' },
  approvals: {},
  changes: [
    {
      address: 'TrunkIpAcl/edge',
      kind: 'TrunkIpAcl',
      action: 'update',
      id: 'acl-1',
      before: { ip_addresses: ['203.0.113.50'] },
      after: { ip_addresses: [] },
      requests: 1,
      fees_usd: 0,
      result: 'done',
    },
  ],
  requests: 1,
  fees_usd: 0,
  result: 'applied',
};
const views: HistoryView[] = [
  { account: 'east|1', location: 'east.state.json', records: [record] },
  { account: 'west', location: 'west.state.json', records: [], error: 'cannot read the state west.state.json: EACCES' },
];

describe('the history of several accounts', () => {
  it('renders markdown: a table per account, the unreadable one said, names escaped', () => {
    expect(renderHistoryMarkdown(views)).toBe(
      [
        '### History: east\\|1 — `east.state.json`',
        '',
        '| # | When | What | Origin | Changes | Result |',
        '|---|---|---|---|---|---|',
        '| 3 | 2026-11-20 10:02 UTC | apply (rollout wave 2/3) | commit 3f2a9c1, github-actions run 812, by ana\\|ops | update `TrunkIpAcl/edge` | applied |',
        '',
        '### History: west — `west.state.json`',
        '',
        'cannot read the state west.state.json: EACCES',
        '',
      ].join('\n'),
    );
  });

  it('renders text and JSON with the same accounts', () => {
    expect(views.map((view) => renderHistoryText(view)).join('\n')).toBe(
      [
        'east|1 (east.state.json): 1 record, newest first',
        '',
        '#3  2026-11-20 10:02 UTC  apply (rollout wave 2/3)  commit 3f2a9c1, github-actions run 812, by ana|ops',
        '    ~ TrunkIpAcl/edge  update',
        '    applied · 1 change · 1 request · 0.00 USD · plan cccccccccccc',
        '',
        'west (west.state.json): cannot read the state west.state.json: EACCES',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(renderHistoryJson(views, true)) as {
      accounts: Array<{ account: string; state: string; error?: string; records: Array<{ seq: number }> }>;
    };
    expect(
      json.accounts.map((account) => [
        account.account,
        account.state,
        account.error,
        account.records.map((one) => one.seq),
      ]),
    ).toEqual([
      ['east|1', 'east.state.json', undefined, [3]],
      ['west', 'west.state.json', 'cannot read the state west.state.json: EACCES', []],
    ]);
  });
});
