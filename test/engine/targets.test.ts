import { describe, expect, it } from 'vitest';
import { limitToTargets } from '../../src/engine/targets.js';
import { kindsByName } from '../../src/engine/kinds.js';
import { buildPlan } from '../../src/engine/planner.js';
import { change, plan } from '../support/plan.js';
import { allKinds, desired, ledgerWith, live, planInputs } from './builders.js';

/** `--target`: the closure of the targets over `depends_on` and the references of their desired specs, and nothing else. */
const whole = plan(
  [
    change({
      address: 'TrunkIpAcl/office',
      action: 'update',
      patch: [{ op: 'add', path: '/ip_addresses/192.0.2.1', value: '192.0.2.1' }],
    }),
    change({ address: 'TrunkCredential/login', action: 'noop' }),
    change({ address: 'Trunk/pbx', action: 'update', depends_on: ['TrunkIpAcl/office', 'TrunkCredential/login'] }),
    change({
      address: 'Campaign/promo',
      action: 'replace',
      flags: { billable_usd: 15, irreversible: true, breaks_auth: false, breaks_calls: false, needs_unassign: false },
    }),
    change({ address: 'Campaign/#CM1', action: 'delete', superseded_of: 'Campaign/promo' }),
    change({ address: 'SipIpAcl/old', action: 'delete' }),
  ],
  {
    warnings: ['Campaign/promo is still being reviewed by the registry', 'a warning about no resource'],
    basis: {
      ledger_lineage: 'l',
      ledger_serial: 3,
      objects: {
        'TrunkIpAcl/office': 'a',
        'Trunk/pbx': 'b',
        'Trunk/pbx#password': 'secret:x',
        'Campaign/promo': 'c',
        'SipIpAcl/old': 'd',
      },
    },
  },
);

describe('limitToTargets', () => {
  it('keeps the targets and everything they depend on, with their basis, and says what was left out', () => {
    const limited = limitToTargets(whole, ['Trunk/pbx'], kindsByName(allKinds));
    expect(limited.changes.map((item) => item.address)).toEqual([
      'TrunkIpAcl/office',
      'TrunkCredential/login',
      'Trunk/pbx',
    ]);
    expect(limited.targets).toEqual(['Trunk/pbx']);
    expect(Object.keys(limited.basis.objects)).toEqual(['TrunkIpAcl/office', 'Trunk/pbx', 'Trunk/pbx#password']);
    expect(limited.summary).toMatchObject({ update: 2, noop: 1, replace: 0, delete: 0, cost_usd: 0, irreversible: 0 });
    expect(limited.warnings).toEqual([
      '--target: this plan covers only Trunk/pbx and what it depends on (3 of 6 resources); the other 3 were not looked at, and changes to them are neither shown nor applied',
      'a warning about no resource',
    ]);
  });

  it('brings the delete of a replaced object along with its replace, and can target a delete', () => {
    const limited = limitToTargets(whole, ['SipIpAcl/old', 'Campaign/promo'], kindsByName(allKinds));
    expect(limited.changes.map((item) => item.address)).toEqual(['Campaign/promo', 'Campaign/#CM1', 'SipIpAcl/old']);
    expect(limited.targets).toEqual(['Campaign/promo', 'SipIpAcl/old']);
    expect(limited.summary).toMatchObject({ replace: 1, delete: 2, cost_usd: 15, irreversible: 1 });
    expect(limited.warnings).toContain('Campaign/promo is still being reviewed by the registry');
  });

  it('leaves a plan without targets as it is, and refuses an address that names nothing', () => {
    expect(limitToTargets(whole, [], kindsByName(allKinds))).toBe(whole);
    expect(() => limitToTargets(whole, ['Trunk/pxb'], kindsByName(allKinds))).toThrow(
      '--target Trunk/pxb: no such resource in the manifests or the state; did you mean Trunk/pbx?',
    );
  });
});

describe('limitToTargets on a planned account', () => {
  const acl = desired('TrunkIpAcl', 'office', { name: 'office', ip_addresses: ['203.0.113.10', '203.0.113.11'] });
  const trunk = desired('Trunk', 'pbx-out', {
    name: 'pbx-out',
    trunk_direction: 'outbound',
    secure: false,
    ipacl_uuid: { ref: 'office' },
  });
  const other = desired('TrunkIpAcl', 'lab', { name: 'lab', ip_addresses: ['198.51.100.1'] });

  it('keeps the update of a resource the target refers to, though the target itself does not change', () => {
    const planned = buildPlan(
      planInputs({
        desired: [acl, trunk, other],
        live: new Map([
          [
            'TrunkIpAcl',
            [
              live('acl-1', { name: 'office', ip_addresses: ['203.0.113.10'] }),
              live('acl-2', { name: 'lab', ip_addresses: [] }),
            ],
          ],
          [
            'Trunk',
            [live('t-1', { name: 'pbx-out', trunk_direction: 'outbound', secure: false, ipacl_uuid: 'acl-1' })],
          ],
        ]),
        ledger: ledgerWith([
          { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec },
          { kind: 'TrunkIpAcl', name: 'lab', id: 'acl-2', spec: other.spec },
          { kind: 'Trunk', name: 'pbx-out', id: 't-1', spec: trunk.spec },
        ]),
      }),
    );
    const limited = limitToTargets(planned, ['Trunk/pbx-out'], kindsByName(allKinds));
    expect(limited.changes.map((item) => [item.address, item.action])).toEqual([
      ['TrunkIpAcl/office', 'update'],
      ['Trunk/pbx-out', 'noop'],
    ]);
    expect(limited.summary).toMatchObject({ update: 1, noop: 1 });
  });
});
