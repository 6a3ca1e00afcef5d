import { describe, expect, it } from 'vitest';
import { renderDot, renderMermaid } from '../../src/render/graph.js';
import { change, noFlags, plan } from '../support/plan.js';

// The plan graph: nodes by change, arrows from what a change waits for, classes by action, marks.
const sample = plan([
  change({ address: 'TrunkIpAcl/office', action: 'create', depends_on: [] }),
  change({ address: 'Trunk/pbx-out', action: 'update', depends_on: ['TrunkIpAcl/office'] }),
  change({
    address: 'Trunk/"old"',
    action: 'delete',
    depends_on: [],
    flags: { ...noFlags, breaks_calls: true },
    blast: { calls: 37, messages: 0, numbers: 37, trunks: [], applications: [] },
  }),
  change({ address: 'Campaign/promo', action: 'delete', depends_on: [], flags: { ...noFlags, irreversible: true } }),
  change({ address: 'SipIpAcl/same', action: 'noop', depends_on: [] }),
]);

describe('plan graph', () => {
  it('renders mermaid: escaped labels, dependency arrows, a class per action, marked nodes', () => {
    expect(renderMermaid(sample)).toBe(
      [
        'flowchart LR',
        '  c0["TrunkIpAcl/office<br/>create"]',
        '  c1["Trunk/pbx-out<br/>update"]',
        '  c2["Trunk/\'old\'<br/>delete<br/>⚠ breaks 37 numbers"]',
        '  c3["Campaign/promo<br/>delete<br/>⚠ irreversible"]',
        '  c0 --> c1',
        '  classDef act_create fill:#d4f7d4,stroke:#2e7d32,color:#000',
        '  class c0 act_create',
        '  classDef act_update fill:#fff4c2,stroke:#b28704,color:#000',
        '  class c1 act_update',
        '  classDef act_delete fill:#fbd5d5,stroke:#c62828,color:#000',
        '  class c2,c3 act_delete',
        '  classDef danger stroke-width:4px,stroke-dasharray:6 3',
        '  class c2,c3 danger',
        '',
      ].join('\n'),
    );
  });

  it('is bounded: past the limit, critical changes stay and the rest is one node', () => {
    const text = renderMermaid(sample, 2);
    expect(text).toContain('  c0["Trunk/\'old\'<br/>delete<br/>⚠ breaks 37 numbers"]');
    expect(text).toContain('  c1["Campaign/promo<br/>delete<br/>⚠ irreversible"]');
    expect(text).toContain('  more["…and 2 more changes"]');
    expect(text).not.toContain('pbx-out');
  });

  it('renders dot with the same nodes and edges', () => {
    const text = renderDot(sample);
    expect(text).toContain(
      '  c2 [label="Trunk/\\"old\\"\\ndelete\\n⚠ breaks 37 numbers", fillcolor="#fbd5d5", color="#c62828", style="rounded,filled,bold,dashed", penwidth=3];',
    );
    expect(text).toContain('  c0 -> c1;');
    expect(renderMermaid(plan([]))).toBe('flowchart LR\n  empty["No changes"]\n');
  });
});
