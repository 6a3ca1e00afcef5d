import { describe, expect, it } from 'vitest';
import { emptyLedger } from '../../src/state/ledger.js';
import { ledgerIdsToFetch, matchResources } from '../../src/engine/match.js';
import { desired, ledgerWith, live, testKind } from './builders.js';
import { kindsByName } from '../../src/engine/kinds.js';

describe('matchResources', () => {
  it('adopts by natural key in list order, computing each key once, not once per resource and object', () => {
    let keysComputed = 0;
    const kind = testKind('Trunk', {
      live: {
        naturalKey: (spec) => {
          keysComputed += 1;
          return typeof spec['name'] === 'string' ? spec['name'] : undefined;
        },
      },
    });
    const count = 50;
    const wanted = Array.from({ length: count }, (_, index) => desired('Trunk', `t${index}`, { name: `t${index}` }));
    const objects = Array.from({ length: count }, (_, index) =>
      live(`id-${count - 1 - index}`, { name: `t${count - 1 - index}` }),
    );
    const matches = matchResources({
      kinds: kindsByName([kind]),
      desired: wanted,
      live: new Map([['Trunk', objects]]),
      ledger: emptyLedger('local', 'MA1'),
      fetchedById: new Map(),
    });
    expect(
      matches.map((match) =>
        match.type === 'matched' ? `${match.desired.name}=${match.live.id}:${match.adopted}` : match.type,
      ),
    ).toEqual(wanted.map((resource, index) => `${resource.name}=id-${index}:true`));
    expect(keysComputed).toBe(2 * count);
  });

  it('refuses two unowned objects with one natural key, naming both ids', () => {
    const kind = testKind('Trunk');
    const run = () =>
      matchResources({
        kinds: kindsByName([kind]),
        desired: [desired('Trunk', 'a', { name: 'a' })],
        live: new Map([['Trunk', [live('id-1', { name: 'a' }), live('id-2', { name: 'a' })]]]),
        ledger: emptyLedger('local', 'MA1'),
        fetchedById: new Map(),
      });
    expect(run).toThrow(/2 live objects match Trunk\/a by name \(id-1, id-2\)/);
  });
});

describe('matchResources with a natural key that is a reference', () => {
  it('adopts a brand whose profile is a { ref } to a profile adopted (or owned) in the same plan', () => {
    const profile = testKind('Profile', { naturalKeyField: 'profile_alias' });
    const brand = testKind('Brand', {
      naturalKeyField: 'profile_uuid',
      references: [{ field: 'profile_uuid', target: 'Profile' }],
    });
    const objects = new Map([
      ['Profile', [live('p-1', { profile_alias: 'shop' }), live('p-2', { profile_alias: 'other' })]],
      ['Brand', [live('b-2', { profile_uuid: 'p-2' }), live('b-1', { profile_uuid: 'p-1' })]],
    ]);
    const wanted = [
      desired('Profile', 'shop', { profile_alias: 'shop' }),
      desired('Brand', 'shop-brand', { profile_uuid: { ref: 'shop' } }),
    ];
    const summary = (ledger = emptyLedger('local', 'MA1')) =>
      matchResources({
        kinds: kindsByName([profile, brand]),
        desired: wanted,
        live: objects,
        ledger,
        fetchedById: new Map(),
      }).map((match) =>
        match.type === 'matched'
          ? `${match.desired.address}=${match.live.id}:${match.adopted ? 'adopted' : 'owned'}`
          : `${match.type}`,
      );
    expect(summary()).toEqual(['Profile/shop=p-1:adopted', 'unmanaged', 'Brand/shop-brand=b-1:adopted', 'unmanaged']);
    expect(
      summary(ledgerWith([{ kind: 'Profile', name: 'shop', id: 'p-1', spec: { profile_alias: 'shop' } }])),
    ).toEqual(['Profile/shop=p-1:owned', 'unmanaged', 'Brand/shop-brand=b-1:adopted', 'unmanaged']);
    // A profile that is not matched leaves the brand to be created.
    const created = matchResources({
      kinds: kindsByName([profile, brand]),
      desired: [wanted[1]!],
      live: objects,
      ledger: emptyLedger('local', 'MA1'),
      fetchedById: new Map(),
    });
    expect(created.find((match) => match.type !== 'unmanaged')).toMatchObject({ type: 'missing', vanished: false });
  });
});

describe('ledgerIdsToFetch', () => {
  it('names the ledger ids missing from their kind’s list', () => {
    const ledger = ledgerWith([
      { kind: 'Trunk', name: 'a', id: 'id-a', spec: {} },
      { kind: 'Trunk', name: 'b', id: 'id-b', spec: {} },
      { kind: 'Other', name: 'c', id: 'id-c', spec: {} },
    ]);
    expect(ledgerIdsToFetch(ledger, new Map([['Trunk', [live('id-a', {})]]]))).toEqual([
      { address: 'Trunk/b', kind: 'Trunk', id: 'id-b' },
    ]);
  });
});
