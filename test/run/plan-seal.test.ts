import { describe, expect, it } from 'vitest';
import { PlanSealer } from '../../src/run/plan-seal.js';
import { change, plan } from '../support/plan.js';

const sealer = new PlanSealer('token-one');
const sealed = sealer.seal(
  plan(
    [change({ address: 'TrunkIpAcl/office', action: 'update', after: { ip_addresses: { '192.0.2.1': '192.0.2.1' } } })],
    {
      approvals: {
        allow_irreversible: [],
        max_cost_usd: null,
        force_deletes: false,
        allow_empty: false,
        prune_unmanaged: [],
      },
    },
  ),
);

describe('PlanSealer', () => {
  it('accepts the plan it sealed, also after a JSON round trip with other key order', () => {
    expect(sealer.check(sealed)).toBe('ok');
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(sealed).reverse()))) as typeof sealed;
    expect(sealer.check(reordered)).toBe('ok');
  });

  it('detects an edit of any field, a missing seal and another token', () => {
    const edits: Array<(copy: typeof sealed) => void> = [
      (copy) =>
        ((copy.changes[0] as { after: Record<string, unknown> }).after.ip_addresses = {
          '198.51.100.1': '198.51.100.1',
        }),
      (copy) => ((copy.changes[0] as { action: string }).action = 'delete'),
      (copy) => (copy.approvals.force_deletes = true),
      (copy) => (copy.basis.ledger_serial = 7),
      (copy) => (copy.created_at = '2030-01-01T00:00:00.000Z'),
      (copy) => (copy.warnings = ['added']),
    ];
    for (const edit of edits) {
      const copy = structuredClone(sealed);
      edit(copy);
      expect(sealer.check(copy)).toBe('edited');
    }
    const { seal: _seal, ...unsealed } = sealed;
    void _seal;
    expect(sealer.check(unsealed)).toBe('missing');
    expect(new PlanSealer('token-two').check(sealed)).toBe('other_key');
    expect(new PlanSealer('token-two').seal(sealed).seal?.key_id).not.toBe(sealed.seal?.key_id);
  });
});
