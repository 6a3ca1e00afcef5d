// Who owns the account, from its markers and the ledger's hand-overs; what a ledger may write.
import { describe, expect, it } from 'vitest';
import { assertMayWrite, claimNote, claimsOnWrite, ownershipOf } from '../../src/state/ownership.js';
import { assertImportOwnership, ownedAmong, ownedIdsByKind } from '../../src/state/import-ownership.js';
import { emptyLedger, type Ledger } from '../../src/state/ledger.js';
import { everything } from '../../src/resources/ownership-scope.js';
import type { LedgerStore } from '../../src/state/ledger-store.js';

const store = (ledger: Ledger, existed = true) =>
  ({ ledger, file: 'telform.state.json', existed }) as unknown as LedgerStore;

describe('ownershipOf', () => {
  it('tells unclaimed, ours, and another lineage apart (ours and another at once is another)', () => {
    expect(ownershipOf([], 'l-1')).toEqual({ status: 'unclaimed' });
    expect(ownershipOf([{ id: 'a', lineage: 'l-1', scope: everything }], 'l-1')).toEqual({
      status: 'ours',
      marker: { id: 'a', lineage: 'l-1', scope: everything },
    });
    expect(ownershipOf([{ id: 'b', lineage: 'l-2', scope: everything }], 'l-1')).toEqual({
      status: 'other',
      owners: [{ id: 'b', lineage: 'l-2', scope: everything, overlap: 'every kind' }],
      ours: undefined,
    });
    expect(
      ownershipOf(
        [
          { id: 'a', lineage: 'l-1', scope: everything },
          { id: 'b', lineage: 'l-2', scope: everything },
        ],
        'l-1',
      ),
    ).toMatchObject({ status: 'other', ours: { id: 'a' } });
  });
});

describe('assertMayWrite', () => {
  const ledger = { ...emptyLedger('local', 'MA1'), lineage: 'l-1' };
  it('lets the owner and anyone in an unclaimed account write, except a ledger that released it', () => {
    expect(() =>
      assertMayWrite(
        { status: 'ours', marker: { id: 'a', lineage: 'l-1', scope: everything } },
        store(ledger),
        'MA1',
        'apply',
      ),
    ).not.toThrow();
    expect(() => assertMayWrite({ status: 'unclaimed' }, store(ledger), 'MA1', 'apply')).not.toThrow();
    const released = {
      ...ledger,
      ownership: [
        { action: 'claim' as const, at: 't1' },
        { action: 'release' as const, at: 't2' },
      ],
    };
    expect(() => assertMayWrite({ status: 'unclaimed' }, store(released), 'MA1', 'apply')).toThrow(
      'apply refused: the state telform.state.json released account MA1 (telform state release, t2) and no longer writes to it; run telform state claim to take it back',
    );
  });

  it('refuses another lineage, naming the owner and the hand-over', () => {
    const other = {
      status: 'other' as const,
      owners: [{ id: 'b', lineage: 'l-2', scope: everything, overlap: 'every kind' }],
      ours: undefined,
    };
    expect(() => assertMayWrite(other, store(ledger), 'MA1', 'plan')).toThrow(
      "plan refused: account MA1 is owned by the telform ledger of lineage l-2, not by the state telform.state.json (lineage l-1); drift and telform state list still read it; to hand it over, run telform state release with the owner's state and then telform state claim with this one, or, if the owner's state is lost, telform state claim --take-over l-2",
    );
    expect(() => assertMayWrite(other, store(ledger, false), 'MA1', 'plan')).toThrow(
      /not by a new state telform\.state\.json;/,
    );
  });
});

describe('claimsOnWrite', () => {
  const ledger = { ...emptyLedger('local', 'MA1'), lineage: 'l-1' };
  it('claims only an account nobody owns, and never for a ledger that released it', () => {
    expect(claimsOnWrite({ status: 'unclaimed' }, ledger)).toBe(true);
    expect(claimsOnWrite({ status: 'ours', marker: { id: 'a', lineage: 'l-1', scope: everything } }, ledger)).toBe(
      false,
    );
    expect(
      claimsOnWrite(
        {
          status: 'other',
          owners: [{ id: 'b', lineage: 'l-2', scope: everything, overlap: 'every kind' }],
          ours: undefined,
        },
        ledger,
      ),
    ).toBe(false);
    const released = {
      ...ledger,
      ownership: [
        { action: 'claim' as const, at: 't1' },
        { action: 'release' as const, at: 't2' },
      ],
    };
    expect(claimsOnWrite({ status: 'unclaimed' }, released)).toBe(false);
  });

  it('names a stored state by its lineage, a new one by its file (its lineage is made when it is first stored)', () => {
    expect(claimNote(store(ledger), 'MA1', 0)).toBe(
      'note: this apply claims account MA1 for the state telform.state.json (lineage l-1): nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read the account (hand-over: telform state release and telform state claim)',
    );
    expect(claimNote(store(ledger, false), 'MA1', 2)).toContain(
      'for the new state telform.state.json and takes over 2 objects already in it: nobody owns it yet, so its first write is an ownership marker;',
    );
  });
});

describe('import ownership', () => {
  const ledger: Ledger = {
    ...emptyLedger('local', 'MA1'),
    resources: {
      'TrunkIpAcl/office': {
        kind: 'TrunkIpAcl',
        name: 'office',
        id: 'acl-1',
        applied_spec: {},
        secrets: {},
        updated_at: 't',
        superseded: ['acl-0'],
      },
    },
  };
  it('knows the owned ids by kind (superseded too) and lists what an import skips', () => {
    expect(ownedIdsByKind(ledger)).toEqual(
      new Map([
        [
          'TrunkIpAcl',
          new Map([
            ['acl-1', 'office'],
            ['acl-0', 'office'],
          ]),
        ],
      ]),
    );
    expect(
      ownedAmong(
        new Map([
          ['TrunkIpAcl', [{ id: 'acl-1' }, { id: 'acl-9' }]],
          ['Trunk', [{ id: 'acl-1' }]],
        ]),
        ledger,
      ),
    ).toEqual(['TrunkIpAcl/office']);
  });

  it('refuses a second address for an owned id and any write over an existing entry', () => {
    expect(() =>
      assertImportOwnership([{ kind: 'TrunkIpAcl', address: 'TrunkIpAcl/office-2', id: 'acl-1' }], ledger),
    ).toThrow(/already manages TrunkIpAcl\/office-2/);
    expect(() =>
      assertImportOwnership([{ kind: 'TrunkIpAcl', address: 'TrunkIpAcl/office', id: 'acl-7' }], ledger),
    ).toThrow(/already manages TrunkIpAcl\/office/);
    expect(() =>
      assertImportOwnership([{ kind: 'TrunkIpAcl', address: 'TrunkIpAcl/new', id: 'acl-7' }], ledger),
    ).not.toThrow();
  });
});
