// Builders of plans and their changes for tests of what reads a plan (renderers, gates, serve,
// apply's scheduling): a change is taken as given, the tests choose its fields, and the plan's
// summary is counted from its changes.
import { planFormatVersion } from '../../src/engine/plan-format.js';
import type { ChangeFlags, Plan, PlannedChange } from '../../src/engine/plan-types.js';

/** The flags of a change that breaks nothing and costs nothing; spread it to set one. */
export const noFlags: ChangeFlags = {
  billable_usd: 0,
  irreversible: false,
  breaks_auth: false,
  breaks_calls: false,
  needs_unassign: false,
};

export function change(overrides: Partial<PlannedChange> & Pick<PlannedChange, 'address' | 'action'>): PlannedChange {
  const [kind = '', name = ''] = overrides.address.split('/');
  return {
    kind,
    name,
    reasons: [],
    flags: { ...noFlags },
    patch: [],
    depends_on: [],
    api_requests: 1,
    ...overrides,
  } as PlannedChange;
}

export function plan(changes: PlannedChange[], overrides: Partial<Plan> = {}): Plan {
  const count = (action: string) => changes.filter((item) => item.action === action).length;
  return {
    format_version: planFormatVersion,
    created_at: '2026-11-25T00:00:00.000Z',
    endpoint: 'local',
    account: 'MAEMULATOR0000000001',
    changes,
    unmanaged: [],
    summary: {
      create: count('create'),
      update: count('update'),
      replace: count('replace'),
      delete: count('delete'),
      adopt: count('adopt'),
      wait: count('wait'),
      blocked: count('blocked'),
      noop: count('noop'),
      cost_usd: changes.reduce((sum, item) => sum + item.flags.billable_usd, 0),
      irreversible: changes.filter((item) => item.flags.irreversible).length,
      api_requests: changes.reduce((sum, item) => sum + item.api_requests, 0),
    },
    warnings: [],
    approvals: {
      allow_irreversible: [],
      max_cost_usd: null,
      force_deletes: false,
      allow_empty: false,
      prune_unmanaged: [],
    },
    basis: { ledger_lineage: 'l', ledger_serial: 0, objects: {} },
    ...overrides,
  };
}
