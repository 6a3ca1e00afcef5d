import { emptyLedger, type Ledger } from '../../src/state/ledger.js';
import type { DesiredResource, PlannerKind, ReferenceField } from '../../src/engine/model.js';
import type { PlanApprovals } from '../../src/engine/plan-types.js';
import type { PlanInputs } from '../../src/engine/planner.js';
import type { FieldRules, LiveObject, LiveSide } from '../../src/resources/live-side.js';
import { kindsByName } from '../../src/engine/kinds.js';

/** Builders for planner tests: kinds with real rules and no I/O (the planner never calls it). */
export function testKind(
  kind: string,
  options: {
    references?: ReferenceField[];
    fields?: Partial<FieldRules>;
    naturalKeyField?: string;
    live?: Partial<LiveSide>;
    setFields?: PlannerKind['setFields'];
    secretFields?: string[];
  } = {},
): PlannerKind {
  const noIo = (): never => {
    throw new Error('the planner must not do I/O');
  };
  const keyField = options.naturalKeyField ?? 'name';
  return {
    kind,
    references: options.references ?? [],
    referenceRules: {},
    setFields: options.setFields ?? {},
    secretFields: options.secretFields ?? [],
    live: {
      naturalKey: (spec) => (typeof spec[keyField] === 'string' ? (spec[keyField] as string) : undefined),
      list: noIo,
      read: noIo,
      create: noIo,
      update: noIo,
      delete: noIo,
      fields: { updatable: [], replaceOn: [], immutable: [], unreadable: [], ...options.fields },
      billableUpdateUsd: 0,
      replaceStrategy: 'create_before_delete',
      irreversibleDelete: false,
      ...options.live,
    },
  };
}

export const aclKind = testKind('TrunkIpAcl', {
  fields: { updatable: ['name', 'ip_addresses'] },
  setFields: { ip_addresses: (member) => String(member) },
  live: { whenInUse: 'breaks_auth' },
});
export const trunkKind = testKind('Trunk', {
  references: [{ field: 'ipacl_uuid', target: 'TrunkIpAcl' }],
  fields: { updatable: ['name', 'secure', 'ipacl_uuid', 'trunk_direction'] },
});
export const brandKind = testKind('Brand', {
  naturalKeyField: 'profile_uuid',
  fields: { immutable: ['profile_uuid', 'brand_alias', 'brand_type'] },
  live: {
    irreversibleDelete: true,
    readiness: (live) =>
      live.registry?.registration_status === 'COMPLETED'
        ? 'ready'
        : live.registry?.registration_status === 'FAILED'
          ? 'failed'
          : 'pending',
  },
});
export const campaignKind = testKind('Campaign', {
  naturalKeyField: 'campaign_alias',
  references: [{ field: 'brand_id', target: 'Brand' }],
  fields: { updatable: ['campaign_alias', 'description'], replaceOn: ['usecase'] },
  live: {
    irreversibleDelete: true,
    billableUpdateUsd: 15,
    updateRefusal: (live) =>
      live.registry?.registration_status === 'FAILED' ? undefined : 'campaigns can be updated only when FAILED',
  },
});

export const allKinds = [aclKind, trunkKind, brandKind, campaignKind];

export function desired(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  extra: Partial<DesiredResource> = {},
): DesiredResource {
  return { kind, name, address: `${kind}/${name}`, protect: false, spec, secretSources: {}, ...extra };
}

export function live(id: string, spec: Record<string, unknown>, extra: Partial<LiveObject> = {}): LiveObject {
  return { id, spec, ...extra };
}

export function ledgerWith(
  entries: Array<{ kind: string; name: string; id: string; spec: Record<string, unknown> }>,
): Ledger {
  const ledger = emptyLedger('local', 'MATEST');
  for (const entry of entries) {
    ledger.resources[`${entry.kind}/${entry.name}`] = {
      kind: entry.kind,
      name: entry.name,
      id: entry.id,
      applied_spec: entry.spec,
      secrets: {},
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }
  return ledger;
}

export const noApprovals: PlanApprovals = {
  allow_irreversible: [],
  max_cost_usd: null,
  force_deletes: false,
  allow_empty: false,
  prune_unmanaged: [],
};

export function planInputs(overrides: Partial<PlanInputs>): PlanInputs {
  return {
    kinds: kindsByName(allKinds),
    desired: [],
    live: new Map(),
    fetchedById: new Map(),
    ledger: ledgerWith([]),
    secretStates: new Map(),
    settled: [],
    endpoint: 'local',
    account: 'MATEST',
    approvals: noApprovals,
    now: new Date('2026-11-25T00:00:00Z'),
    ...overrides,
  };
}
