// The approval rules' table: as `telform approvals` prints it, and as the markdown plan's section.
import { describe, expect, it } from 'vitest';
import type { ApprovalTable } from '../../src/engine/plan-types.js';
import { renderApprovalTableText } from '../../src/render/approval-table.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { change, plan } from '../support/plan.js';

const table: ApprovalTable = {
  digest: 'ab'.repeat(32),
  changes: [
    {
      address: 'Trunk/pbx-out',
      rules: [
        {
          rule: 'trunk-changes',
          needs: '2 of voice-leads',
          ttl: '24h',
          windows: ['mon,tue,wed,thu,fri 09:00-17:00 America/Chicago'],
          approved_by: ['alice'],
          missing: 1,
          expired: ['bob'],
          window_open: true,
        },
      ],
      frozen: [],
    },
    {
      address: 'TrunkIpAcl/office',
      rules: [
        {
          rule: 'acl-self-heal',
          needs: 'none',
          ttl: '72h',
          windows: [],
          approved_by: [],
          missing: 0,
          expired: [],
          window_open: true,
        },
      ],
      frozen: [],
    },
  ],
  refusals: ['Trunk/pbx-out: rule trunk-changes needs 2 of voice-leads; approved by alice; 1 more missing (of bob)'],
};

describe('the approval table', () => {
  it('prints per change and rule what it needs, who signed and what is missing', () => {
    expect(renderApprovalTableText(table)).toBe(
      [
        'Approvals of plan abababababab:',
        '  Trunk/pbx-out',
        '    trunk-changes: needs 2 of voice-leads (ttl 24h), within mon,tue,wed,thu,fri 09:00-17:00 America/Chicago; approved by alice, bob (expired); 1 missing',
        '  TrunkIpAcl/office',
        '    acl-self-heal: needs none; approved by -; no approval needed',
        'apply would refuse now:',
        '  - Trunk/pbx-out: rule trunk-changes needs 2 of voice-leads; approved by alice; 1 more missing (of bob)',
        '',
      ].join('\n'),
    );
  });

  it('is the markdown plan\'s "Approvals" section', () => {
    const markdown = renderMarkdown(
      plan([change({ address: 'Trunk/pbx-out', action: 'update' })], { approval_rules: table }),
    );
    expect(markdown).toContain(
      [
        '#### Approvals',
        '',
        `Plan digest \`${'ab'.repeat(32)}\`.`,
        '',
        '| Change | Rule | Needs | Approved by | Status |',
        '|---|---|---|---|---|',
        '| `Trunk/pbx-out` | trunk-changes | 2 of voice-leads, ttl 24h, within mon,tue,wed,thu,fri 09:00-17:00 America/Chicago | alice, bob (expired) | ❌ 1 missing |',
        '| `TrunkIpAcl/office` | acl-self-heal | none | - | ✅ no approval needed |',
        '',
        'To approve, each reviewer signs the saved plan and commits the file it writes: `telform approve telform-plan.json --as NAME --key ~/.ssh/id_ed25519 --policy POLICY --approvals telform-approvals` (docs/approvals.md).',
      ].join('\n'),
    );
  });
});
