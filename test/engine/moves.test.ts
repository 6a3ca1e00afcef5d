import { describe, expect, it } from 'vitest';
import { followMoves } from '../../src/engine/moves.js';
import { buildPlan } from '../../src/engine/planner.js';
import { desired, ledgerWith, live, planInputs } from './builders.js';

/** Moves in the manifests: the state's entry follows the rename, and nothing is created or deleted. */
const acl = { name: 'office', ip_addresses: ['203.0.113.10'] };
const trunkSpec = { name: 'pbx', secure: true, ipacl_uuid: { ref: 'office' }, trunk_direction: 'outbound' };
const state = ledgerWith([
  { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl },
  { kind: 'Trunk', name: 'pbx', id: 'tr-1', spec: trunkSpec },
]);
const account = new Map([
  ['TrunkIpAcl', [live('acl-1', acl)]],
  ['Trunk', [live('tr-1', { ...trunkSpec, ipacl_uuid: 'acl-1' })]],
]);

describe('moves in the plan', () => {
  it('plans a renamed resource as its old object, moved, with no create or delete', () => {
    // The trunk keeps its live name (spec.name written), the ACL takes its new one (a live rename).
    const plan = buildPlan(
      planInputs({
        desired: [
          desired('TrunkIpAcl', 'main-office', { ...acl, name: 'main-office' }, { movedFrom: ['TrunkIpAcl/office'] }),
          desired(
            'Trunk',
            'pbx-out',
            { ...trunkSpec, ipacl_uuid: { ref: 'main-office' } },
            { movedFrom: ['Trunk/pbx'] },
          ),
        ],
        live: account,
        ledger: state,
      }),
    );
    expect(plan.changes.map((change) => [change.address, change.action, change.moved_from])).toEqual([
      ['TrunkIpAcl/main-office', 'update', 'TrunkIpAcl/office'],
      ['Trunk/pbx-out', 'noop', 'Trunk/pbx'],
    ]);
    expect(plan.changes[0]?.patch).toEqual([{ op: 'replace', path: '/name', value: 'main-office' }]);
    expect(plan.changes[1]?.reasons).toEqual(['moved from Trunk/pbx (metadata.moved_from); the state follows it']);
    expect(plan.summary).toMatchObject({ create: 0, delete: 0, update: 1, noop: 1 });
    expect(plan.warnings).toEqual([]);
  });

  it('says a move already recorded (or with nothing to move) is a note, not a change', () => {
    const moved = ledgerWith([
      { kind: 'TrunkIpAcl', name: 'main-office', id: 'acl-1', spec: { ...acl, name: 'main-office' } },
    ]);
    const plan = buildPlan(
      planInputs({
        desired: [
          desired('TrunkIpAcl', 'main-office', { ...acl, name: 'main-office' }, { movedFrom: ['TrunkIpAcl/office'] }),
          desired(
            'TrunkIpAcl',
            'lab',
            { name: 'lab', ip_addresses: ['198.51.100.1'] },
            { movedFrom: ['TrunkIpAcl/old-lab'] },
          ),
        ],
        live: new Map([['TrunkIpAcl', [live('acl-1', { ...acl, name: 'main-office' })]]]),
        ledger: moved,
      }),
    );
    expect(plan.changes.map((change) => [change.address, change.action, change.moved_from])).toEqual([
      ['TrunkIpAcl/lab', 'create', undefined],
      ['TrunkIpAcl/main-office', 'noop', undefined],
    ]);
    expect(plan.warnings).toEqual([
      'TrunkIpAcl/main-office: the move from TrunkIpAcl/office is recorded in the state; metadata.moved_from can be removed',
      'TrunkIpAcl/lab: the state holds none of TrunkIpAcl/old-lab, so metadata.moved_from moves nothing',
    ]);
  });

  it('refuses a move to an address the state holds for another object, and a move across kinds', () => {
    const both = ledgerWith([
      { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl },
      { kind: 'TrunkIpAcl', name: 'main-office', id: 'acl-2', spec: acl },
    ]);
    const source = { file: 'acl.yaml', line: 4, column: 9 };
    const target = desired('TrunkIpAcl', 'main-office', acl, { movedFrom: ['TrunkIpAcl/office'], source });
    expect(() => followMoves([target], both, new Map())).toThrow(
      'TrunkIpAcl/main-office: moves from TrunkIpAcl/office, but the state already holds TrunkIpAcl/main-office (id acl-2, not acl-1); remove moved_from, or forget one with telform state rm',
    );
    try {
      followMoves([target], both, new Map());
    } catch (error) {
      expect((error as { code: string; place: unknown }).code).toBe('move_conflict');
      expect((error as { place: unknown }).place).toEqual({ address: 'TrunkIpAcl/main-office', source });
    }
    const crossKind = desired('Trunk', 'office', trunkSpec, { movedFrom: ['TrunkIpAcl/office'] });
    expect(() => followMoves([crossKind], state, new Map())).toThrow(
      'Trunk/office: moves from TrunkIpAcl/office, a TrunkIpAcl in the state; a move keeps the kind',
    );
    const two = desired('TrunkIpAcl', 'x', acl, { movedFrom: ['TrunkIpAcl/office', 'TrunkIpAcl/main-office'] });
    expect(() => followMoves([two], both, new Map())).toThrow(
      'moves from TrunkIpAcl/office and TrunkIpAcl/main-office, and the state holds both',
    );
  });

  it('finishes a move an apply left half done (both addresses holding one object), and re-keys objects fetched by id', () => {
    const half = ledgerWith([
      { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl },
      { kind: 'TrunkIpAcl', name: 'main-office', id: 'acl-1', spec: acl },
    ]);
    const gone = new Map([['TrunkIpAcl/office', null]]);
    const followed = followMoves(
      [desired('TrunkIpAcl', 'main-office', acl, { movedFrom: ['TrunkIpAcl/office'] })],
      half,
      gone,
    );
    expect(Object.keys(followed.ledger.resources)).toEqual(['TrunkIpAcl/main-office']);
    expect([...followed.moves]).toEqual([['TrunkIpAcl/main-office', 'TrunkIpAcl/office']]);
    expect([...followed.fetchedById]).toEqual([['TrunkIpAcl/main-office', null]]);
    // The given ledger is left as it is: the planner is pure.
    expect(Object.keys(half.resources)).toEqual(['TrunkIpAcl/office', 'TrunkIpAcl/main-office']);
  });
});
