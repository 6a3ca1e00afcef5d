import { describe, expect, it } from 'vitest';
import { markdownLimit, renderMarkdown } from '../../src/render/markdown.js';
import { change, plan } from '../support/plan.js';

describe('renderMarkdown', () => {
  it('puts irreversible and billable changes first and folds the details', () => {
    const output = renderMarkdown(
      plan([
        change({ address: 'TrunkIpAcl/office', action: 'create', after: { name: 'office' } }),
        change({
          address: 'Campaign/promo',
          action: 'update',
          before: { description: 'old text' },
          patch: [{ op: 'replace', path: '/description', value: 'new text' }],
          flags: {
            billable_usd: 15,
            irreversible: false,
            breaks_auth: false,
            breaks_calls: false,
            needs_unassign: false,
          },
        }),
      ]),
    );
    expect(output).toContain(
      'Plan: 1 to create, 1 to update, 0 to replace, 0 to delete. Cost: 15 USD. Irreversible: 0.',
    );
    expect(output).toContain('| **cost** | **15 USD** |');
    expect(output).toContain('- **Campaign/promo** will be updated in place — billable 15 USD');
    expect(output.indexOf('<code>Campaign/promo</code>')).toBeLessThan(
      output.indexOf('<code>TrunkIpAcl/office</code>'),
    );
    expect(output).toContain('```diff\n! description: "old text" → "new text"\n```');
  });

  it('stays under the comment limit however large the plan, and counts what it left out', () => {
    const many = Array.from({ length: 5000 }, (_, index) =>
      change({
        address: `TrunkIpAcl/acl-${index}`,
        action: 'create',
        after: { name: `acl-${index}`, ip_addresses: ['203.0.113.1', '203.0.113.2'] },
      }),
    );
    const output = renderMarkdown(plan(many));
    expect(output.length).toBeLessThan(markdownLimit);
    expect(output).toMatch(/_…and \d+ more changes not shown \(\d+ create\); run `telform plan` for the full plan._/);
  });
});
