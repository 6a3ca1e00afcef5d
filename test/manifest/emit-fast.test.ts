import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { emitDocumentExactly } from '../../src/manifest/emit-exact.js';
import { emitDocumentFast, emitDocuments, emitManifest, type EmittedResource } from '../../src/manifest/emit.js';

// Import writes its documents directly for the shapes it meets (emit.ts); these check the direct writer
// against the `yaml` package byte for byte, and that what it writes reads back as the resource.

/** What `emitDocuments` writes for one resource. */
const emitDocument = (resource: EmittedResource) => emitDocumentFast(resource) ?? emitDocumentExactly(resource);

function readBack(text: string): unknown {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.length !== 1) throw new Error('not one document');
  expect(documents[0]!.errors).toEqual([]);
  return documents[0]!.toJS();
}

function expected(resource: EmittedResource): unknown {
  return { apiVersion: 'telform/v1', kind: resource.kind, metadata: { name: resource.name }, spec: resource.spec };
}

// Words as the account holds them, and the characters YAML treats specially at every place in a word.
const tricky = [
  '',
  ' ',
  '-',
  '- ',
  '?',
  '? x',
  ':',
  ': ',
  'a:',
  'a: b',
  'a #b',
  'a#b',
  '#x',
  '"q"',
  "it's",
  'back\\slash',
  '[x]',
  '{x}',
  'a,b',
  'x,',
  '&anchor',
  '*alias',
  '!tag',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  '---',
  '--- x',
  '...',
  'trailing ',
  ' leading',
  'true',
  'True',
  'TRUE',
  'yes',
  'no',
  'on',
  'null',
  'Null',
  '~',
  'NaN',
  '.nan',
  '.inf',
  '-.Inf',
  '12',
  '-12',
  '+12',
  '012',
  '1.5',
  '1.',
  '.5',
  '1e5',
  '1E-5',
  '0x1F',
  '0o17',
  '0b101',
  '1_000',
  '10.0.0.1',
  '203.0.113.0/24',
  'sip1.pbx.example.com:5060',
  'sip:a@b.example.com;transport=tcp',
  'tab\there',
  'line\nbreak',
  'caf\u00e9',
  'rtl\u202eltr',
  'sep\u2028x',
];
const word = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9.-]{0,12}$/), weight: 8 },
  { arbitrary: fc.constantFrom(...tricky), weight: 3 },
  {
    arbitrary: fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '9', ' ', '-', ':', '#', ',', '.', '"', "'", '[', '{', '?', '~', '+'),
    }),
    weight: 2,
  },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
);
const scalar = fc.oneof(
  word,
  fc.integer({ min: -100_000, max: 100_000 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(0.5, -0, 1e21, Number.MAX_SAFE_INTEGER + 2),
);
const key = fc.oneof(
  fc.constantFrom(
    'name',
    'ip_addresses',
    'cidr_prefix',
    'fromEnv',
    'ref',
    'true',
    'null',
    '12',
    'a b',
    'a:b',
    'x-y',
    '',
  ),
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/),
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(scalar, { maxLength: 11 }),
    fc.record({ ref: word }),
    fc.record({ fromEnv: fc.stringMatching(/^TELFORM_SECRET_[A-Z0-9_]{1,20}$/) }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const resource: fc.Arbitrary<EmittedResource> = fc.record({
  kind: fc.constantFrom('TrunkIpAcl', 'Trunk', 'SipIpAcl', 'Campaign'),
  name: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), word),
  spec: fc.dictionary(key, value, { maxKeys: 8 }),
  comments: fc.array(fc.oneof(word, fc.constant('imported from id 3f6e0b0a-0000-4000-8000-000000000001')), {
    maxLength: 3,
  }),
});

describe('the direct manifest writer of import', () => {
  it('writes what the yaml package writes, byte for byte, wherever it writes at all', () => {
    let direct = 0;
    fc.assert(
      fc.property(resource, (item) => {
        const fast = emitDocumentFast(item);
        if (fast === undefined) return;
        direct += 1;
        expect(fast).toBe(emitDocumentExactly(item));
      }),
      { numRuns: 3000 },
    );
    expect(direct).toBeGreaterThan(100);
  });

  it('writes each scalar, in a map, a short list, a long list and a ref, as the yaml package does', () => {
    let direct = 0;
    fc.assert(
      fc.property(scalar, fc.nat(3), (item, place) => {
        const spec =
          place === 0
            ? { field: item }
            : place === 1
              ? { list: [item, 'x'] }
              : place === 2
                ? { list: Array.from({ length: 9 }, () => item) }
                : { target: { ref: item } };
        const document = { kind: 'Trunk', name: 'one', spec, comments: ['imported from id 1'] };
        const fast = emitDocumentFast(document);
        if (fast === undefined) return;
        direct += 1;
        expect(fast).toBe(emitDocumentExactly(document));
      }),
      { numRuns: 5000 },
    );
    // Most scalars are written directly: the comparison above is not vacuous.
    expect(direct).toBeGreaterThan(2500);
  });

  it('reads back as the resource it was given', () => {
    fc.assert(
      fc.property(resource, (item) => {
        expect(readBack(emitDocument(item))).toEqual(expected(item));
      }),
      { numRuns: 300 },
    );
  });

  it('writes each document of a batch the one way or the other, in order', async () => {
    const batch = fc.sample(resource, { numRuns: 200, seed: 44 });
    expect(batch.some((item) => emitDocumentFast(item) === undefined)).toBe(true);
    expect(await emitDocuments(batch)).toEqual(batch.map(emitDocument));
  });

  it('writes the shapes an import of trunking and SIP objects meets itself', async () => {
    const resources: EmittedResource[] = [
      {
        kind: 'TrunkIpAcl',
        name: 'acl-00001',
        spec: { ip_addresses: ['10.0.1.1', '192.0.2.1'] },
        comments: ['imported from id a1000000-0000-4000-8000-000000000001'],
      },
      {
        kind: 'Trunk',
        name: 'trunk-00001',
        spec: { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'uri-00001' }, name: '' },
        comments: ['imported from id 70000000001'],
      },
      {
        kind: 'OriginationUri',
        name: 'uri-1',
        spec: {
          uri: 'sip1.pbx.example.com:5060',
          password: { fromEnv: 'TELFORM_SECRET_ORIGINATION_URI_URI_1_PASSWORD' },
        },
        comments: [
          'imported from id b2000000-0000-4000-8000-000000000001',
          'password: the API never returns it; set TELFORM_SECRET_ORIGINATION_URI_URI_1_PASSWORD before plan or apply',
        ],
      },
      {
        kind: 'SipIpAcl',
        name: 'office',
        spec: {
          entries: [
            { ip: '192.0.2.1', cidr_prefix: 32, description: 'Front desk' },
            { ip: '198.51.100.0', cidr_prefix: 28 },
          ],
          tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
        },
      },
    ];
    for (const item of resources) {
      const fast = emitDocumentFast(item);
      expect(fast, item.name).toBeDefined();
      expect(fast).toBe(emitDocumentExactly(item));
    }
    expect(await emitManifest(resources.slice(0, 2), 'schemas/manifest.schema.json')).toBe(
      [
        '# yaml-language-server: $schema=schemas/manifest.schema.json',
        '# imported from id a1000000-0000-4000-8000-000000000001',
        '',
        'apiVersion: telform/v1',
        'kind: TrunkIpAcl',
        'metadata:',
        '  name: acl-00001',
        'spec:',
        '  ip_addresses: [ 10.0.1.1, 192.0.2.1 ]',
        '---',
        '# imported from id 70000000001',
        '',
        'apiVersion: telform/v1',
        'kind: Trunk',
        'metadata:',
        '  name: trunk-00001',
        'spec:',
        '  trunk_direction: inbound',
        '  primary_uri_uuid: { ref: uri-00001 }',
        '  name: ""',
        '',
      ].join('\n'),
    );
  });

  it('leaves escapes to the exact writer (bidi, separators, controls)', async () => {
    const item = { kind: 'Campaign', name: 'c', spec: { description: 'Orders\u202eTOPS' } };
    expect(emitDocumentFast(item)).toBeUndefined();
    expect((await emitDocuments([item]))[0]).toContain('description: "Orders\\u202eTOPS"');
  });
});
