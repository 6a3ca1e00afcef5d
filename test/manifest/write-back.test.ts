import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { rewriteManifest } from '../../src/manifest/write-back.js';

/** `drift --write`'s text edits: the values change, every other byte stays. */
const file = `# yaml-language-server: $schema=../schemas/manifest.schema.json
# The office PBX.
apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: office   # the head office
spec:
  ip_addresses:
    - 203.0.113.10 # reception
    - "198.51.100.0/28"
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-out
spec:
  trunk_direction: outbound
  secure: false  # TLS later
  ipacl_uuid: { ref: office }
  fallback_uri_uuid: { ref: backup }

  credential_uuid: {ref: login}
---
apiVersion: telform/v1
kind: Campaign
metadata:
  name: orders
spec:
  sample1: 'Acme: your order has shipped. Reply STOP to opt out.'
  sample2: "Acme: delivered."
  flags: [a, b]
`;

describe('rewriteManifest', () => {
  it('changes scalars in their own quoting, edits a block list item by item, inserts and removes fields, and keeps the rest byte for byte', () => {
    const result = rewriteManifest(file, [
      {
        address: 'TrunkIpAcl/office',
        line: 6,
        fields: [{ field: 'ip_addresses', value: ['198.51.100.0/28', '192.0.2.7'] }],
      },
      {
        address: 'Trunk/pbx-out',
        line: 15,
        fields: [
          { field: 'secure', value: true },
          { field: 'ipacl_uuid', value: { ref: 'lab' } },
          { field: 'fallback_uri_uuid', value: undefined },
          { field: 'trunk_status', value: 'disabled' },
        ],
      },
      {
        address: 'Campaign/orders',
        line: 28,
        fields: [
          { field: 'sample1', value: "Acme's order shipped: reply STOP to opt out." },
          { field: 'flags', value: ['a', 'c d', 'e,f'] },
        ],
      },
    ]);
    expect(result.notes).toEqual([]);
    expect(result.written).toEqual([
      'TrunkIpAcl/office ip_addresses',
      'Trunk/pbx-out secure',
      'Trunk/pbx-out ipacl_uuid',
      'Trunk/pbx-out fallback_uri_uuid',
      'Trunk/pbx-out trunk_status',
      'Campaign/orders sample1',
      'Campaign/orders flags',
    ]);
    expect(result.text).toBe(`# yaml-language-server: $schema=../schemas/manifest.schema.json
# The office PBX.
apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: office   # the head office
spec:
  ip_addresses:
    - "198.51.100.0/28"
    - "192.0.2.7"
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-out
spec:
  trunk_direction: outbound
  secure: true  # TLS later
  ipacl_uuid: { ref: lab }

  credential_uuid: {ref: login}
  trunk_status: disabled
---
apiVersion: telform/v1
kind: Campaign
metadata:
  name: orders
spec:
  sample1: 'Acme''s order shipped: reply STOP to opt out.'
  sample2: "Acme: delivered."
  flags: [a, c d, "e,f"]
`);
    expect(parse(result.text.split('---\n')[2] as string).spec.flags).toEqual(['a', 'c d', 'e,f']);
    expect(parse(result.text.split('---\n')[2] as string).spec.sample1).toBe(
      "Acme's order shipped: reply STOP to opt out.",
    );
  });

  it('changes nothing when nothing is asked, and says so for a spec it cannot edit in place', () => {
    expect(rewriteManifest(file, []).text).toBe(file);
    const flow = 'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata: { name: office }\nspec: { ip_addresses: [] }\n';
    const result = rewriteManifest(flow, [
      { address: 'TrunkIpAcl/office', line: 3, fields: [{ field: 'ip_addresses', value: ['192.0.2.1'] }] },
    ]);
    expect(result.text).toBe(flow);
    expect(result.notes).toEqual([
      'TrunkIpAcl/office: its spec is not a block mapping at line 3, so it is left as it is',
    ]);
  });
});
