import { describe, expect, it } from 'vitest';
import {
  describeEvent,
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

// An apply of a signed plan shows each change's rules and approvers (and an emergency's reason); an
// acknowledgement of drift is a record of its own.
const signed: HistoryRecord = {
  ...record,
  seq: 4,
  trigger: 'apply',
  wave: undefined,
  changes: [
    { ...(record as Extract<HistoryRecord, { type: 'apply' }>).changes[0]!, address: 'TrunkIpAcl/office' },
    {
      address: 'Trunk/pbx-out',
      kind: 'Trunk',
      action: 'update',
      id: '3002',
      before: { trunk_status: 'enabled' },
      after: { trunk_status: 'disabled' },
      requests: 1,
      fees_usd: 0,
      result: 'done',
    },
  ],
  requests: 2,
  signoff: {
    digest: 'd'.repeat(64),
    changes: [
      { address: 'TrunkIpAcl/office', rules: [{ rule: 'acl-self-heal', needs: 'none', approvers: [] }] },
      {
        address: 'Trunk/pbx-out',
        rules: [
          {
            rule: 'trunk-hours',
            needs: '2 of voice-leads',
            approvers: [
              { person: 'alice', roles: ['voice-leads'], key: 'SHA256:a' },
              { person: 'bob', roles: ['voice-leads', 'sre'], key: 'SHA256:b' },
            ],
          },
        ],
      },
    ],
    approvals: [],
    emergency: { reason: 'carrier outage *INC-7*', by: 'bob', role: 'sre' },
  },
} as HistoryRecord;
const acknowledged: HistoryRecord = {
  format_version: 1,
  seq: 5,
  prev: 'e'.repeat(64),
  at: '2026-11-20T11:00:00.000Z',
  origin: { actor: 'carol' },
  hash: 'f'.repeat(64),
  type: 'drift_ack',
  ack: {
    format: 'telform-drift-ack/v1',
    account: 'MA01',
    address: 'TrunkIpAcl/office',
    fingerprint: 'sha256:0',
    reason: 'carrier test, CHG-118 \u202e',
    person: 'carol',
    signed_at: '2026-11-20T11:00:00.000Z',
    until: '2026-11-20T12:00:00.000Z',
    signature: '-----BEGIN SSH SIGNATURE-----',
  },
};

describe('signoffs and acknowledgements in the history', () => {
  const view: HistoryView = { location: 'voice.state.json', records: [signed, acknowledged] };

  it('text: the rules and approvers under each change, the emergency, and the acknowledgement', () => {
    expect(renderHistoryText(view)).toBe(
      [
        'voice.state.json: 2 records, newest first',
        '',
        '#5  2026-11-20 11:00 UTC  drift acknowledged  by carol',
        '    TrunkIpAcl/office acknowledged by carol until 2026-11-20 12:00 UTC: carrier test, CHG-118 \\u202e',
        '',
        '#4  2026-11-20 10:02 UTC  apply  commit 3f2a9c1, github-actions run 812, by ana|ops',
        '    ~ TrunkIpAcl/office  update',
        '        rule acl-self-heal (needs none)',
        '    ~ Trunk/pbx-out  update',
        '        rule trunk-hours (2 of voice-leads): alice [voice-leads], bob [voice-leads, sre]',
        '    emergency by bob (sre): carrier outage *INC-7*',
        '    applied · 2 changes · 2 requests · 0.00 USD · plan cccccccccccc',
        '',
      ].join('\n'),
    );
  });

  it('markdown: the same in the changes cell, escaped for markdown', () => {
    expect(renderHistoryMarkdown([view])).toBe(
      [
        '### History: `voice.state.json`',
        '',
        '| # | When | What | Origin | Changes | Result |',
        '|---|---|---|---|---|---|',
        '| 5 | 2026-11-20 11:00 UTC | drift acknowledged | by carol | `TrunkIpAcl/office` acknowledged by carol until 2026-11-20 12:00 UTC: carrier test, CHG-118 \\\\u202e |  |',
        '| 4 | 2026-11-20 10:02 UTC | apply | commit 3f2a9c1, github-actions run 812, by ana\\|ops | update `TrunkIpAcl/office` — rule acl-self-heal (needs none)<br>update `Trunk/pbx-out` — rule trunk-hours (2 of voice-leads): alice \\[voice-leads\\], bob \\[voice-leads, sre\\]<br>emergency by bob (sre): carrier outage \\*INC-7\\* | applied |',
        '',
      ].join('\n'),
    );
  });
});

describe('the rest of a saved plan that partly failed', () => {
  it('names the attempt it finishes', () => {
    expect(describeEvent({ ...signed, finishes: 3 } as HistoryRecord)).toBe('apply (the rest of #3)');
  });
});
