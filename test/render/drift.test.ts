import { describe, expect, it } from 'vitest';
import { renderDriftMarkdown } from '../../src/render/drift.js';
import { change, plan } from '../support/plan.js';

describe('renderDriftMarkdown', () => {
  it('shows what differs for each resource changed outside telform, set members by name', () => {
    const drifted = change({
      address: 'TrunkIpAcl/office',
      action: 'update',
      drifted: true,
      before: { name: 'office', ip_addresses: ['203.0.113.10', '192.0.2.200'] },
      after: { name: 'office', ip_addresses: ['203.0.113.10'] },
      patch: [{ op: 'remove', path: '/ip_addresses/192.0.2.200' }],
    });
    const gone = change({ address: 'Trunk/pbx', action: 'create', drifted: true });
    const text = renderDriftMarkdown(
      { status: 'drifted', drifted: ['TrunkIpAcl/office', 'Trunk/pbx'], pending: [], notes: [] },
      plan([drifted, gone]),
    );
    expect(text).toBe(
      [
        '### telform drift',
        '',
        'Status: **drifted**',
        '',
        'Changed outside telform:',
        '',
        '- `TrunkIpAcl/office`',
        '',
        '  ```diff',
        '  - ip_addresses["192.0.2.200"]',
        '  ```',
        '- `Trunk/pbx`: deleted from the account',
        '',
        '',
      ].join('\n'),
    );
  });
});

describe('acknowledged drift in the markdown report', () => {
  it('lists each acknowledgement with who, until when, why and its history record, live text escaped', () => {
    const text = renderDriftMarkdown({
      status: 'in_sync',
      drifted: [],
      pending: [],
      notes: [],
      acknowledged: [
        {
          address: 'TrunkIpAcl/office',
          by: 'carol',
          reason: 'carrier test from *192.0.2.44*, CHG-118',
          until: '2026-11-28T09:22:58.206Z',
          seq: 3,
        },
      ],
    });
    expect(text).toBe(
      [
        '### telform drift',
        '',
        'Status: **in sync**',
        '',
        'Acknowledged drift (not counted until it ends or the object drifts further):',
        '',
        '- `TrunkIpAcl/office`: by carol until 2026-11-28T09:22:58.206Z: carrier test from \\*192.0.2.44\\*, CHG-118 (history #3)',
        '',
        '',
      ].join('\n'),
    );
  });
});
