import { heldNote } from '../../src/manifest/document.js';
import { describe, expect, it } from 'vitest';
import { formatValue } from '../../src/render/format.js';
import { catalog } from '../../src/resources/index.js';
import { doc, lines, loadText } from './helpers.js';

/**
 * Every string a manifest sends has a length limit at validate time (the API's where it documents
 * one, else telform's), so an oversized value never reaches the API; plans cut long values.
 */
describe('length limits', () => {
  it('reports a 5,000,000-character trunk name at validate time (a held value: the plan refuses to send it), naming the place and the limit', async () => {
    const result = await loadText({
      'big.yaml': doc(
        'Trunk',
        'big',
        `  name: ${'x'.repeat(5_000_000)}\n  trunk_direction: outbound\n  ipacl_uuid: 5eed0000-0000-4000-8000-000000000001`,
      ),
    });
    expect(lines(result, 'warning')).toEqual([
      `big.yaml:6:11  Trunk/big  spec.name: warning: must be at most 255 characters long (got 5000000)${heldNote}`,
    ]);
  });

  it('bounds every string field of every kind', () => {
    const unbounded: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      const node = schema as {
        type?: string;
        maxLength?: number;
        pattern?: string;
        enum?: unknown;
        const?: unknown;
        properties?: Record<string, unknown>;
        items?: unknown;
        anyOf?: unknown[];
      };
      if (
        node.type === 'string' &&
        node.maxLength === undefined &&
        node.enum === undefined &&
        node.const === undefined &&
        !node.pattern?.endsWith('$')
      )
        unbounded.push(path);
      for (const [key, value] of Object.entries(node.properties ?? {})) visit(value, `${path}.${key}`);
      if (node.items) visit(node.items, `${path}[]`);
      for (const option of node.anyOf ?? []) visit(option, path);
    };
    for (const kind of catalog.kinds) visit(kind.spec.toJSONSchema({ io: 'input' }), kind.name);
    // A secret's file path is read locally, never sent; a secret's value is bounded by its check.
    expect(unbounded.filter((path) => !path.endsWith('.fromFile') && !path.endsWith('.password'))).toEqual([]);
    for (const kind of catalog.kinds) {
      for (const [field, secret] of Object.entries(kind.secrets)) {
        expect(
          secret.check('Aa1~'.repeat(64)).some((finding) => finding.severity === 'error'),
          `${kind.name}.${field}`,
        ).toBe(true);
      }
    }
  });

  it('shows a long value in a plan cut, with its length', () => {
    expect(formatValue('y'.repeat(5_000))).toBe(`"${'y'.repeat(117)}"... (5000 characters)`);
    expect(formatValue('short')).toBe('"short"');
  });
});
