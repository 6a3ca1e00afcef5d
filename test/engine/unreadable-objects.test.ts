import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { unreadableKey } from '../../src/engine/unread.js';
import { desired, ledgerWith, live, planInputs } from './builders.js';

// One object's failure is that object's: a ledger object whose read by id failed is unknown, so
// nothing is planned for it or what refers to it, and the rest plans as usual.

const acl = desired('TrunkIpAcl', 'office', { name: 'office', ip_addresses: ['203.0.113.10'] });
const trunk = desired('Trunk', 'pbx-out', {
  name: 'pbx-out',
  trunk_direction: 'outbound',
  secure: true,
  ipacl_uuid: { ref: 'office' },
});
const other = desired('TrunkIpAcl', 'lab', { name: 'lab', ip_addresses: ['203.0.113.20'] });

describe('a ledger object whose read failed', () => {
  it('is blocked as unknown, blocks what refers to it, and leaves the rest to plan', () => {
    const plan = buildPlan(
      planInputs({
        desired: [acl, trunk, other],
        // The ACL is missing from the list, and its read by id failed.
        live: new Map([
          ['TrunkIpAcl', [live('acl-2', { name: 'lab', ip_addresses: ['203.0.113.99'] })]],
          [
            'Trunk',
            [live('t-1', { name: 'pbx-out', trunk_direction: 'outbound', secure: false, ipacl_uuid: 'acl-1' })],
          ],
        ]),
        ledger: ledgerWith([
          { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec },
          { kind: 'TrunkIpAcl', name: 'lab', id: 'acl-2', spec: other.spec },
          { kind: 'Trunk', name: 'pbx-out', id: 't-1', spec: { ...trunk.spec, secure: false } },
        ]),
        unreadable: new Map([
          [
            unreadableKey('TrunkIpAcl', 'acl-1'),
            'the API answered 400 to GET /Zentrunk/IPAccessControlList/acl-1/: bad request',
          ],
        ]),
      }),
    );
    expect(plan.changes.map((change) => [change.address, change.action, change.reasons])).toEqual([
      ['TrunkIpAcl/lab', 'update', []],
      [
        'TrunkIpAcl/office',
        'blocked',
        [
          'acl-1 could not be read (the API answered 400 to GET /Zentrunk/IPAccessControlList/acl-1/: bad request): unknown, so nothing is planned for it this run',
        ],
      ],
      [
        'Trunk/pbx-out',
        'blocked',
        ['refers to TrunkIpAcl/office, which could not be read; planned again once it can be'],
      ],
    ]);
  });
});
