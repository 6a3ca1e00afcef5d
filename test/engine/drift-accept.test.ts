import { describe, expect, it } from 'vitest';
import { acceptDrift } from '../../src/engine/drift-accept.js';
import { buildPlan } from '../../src/engine/planner.js';
import { allKinds, desired, ledgerWith, live, planInputs } from './builders.js';

/** Which values `drift --write` writes: the account's own changes, never the manifest's, never a secret. */
const kinds = new Map(allKinds.map((kind) => [kind.kind, kind]));
const source = { file: 'pbx.yaml', line: 4, column: 9 };
const applied = { name: 'pbx', secure: false, trunk_direction: 'outbound', ipacl_uuid: { ref: 'office' } };
const ledger = ledgerWith([
  { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: { name: 'office', ip_addresses: ['203.0.113.10'] } },
  { kind: 'TrunkIpAcl', name: 'lab', id: 'acl-2', spec: { name: 'lab', ip_addresses: ['198.51.100.1'] } },
  { kind: 'Trunk', name: 'pbx', id: 'tr-1', spec: applied },
]);
const account = new Map([
  [
    'TrunkIpAcl',
    [
      live('acl-1', { name: 'office', ip_addresses: ['203.0.113.10', '192.0.2.7'] }),
      live('acl-2', { name: 'lab', ip_addresses: ['198.51.100.1'] }),
    ],
  ],
  // Out of band: secure turned on and the trunk pointed at the lab ACL; its name is what the manifest now wants.
  ['Trunk', [live('tr-1', { name: 'pbx', secure: true, trunk_direction: 'outbound', ipacl_uuid: 'acl-2' })]],
]);

function planWith(trunkSpec: Record<string, unknown>) {
  return buildPlan(
    planInputs({
      desired: [
        desired(
          'TrunkIpAcl',
          'office',
          { name: 'office', ip_addresses: ['203.0.113.10'] },
          { source: { ...source, line: 1 } },
        ),
        desired('TrunkIpAcl', 'lab', { name: 'lab', ip_addresses: ['198.51.100.1'] }),
        desired('Trunk', 'pbx', trunkSpec, { source }),
      ],
      live: account,
      ledger,
    }),
  );
}

describe('acceptDrift', () => {
  it('writes the live values of the fields the account changed, references as references', () => {
    const accepted = acceptDrift(planWith(applied), ledger, kinds);
    expect(accepted.resources).toEqual([
      {
        address: 'TrunkIpAcl/office',
        source: { ...source, line: 1 },
        fields: [{ field: 'ip_addresses', value: ['203.0.113.10', '192.0.2.7'] }],
      },
      {
        address: 'Trunk/pbx',
        source,
        fields: [
          { field: 'ipacl_uuid', value: { ref: 'lab' } },
          { field: 'secure', value: true },
        ],
      },
    ]);
    expect(accepted.notes).toEqual([]);
  });

  it('leaves a field the manifest changed too, and accepts only the addresses given', () => {
    const accepted = acceptDrift(planWith({ ...applied, secure: true, trunk_direction: 'outbound' }), ledger, kinds, [
      'Trunk/pbx',
    ]);
    expect(accepted.resources).toEqual([
      { address: 'Trunk/pbx', source, fields: [{ field: 'ipacl_uuid', value: { ref: 'lab' } }] },
    ]);
    expect(() => acceptDrift(planWith(applied), ledger, kinds, ['Trunk/pbc'])).toThrow(
      '--accept Trunk/pbc: not a resource changed outside telform; did you mean Trunk/pbx? (changed outside telform: Trunk/pbx, TrunkIpAcl/office)',
    );
  });
});
