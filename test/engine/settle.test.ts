import { describe, expect, it } from 'vitest';
import type { UncertainOperation } from '../../src/state/journal.js';
import type { Ledger } from '../../src/state/ledger.js';
import { buildPlan } from '../../src/engine/planner.js';
import { settleOperations } from '../../src/engine/settle.js';
import type { LiveObject } from '../../src/resources/live-side.js';
import { aclKind, desired, ledgerWith, live, planInputs, testKind, trunkKind } from './builders.js';

const credentialKind = testKind('SipCredential', {
  naturalKeyField: 'username',
  fields: { updatable: ['password'], replaceOn: ['username'] },
  secretFields: ['password'],
});
const kinds = new Map([aclKind, trunkKind, credentialKind].map((kind) => [kind.kind, kind]));
const at = '2026-11-25T10:00:00.000Z';
const now = new Date('2026-11-25T10:05:00Z');

function intent(
  seq: number,
  fields: Partial<UncertainOperation> & Pick<UncertainOperation, 'address' | 'action'>,
): UncertainOperation {
  return { type: 'intent', seq, at, kind: fields.address.split('/')[0] as string, ...fields };
}

function settle(
  uncertain: UncertainOperation[],
  ledger: Ledger,
  objects: Record<string, LiveObject[]>,
  reread = new Map<number, LiveObject | null>(),
) {
  return settleOperations({ kinds, uncertain, ledger, live: new Map(Object.entries(objects)), reread, now });
}

const trunkSent = { name: 'pbx', trunk_direction: 'outbound', secure: true, ipacl_uuid: 'acl-1' };
const trunkSpec = { name: 'pbx', trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'office' } };

describe('settling an interrupted create', () => {
  it('claims, among namesakes, the only unowned one with every field it sent, made after the intent', () => {
    const ledger = ledgerWith([{ kind: 'Trunk', name: 'other', id: 't-owned', spec: {} }]);
    const objects = {
      Trunk: [
        live('t-owned', trunkSent, { createdAt: '2026-11-25T10:00:01Z' }),
        live('t-other-fields', { ...trunkSent, secure: false }, { createdAt: '2026-11-25T10:00:01Z' }),
        live('t-older', trunkSent, { createdAt: '2026-11-25T09:00:00Z' }),
        live('t-made', trunkSent, { createdAt: '2026-11-25T10:00:01Z' }),
      ],
    };
    const [settlement] = settle(
      [intent(1, { address: 'Trunk/pbx', action: 'create', fields: trunkSent, spec: trunkSpec })],
      ledger,
      objects,
    );
    expect(settlement).toEqual({
      address: 'Trunk/pbx',
      action: 'create',
      outcome: 'claimed',
      entry: {
        kind: 'Trunk',
        name: 'pbx',
        id: 't-made',
        applied_spec: trunkSpec,
        secrets: {},
        updated_at: now.toISOString(),
      },
      note: `an earlier apply stopped while creating it (${at}): claimed Trunk t-made, the only object nobody owns named "pbx" with every field that create sent, created 2026-11-25T10:00:01Z`,
    });
  });

  it('never picks between two objects it could equally have made: the change is blocked with both ids', () => {
    const objects = { Trunk: [live('t-1', trunkSent), live('t-2', trunkSent)] };
    const settled = settle(
      [intent(1, { address: 'Trunk/pbx', action: 'create', fields: trunkSent, spec: trunkSpec })],
      ledgerWith([]),
      objects,
    );
    expect(settled).toEqual([
      {
        address: 'Trunk/pbx',
        action: 'create',
        outcome: 'ambiguous',
        candidates: ['t-1', 't-2'],
        entry: undefined,
        note: `an earlier apply stopped while creating it (${at}): 2 objects nobody owns could be the one it made (t-1, t-2), and the account's reads cannot tell them apart; it is not created again (that could make a second Trunk): adopt the right one with \`telform import\` or delete the ones that are not, then run again`,
      },
    ]);
  });

  it('keeps an object read without its name a candidate: claimed when dated since the intent, blocked when not', () => {
    const unnamed = { trunk_direction: 'outbound', secure: true, ipacl_uuid: 'acl-1' };
    const run = (extra: Partial<LiveObject>) =>
      settle(
        [intent(1, { address: 'Trunk/pbx', action: 'create', fields: trunkSent, spec: trunkSpec })],
        ledgerWith([]),
        { Trunk: [live('t-9', unnamed, { unread: ['name'], ...extra })] },
      )[0];
    expect(run({ createdAt: '2026-11-25T10:00:02Z' })).toMatchObject({
      outcome: 'claimed',
      entry: { id: 't-9' },
      note: `an earlier apply stopped while creating it (${at}): claimed Trunk t-9, the only object nobody owns made since with every field that create sent the account shows (its name is not read back), created 2026-11-25T10:00:02Z`,
    });
    expect(run({})).toMatchObject({
      outcome: 'ambiguous',
      candidates: ['t-9'],
      entry: undefined,
      note: `an earlier apply stopped while creating it (${at}): t-9 might be the one it made, but the account's reads show neither its name nor when it was made; it is not created again (that could make a second Trunk): adopt the right one with \`telform import\` or delete the ones that are not, then run again`,
    });
    // Made before the create began: not the one it made, so the create did not happen.
    expect(run({ createdAt: '2026-11-25T08:00:00Z' })).toMatchObject({ outcome: 'not_found' });
  });

  it('blocks the create it cannot tell, so the plan never sends it again', () => {
    const objects = {
      Trunk: [live('t-9', { trunk_direction: 'outbound', secure: true, ipacl_uuid: 'acl-1' }, { unread: ['name'] })],
      TrunkIpAcl: [live('acl-1', { name: 'office' })],
    };
    const ledger = ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: { name: 'office' } }]);
    const settled = settle(
      [intent(1, { address: 'Trunk/pbx', action: 'create', fields: trunkSent, spec: trunkSpec })],
      ledger,
      objects,
    );
    const plan = buildPlan(
      planInputs({
        desired: [desired('Trunk', 'pbx', trunkSpec), desired('TrunkIpAcl', 'office', { name: 'office' })],
        live: new Map(Object.entries(objects)),
        ledger,
        settled,
      }),
    );
    expect(plan.changes.filter((change) => change.action !== 'noop').map((c) => [c.address, c.action])).toEqual([
      ['Trunk/pbx', 'blocked'],
    ]);
  });

  it('says the create did not happen when nothing matches', () => {
    const [settlement] = settle(
      [intent(1, { address: 'Trunk/pbx', action: 'create', fields: trunkSent, spec: trunkSpec })],
      ledgerWith([]),
      { Trunk: [] },
    );
    expect(settlement).toMatchObject({ outcome: 'not_found', entry: undefined });
    expect(settlement?.note).toBe(
      `an earlier apply stopped while creating it (${at}): no Trunk named "pbx" with the fields it sent exists, so it did not happen`,
    );
  });

  it('keeps the replaced object owned (superseded) when the new one of a replace is claimed, and leaves its secret to be set', () => {
    const ledger = ledgerWith([{ kind: 'SipCredential', name: 'alice', id: 'c-old', spec: { username: 'alice' } }]);
    ledger.resources['SipCredential/alice']!.secrets = { password: { hmac: 'h', key_id: 'k' } };
    const objects = { SipCredential: [live('c-old', { username: 'alice' }), live('c-new', { username: 'alice2' })] };
    const [settlement] = settle(
      [
        intent(1, {
          address: 'SipCredential/alice',
          action: 'create',
          id: 'c-old',
          replace: true,
          fields: { username: 'alice2' },
          spec: { username: 'alice2' },
          secret_fields: ['password'],
        }),
      ],
      ledger,
      objects,
    );
    expect(settlement?.entry).toMatchObject({
      id: 'c-new',
      superseded: ['c-old'],
      secrets: {},
      applied_spec: { username: 'alice2' },
    });
  });

  it('is planned like any owned resource: deleted when the manifests dropped it, with the claim in the plan', () => {
    const objects = { TrunkIpAcl: [live('acl-9', { name: 'gone', ip_addresses: ['192.0.2.9'] })] };
    const ledger = ledgerWith([]);
    const settled = settle(
      [
        intent(1, {
          address: 'TrunkIpAcl/gone',
          action: 'create',
          fields: { name: 'gone', ip_addresses: ['192.0.2.9'] },
          spec: { name: 'gone', ip_addresses: ['192.0.2.9'] },
        }),
      ],
      ledger,
      objects,
    );
    for (const settlement of settled) if (settlement.entry) ledger.resources[settlement.address] = settlement.entry;
    const plan = buildPlan(
      planInputs({
        desired: [desired('TrunkIpAcl', 'kept', { name: 'kept', ip_addresses: ['192.0.2.1'] })],
        live: new Map(Object.entries(objects)),
        ledger,
        settled,
      }),
    );
    const deleted = plan.changes.find((change) => change.address === 'TrunkIpAcl/gone');
    expect(deleted).toMatchObject({ action: 'delete', id: 'acl-9' });
    expect(deleted?.reasons).toEqual([
      'removed from the manifests',
      `an earlier apply stopped while creating it (${at}): claimed TrunkIpAcl acl-9, the only object nobody owns named "gone" with every field that create sent`,
    ]);
    expect(plan.unmanaged).toEqual([]);
  });
});

describe('settling an interrupted update or delete', () => {
  const aclLedger = () =>
    ledgerWith([
      { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: { name: 'office', ip_addresses: ['192.0.2.1'] } },
    ]);
  const update = intent(4, {
    address: 'TrunkIpAcl/office',
    action: 'update',
    id: 'acl-1',
    fields: { name: 'office', ip_addresses: ['192.0.2.2'] },
    spec: { name: 'office', ip_addresses: ['192.0.2.2'] },
  });

  it('records the update when the re-read object holds what it sent', () => {
    const [settlement] = settle(
      [update],
      aclLedger(),
      {},
      new Map([[4, live('acl-1', { name: 'office', ip_addresses: ['192.0.2.2'] })]]),
    );
    expect(settlement).toMatchObject({
      outcome: 'applied',
      entry: { id: 'acl-1', applied_spec: { name: 'office', ip_addresses: ['192.0.2.2'] } },
    });
  });

  it('keeps the last applied spec when it does not, so the plan sends it again', () => {
    const [settlement] = settle(
      [update],
      aclLedger(),
      {},
      new Map([[4, live('acl-1', { name: 'office', ip_addresses: ['192.0.2.1'] })]]),
    );
    expect(settlement).toMatchObject({
      outcome: 'not_applied',
      entry: { applied_spec: { name: 'office', ip_addresses: ['192.0.2.1'] } },
    });
  });

  it('forgets the fingerprint of a secret an interrupted update sent (the account never shows it)', () => {
    const ledger = ledgerWith([{ kind: 'SipCredential', name: 'alice', id: 'c-1', spec: { username: 'alice' } }]);
    ledger.resources['SipCredential/alice']!.secrets = { password: { hmac: 'h', key_id: 'k' } };
    const [settlement] = settle(
      [
        intent(2, {
          address: 'SipCredential/alice',
          action: 'update',
          id: 'c-1',
          fields: { username: 'alice' },
          spec: { username: 'alice' },
          secret_fields: ['password'],
        }),
      ],
      ledger,
      {},
      new Map([[2, live('c-1', { username: 'alice' })]]),
    );
    expect(settlement?.entry).toMatchObject({ id: 'c-1', secrets: {} });
  });

  it('forgets a resource whose interrupted delete happened, and keeps one whose delete did not', () => {
    const remove = intent(5, { address: 'TrunkIpAcl/office', action: 'delete', id: 'acl-1' });
    expect(settle([remove], aclLedger(), {}, new Map([[5, null]]))[0]).toMatchObject({
      outcome: 'deleted',
      entry: null,
    });
    expect(settle([remove], aclLedger(), {}, new Map([[5, live('acl-1', {})]]))[0]).toMatchObject({
      outcome: 'not_deleted',
      entry: undefined,
    });
  });

  it('drops a replaced object from the entry once its interrupted delete is found done', () => {
    const ledger = aclLedger();
    ledger.resources['TrunkIpAcl/office']!.superseded = ['acl-0'];
    const [settlement] = settle(
      [intent(6, { address: 'TrunkIpAcl/office', action: 'delete', id: 'acl-0', replace: true })],
      ledger,
      {},
      new Map([[6, null]]),
    );
    expect(settlement?.entry).toMatchObject({ id: 'acl-1' });
    expect(settlement?.entry).not.toHaveProperty('superseded');
  });
});
