import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { rewriteManifest } from '../../src/manifest/write-back.js';

/** `drift --write` on the manifests a hostile account or an unusual file makes (issue 33 items 5, 7 and 28). */
function specOf(text: string, index = 0): Record<string, unknown> {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [];
  for (const document of list) expect(document.errors).toEqual([]);
  return (list[index]?.toJS() as { spec: Record<string, unknown> }).spec;
}

const campaign = (spec: string, eol = '\n') =>
  ['apiVersion: telform/v1', 'kind: Campaign', 'metadata:', '  name: orders', 'spec:', ...spec.split('\n')].join(eol);

describe('rewriteManifest on values a style cannot hold', () => {
  it('replaces a folded or literal block scalar without gluing the next key on, and it reads back', () => {
    const text = campaign(
      '  description: >-\n    Order notifications\n    for the shop.\n  sample1: |\n    Line one\n    line two\n  vertical: RETAIL\n',
    );
    const result = rewriteManifest(text, [
      {
        address: 'Campaign/orders',
        line: 4,
        fields: [
          { field: 'description', value: 'New words' },
          { field: 'sample1', value: 'One\nTwo\n' },
        ],
      },
    ]);
    const spec = specOf(result.text);
    expect(spec).toEqual({ description: 'New words', sample1: 'One\nTwo\n', vertical: 'RETAIL' });
    expect(result.text).toContain('  description: "New words"\n  sample1: "One\\nTwo\\n"\n  vertical: RETAIL\n');
  });

  it('writes a value with a line break double-quoted where the old one was single-quoted', () => {
    const text = campaign("  sample1: 'Acme: shipped.'\n");
    const result = rewriteManifest(text, [
      { address: 'Campaign/orders', line: 4, fields: [{ field: 'sample1', value: 'Acme:\nshipped' }] },
    ]);
    expect(specOf(result.text).sample1).toBe('Acme:\nshipped');
    expect(result.text).toContain('  sample1: "Acme:\\nshipped"\n');
  });

  it('writes bidi and line-separator characters as escapes in a double-quoted scalar, whatever the old style', () => {
    const evil = 'Shipped\u202eTOPS\u2028x\u0085';
    for (const old of ["'Acme'", 'Acme', '"Acme"']) {
      const text = campaign(`  sample1: ${old}\n  flags:\n    - a\n`);
      const result = rewriteManifest(text, [
        {
          address: 'Campaign/orders',
          line: 4,
          fields: [
            { field: 'sample1', value: evil },
            { field: 'flags', value: ['a', 'b\u2066c'] },
            { field: 'extra', value: 'x\u2029' },
          ],
        },
      ]);
      expect(result.text).not.toMatch(/[\u202e\u2028\u2029\u2066\u0085]/);
      expect(result.text).toContain('sample1: "Shipped\\u202eTOPS\\u2028x\\u0085"');
      expect(specOf(result.text)).toEqual({ sample1: evil, flags: ['a', 'b\u2066c'], extra: 'x\u2029' });
    }
  });
});

describe("rewriteManifest keeps the file's line ends", () => {
  it('adds CRLF lines to a CRLF file', () => {
    const text = campaign('  vertical: RETAIL\n  flags:\n    - a\n', '\r\n');
    const result = rewriteManifest(text, [
      {
        address: 'Campaign/orders',
        line: 4,
        fields: [
          { field: 'flags', value: ['a', 'b'] },
          { field: 'usecase', value: 'MIXED' },
        ],
      },
    ]);
    expect(result.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(specOf(result.text)).toEqual({ vertical: 'RETAIL', flags: ['a', 'b'], usecase: 'MIXED' });
  });

  it('keeps a file without a final newline without one, and adds no blank line', () => {
    for (const spec of ['  vertical: RETAIL', '  flags:\n    - a']) {
      const text = campaign(spec);
      const result = rewriteManifest(text, [
        {
          address: 'Campaign/orders',
          line: 4,
          fields: [
            { field: 'flags', value: ['a', 'b'] },
            { field: 'usecase', value: 'MIXED' },
          ],
        },
      ]);
      expect(result.text.endsWith('\n')).toBe(false);
      expect(result.text).not.toMatch(/\n\s*\n/);
      expect(specOf(result.text)).toMatchObject({ flags: ['a', 'b'], usecase: 'MIXED' });
    }
  });
});

describe('rewriteManifest reads its result back before anyone saves it', () => {
  it('leaves the file unchanged and says so when the rewritten text would mean something else', () => {
    // The anchor's new value would also change the alias that reads it: not what was asked.
    const text = campaign('  sample1: &shared Acme shipped\n  sample2: *shared\n');
    const result = rewriteManifest(text, [
      { address: 'Campaign/orders', line: 4, fields: [{ field: 'sample1', value: 'Acme delivered' }] },
    ]);
    expect(result.text).toBe(text);
    expect(result.written).toEqual([]);
    expect(result.notes).toEqual([
      'Campaign/orders sample1: not written, the rewritten file would not read back as these values (document 1 reads back differently); the file is left unchanged, edit it by hand',
    ]);
  });
});
