import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envelopeSchema, isPlainEnvelope } from '../../src/manifest/document.js';

describe('isPlainEnvelope', () => {
  it('accepts only what envelopeSchema accepts (it stands in for it on the fast path)', () => {
    const anything = fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.integer(),
      fc.constant(null),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    const envelope = fc.record(
      {
        apiVersion: fc.oneof(fc.constant('telform/v1'), anything),
        kind: fc.oneof(fc.constantFrom('Trunk', 'Nope'), anything),
        metadata: fc.oneof(
          fc.record(
            {
              name: fc.oneof(fc.constantFrom('ok', 'a-b', 'Bad', '-x', 'x'.repeat(64)), anything),
              protect: fc.oneof(fc.boolean(), anything),
            },
            { requiredKeys: [] },
          ),
          fc.record({ name: fc.constant('ok'), labels: anything }),
          anything,
        ),
        spec: fc.oneof(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), anything),
        extra: anything,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(envelope, (value) => {
        if (isPlainEnvelope(value as Record<string, unknown>))
          expect(envelopeSchema.safeParse(value).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts an ordinary envelope', () => {
    expect(
      isPlainEnvelope({
        apiVersion: 'telform/v1',
        kind: 'Trunk',
        metadata: { name: 'pbx-out', protect: true },
        spec: {},
      }),
    ).toBe(true);
    expect(isPlainEnvelope({ apiVersion: 'telform/v1', kind: 'Trunk', metadata: { name: 'pbx-out' }, spec: [] })).toBe(
      false,
    );
  });
});
