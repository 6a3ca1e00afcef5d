import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { emitManifest } from '../../src/manifest/emit.js';

describe('emitManifest (import) and characters from the account (issue 33 item 7)', () => {
  it('writes bidi, line-separator and C1 characters as escapes in double-quoted scalars, and reads back the same', async () => {
    const spec = {
      description: 'Orders\u202eTOPS',
      sample1: 'a\u2028b\u2029c\u0085d',
      flags: ['x\u2066y', 'plain'],
      nested: { note: 'n\u200fo' },
    };
    const text = await emitManifest(
      [{ kind: 'Campaign', name: 'orders', spec, comments: ['from the account: \u202eevil'] }],
      'schema.json',
    );
    expect(text).not.toMatch(/[\u202e\u2028\u2029\u0085\u2066\u200f]/);
    expect(text).toContain('description: "Orders\\u202eTOPS"');
    const documents = parseAllDocuments(text);
    const first = Array.isArray(documents) ? documents[0] : undefined;
    expect(first?.errors).toEqual([]);
    expect((first?.toJS() as { spec: unknown }).spec).toEqual(spec);
  });
});
