import { describe, expect, it } from 'vitest';
import { describeWindow } from '../../src/run/drift-window.js';
import type { HistoryRecord } from '../../src/state/history.js';

// Since when a change outside telform can have happened, as `drift` says it: in minutes, and in
// seconds when the whole window lies within one minute (serve checking every few seconds).
const apply: HistoryRecord & { type: 'apply' } = {
  format_version: 1,
  seq: 41,
  prev: null,
  at: '2026-11-20T10:02:13.000Z',
  origin: {
    commit: '3f2a9c1d00000000000000000000000000000000',
    ci: { system: 'github-actions', run: '812' },
    actor: 'ana',
  },
  hash: 'a'.repeat(64),
  type: 'apply',
  trigger: 'apply',
  plan: { digest: 'b'.repeat(64), created_at: '2026-11-20T10:02:00.000Z' },
  approvals: {},
  changes: [],
  requests: 0,
  fees_usd: 0,
  result: 'applied',
};

describe('a drift window', () => {
  it('runs from the apply that last wrote the resource to the check, in minutes', () => {
    expect(describeWindow({ address: 'Trunk/pbx', apply, checkedAt: '2026-11-20T10:40:05.000Z' })).toBe(
      'Trunk/pbx: in sync at apply #41 (2026-11-20 10:02 UTC, commit 3f2a9c1, github-actions run 812, by ana); changed before the check at 2026-11-20 10:40 UTC',
    );
  });

  it('is told in seconds when serve saw it within one minute', () => {
    expect(
      describeWindow({
        address: 'Trunk/pbx',
        apply,
        seen: { since: '2026-11-27T05:05:54.156Z', at: '2026-11-27T05:05:56.192Z' },
        checkedAt: '2026-11-27T05:07:00.000Z',
      }),
    ).toBe(
      'Trunk/pbx: in sync at the check at 2026-11-27 05:05:54 UTC; changed before the check at 2026-11-27 05:05:56 UTC (seen by serve)',
    );
    expect(
      describeWindow({
        address: 'Trunk/pbx',
        apply,
        seen: { since: '2026-11-27T05:04:54.156Z', at: '2026-11-27T05:05:56.192Z' },
        checkedAt: '2026-11-27T05:07:00.000Z',
      }),
    ).toBe(
      'Trunk/pbx: in sync at the check at 2026-11-27 05:04 UTC; changed before the check at 2026-11-27 05:05 UTC (seen by serve)',
    );
  });
});
