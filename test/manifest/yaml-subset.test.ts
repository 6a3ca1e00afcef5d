import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { CORE_SCHEMA, dump, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { documentPositions } from '../../src/manifest/yaml.js';
import { LineStarts, offsetPositions } from '../../src/manifest/yaml-fast.js';
import {
  documentOffsets,
  parseYamlSubset,
  parseYamlSubsetPaced,
  parseYamlSubsetWithOffsets,
} from '../../src/manifest/yaml-subset.js';

/**
 * The plain subset reader must answer exactly what `js-yaml` reads (the values the rest of the
 * fast path was built on), or decline. Declining is always safe; a different answer never is.
 */

const repository = path.resolve(import.meta.dirname, '../..');

/** What `js-yaml` reads, empty documents left out as the loader does; 'error' when it refuses. */
function jsYaml(text: string): unknown {
  try {
    return loadAll(text, null, { schema: CORE_SCHEMA, json: false }).filter(
      (value) => value !== null && value !== undefined,
    );
  } catch {
    return 'error';
  }
}

function subset(text: string): unknown {
  return parseYamlSubset(text)?.filter((value) => value !== null && value !== undefined) ?? 'declined';
}

/**
 * Asserts the subset reader agrees with `js-yaml` or declines; returns whether it answered. Where
 * it answers, the places it recorded must be the ones the exact walk of the `yaml` package gives
 * (every pointer, value and key), as messages are placed from them without that parse.
 */
function agrees(text: string): boolean {
  const mine = subset(text);
  if (mine === 'declined') return false;
  const theirs = jsYaml(text);
  // Deep and strict: -0 is not 0, and an integer is not its string.
  if (!isDeepStrictEqual(mine, theirs)) expect(mine, text).toEqual(theirs);
  expect(isDeepStrictEqual(mine, theirs), text).toBe(true);
  const read = parseYamlSubsetWithOffsets(text);
  const lines = new LineStarts(text);
  const places = (read?.offsets ?? []).map((offsets) => Object.fromEntries(offsetPositions(offsets, lines)));
  expect(places, text).toEqual(documentPositions(text).map((positions) => Object.fromEntries(positions)));
  return true;
}

function yamlFiles(folder: string): string[] {
  return (
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      // An accounts file (examples/reseller), a test file and a policy file (examples/tests) are not manifests: the fast path never reads them.
      .filter(
        (file) =>
          /\.ya?ml$/.test(file) &&
          !file.includes('node_modules') &&
          !file.endsWith('telform-accounts.yaml') &&
          !/\.(tftest|policy)\.yaml$/.test(file),
      )
      .map((file) => path.join(folder, file))
  );
}

describe('parseYamlSubset', () => {
  it('reads every example manifest, as js-yaml does', () => {
    const files = yamlFiles(path.join(repository, 'examples'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(agrees(readFileSync(file, 'utf8')), file).toBe(true);
  });

  it('reads the same in slices, pausing after each document, and declines the same', async () => {
    const texts = [...yamlFiles(path.join(repository, 'examples')), ...yamlFiles(path.join(repository, 'test'))].map(
      (file) => readFileSync(file, 'utf8'),
    );
    texts.push('a: 1\n---\nb: [2, 3]\n---\n# empty\n---\nc: {d: e}\n', 'a: 1\n---\nb: &x 2\n');
    let declined = 0;
    for (const text of texts) {
      let pauses = 0;
      // A pause is due after every document.
      const paced = await parseYamlSubsetPaced(text, {
        due: () => true,
        breathe: async () => {
          pauses++;
        },
      });
      const whole = parseYamlSubset(text);
      expect(paced?.values, text).toEqual(whole);
      if (whole) expect(pauses, text).toBe(whole.length);
      else declined++;
    }
    expect(declined).toBeGreaterThan(0);
  });

  it('places a value from its document read alone as from the whole file read again', async () => {
    const texts = [...yamlFiles(path.join(repository, 'examples')), ...yamlFiles(path.join(repository, 'test'))].map(
      (file) => readFileSync(file, 'utf8'),
    );
    texts.push('# header\n---\na: 1\n--- # second\n---\n\n---\nb: [x]\nc:\n  - d: 2\n', 'a: 1\n...\n---\nb: 2\n');
    let documents = 0;
    for (const text of texts) {
      const read = await parseYamlSubsetPaced(text, { due: () => false, breathe: async () => undefined });
      const whole = parseYamlSubsetWithOffsets(text);
      if (!read || !whole) continue;
      expect(read.starts.length, text).toBe(whole.offsets.length);
      for (const [index, offsets] of whole.offsets.entries()) {
        expect(documentOffsets(text, read.starts, index), `${text}\n(document ${index})`).toEqual(offsets);
        documents++;
      }
    }
    expect(documents).toBeGreaterThan(50);
  });

  it('agrees with js-yaml or declines on every test manifest', () => {
    const files = yamlFiles(path.join(repository, 'test'));
    let answered = 0;
    for (const file of files) if (agrees(readFileSync(file, 'utf8'))) answered++;
    expect(answered).toBeGreaterThan(files.length / 2);
  });

  it.each([
    ['a: 1\nb: -20\nc: 0\nd: 9007199254740991', { a: 1, b: -20, c: 0, d: 9007199254740991 }],
    ['a: ~\nb: null\nc: NULL\nd:\ne: Null', { a: null, b: null, c: null, d: null, e: null }],
    [
      'a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\ng: tRUE',
      { a: true, b: true, c: true, d: false, e: false, f: false, g: 'tRUE' },
    ],
    [
      'a: yes\nb: no\nc: on\nd: 1.2.3.4\ne: 12:30\nf: .\ng: 1e5x',
      { a: 'yes', b: 'no', c: 'on', d: '1.2.3.4', e: '12:30', f: '.', g: '1e5x' },
    ],
    [
      'password: Trunk#Pass99 # a comment\nuri: sip:pbx@example.com:5060;transport=tcp',
      { password: 'Trunk#Pass99', uri: 'sip:pbx@example.com:5060;transport=tcp' },
    ],
    [
      'a: "x \\"y\\" \\\\ \\n\\t/"\nb: \'it\'\'s\'\nc: "# not a comment" # one',
      { a: 'x "y" \\ \n\t/', b: "it's", c: '# not a comment' },
    ],
    [
      'list: [a, "b, c", \'d\', 5, true, ~]\nempty: []\nnone: {}\nref: { ref: acl-1 }',
      { list: ['a', 'b, c', 'd', 5, true, null], empty: [], none: {}, ref: { ref: 'acl-1' } },
    ],
    [
      'entries:\n  - ip: 192.0.2.1\n    cidr_prefix: 32\n  -\n    ip: 192.0.2.2\n  - - nested\n    - list',
      { entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }, { ip: '192.0.2.2' }, ['nested', 'list']] },
    ],
    [
      'compact:\n- a\n- b\nafter: 1\n# comment\n   # indented comment\n\nlast:\n  deep:\n    deeper: x',
      { compact: ['a', 'b'], after: 1, last: { deep: { deeper: 'x' } } },
    ],
  ])('reads %j', (text, expected) => {
    expect(parseYamlSubset(text)).toEqual([expected]);
    expect(agrees(text)).toBe(true);
  });

  it('splits documents as js-yaml does, empty ones included', () => {
    const text = '# header\n---\na: 1\n--- # second\n---\n\n---\nb: [x]\n';
    expect(subset(text)).toEqual([{ a: 1 }, { b: ['x'] }]);
    expect(agrees(text)).toBe(true);
  });

  it.each([
    ['a tab', 'a:\tb'],
    ['a carriage return', 'a: b\r\nc: d'],
    ['a float', 'a: 1.5'],
    ['an octal or hex integer', 'a: 0o17\nb: 0x1F'],
    ['a leading zero or plus', 'a: 0123'],
    ['an integer a number cannot hold', 'a: 9007199254740993'],
    ['minus zero', 'a: -0'],
    ['an anchor and alias', 'a: &x 1\nb: *x'],
    ['a tag', 'a: !!str 1'],
    ['a block scalar', 'a: |\n  text'],
    ['a multi-line plain scalar', 'a: one\n  two'],
    ['a multi-line quoted scalar', 'a: "one\n  two"'],
    ['an unusual escape', 'a: "\\u00e9"'],
    ['a duplicate key', 'a: 1\na: 2'],
    ['a quoted key', '"a": 1'],
    ['a key that is not a word', 'a-b: 1'],
    ['a key read as a boolean', 'True: 1'],
    ['__proto__', '__proto__: 1'],
    ['a merge key', '<<: { a: 1 }'],
    ['a complex key', '? a\n: b'],
    ['a nested flow collection', 'a: [[1]]'],
    ['a multi-line flow collection', 'a: [1,\n  2]'],
    ['a trailing comma', 'a: [1, ]'],
    ['a mapping value in a plain scalar', 'a: b: c'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2'],
    ['an indented root', '  a: 1'],
    ['a document end marker', 'a: 1\n...\n'],
    ['content after ---', '--- a: 1'],
    ['a scalar document', 'just text'],
    ['a directive', '%YAML 1.2\n---\na: 1'],
  ])('declines %s', (_what, text) => {
    expect(parseYamlSubset(text)).toBeUndefined();
  });

  it('declines values nested deeper than the budget allows', () => {
    let text = 'a: 1';
    for (let depth = 0; depth < 70; depth++) text = `k:\n${text.replace(/^/gm, '  ')}`;
    expect(parseYamlSubset(text)).toBeUndefined();
  });

  const scalar = fc.oneof(
    fc.string(),
    fc.constantFrom(
      'null',
      '~',
      'True',
      'no',
      '0',
      '-0',
      '007',
      '1.0',
      '.5',
      '1e3',
      '0x1f',
      '+1',
      '-',
      '- a',
      'a: b',
      'a #b',
      'a#b',
      "'",
      '"',
      '[x]',
      '{}',
      '*a',
      '&a',
      '!t',
      '|',
      '>',
      '@',
      '%',
      '`',
    ),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('map')),
    list: fc.array(tie('value'), { maxLength: 4 }),
    map: fc.dictionary(
      fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), fc.string({ maxLength: 4 })),
      tie('value'),
      { maxKeys: 4 },
    ),
  })).map;
  const flowLevel = fc.integer({ min: -1, max: 3 });

  it('agrees with js-yaml on generated documents written by both libraries', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), flowLevel, (documents, level) => {
        agrees(documents.map((document) => stringify(document)).join('---\n'));
        agrees(documents.map((document) => dump(document, { flowLevel: level })).join('---\n'));
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with js-yaml or declines on mangled text', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'a',
        'b: ',
        'c:',
        '- ',
        '-',
        ' ',
        '  ',
        '\n',
        '\n  ',
        '#',
        ' #',
        ':',
        ', ',
        '[',
        ']',
        '{',
        '}',
        '"',
        "'",
        '\\',
        '---\n',
        '...',
        '1',
        '-1',
        '-0',
        '0o7',
        '.inf',
        '0.5',
        'null',
        'Null',
        'true',
        'True',
        'FALSE',
        '~',
        'key: ',
        '- k: ',
        '&a ',
        '*a',
        '!!str ',
      ),
      fc.string({ maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        agrees(pieces.join(''));
      }),
      { numRuns: 3000 },
    );
  });
});
