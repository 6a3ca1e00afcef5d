import { describe, expect, it } from 'vitest';
import { changedFieldsOf, comparable, comparableChanged, diffSpecs, type DiffRules } from '../../src/engine/diff.js';
import { stableJson } from '../../src/util/stable-json.js';

const rules: DiffRules = {
  setFields: {
    ip_addresses: (member) => String(member),
    entries: (member) => {
      const entry = member as { ip: string; cidr_prefix: number };
      return `${entry.ip}/${entry.cidr_prefix}`;
    },
  },
  secretFields: ['password'],
};

describe('comparable', () => {
  it('treats "", null and absent alike and drops secrets', () => {
    expect(comparable({ name: 'a', fallback_uri_uuid: null, ip_acl_uuid: '', password: 'x' }, rules)).toEqual({
      name: 'a',
    });
  });
});

describe('comparableChanged', () => {
  const live = { name: 'office', trunk_id: 'T1', ip_addresses: ['10.0.0.2', '10.0.0.1'], password: 'x' };
  const form = comparable(live, rules);

  it('is the form itself when the named fields hold what it holds', () => {
    expect(
      comparableChanged(form, { ...live, trunk_id: 'T1', note: '' }, ['trunk_id', 'note', 'password'], rules),
    ).toBe(form);
  });

  it('is comparable of the changed spec, keys in the same order, the form left as it was', () => {
    const kept = JSON.stringify(form);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ ...live, trunk_id: { ref: 'main' } }, ['trunk_id']],
      [{ ...live, trunk_id: '' }, ['trunk_id']],
      [{ ...live, alias: 'a', zone: 'z' }, ['zone', 'alias']],
      [{ name: 'office', ip_addresses: ['10.0.0.3'] }, ['trunk_id', 'ip_addresses', 'password']],
    ];
    for (const [spec, fields] of cases) {
      const changed = comparableChanged(form, spec, fields, rules);
      expect(JSON.stringify(changed)).toBe(JSON.stringify(comparable(spec, rules)));
    }
    expect(JSON.stringify(form)).toBe(kept);
  });
});

describe('diffSpecs', () => {
  it('is empty for equal specs whatever the set order', () => {
    const diff = diffSpecs(
      { ip_addresses: ['10.0.0.2', '10.0.0.1'] },
      { ip_addresses: ['10.0.0.1', '10.0.0.2'] },
      rules,
    );
    expect(diff).toEqual({ patch: [], changedFields: [] });
  });

  it('adds one set member as one add operation', () => {
    const diff = diffSpecs(
      { name: 'office', ip_addresses: ['203.0.113.10', '203.0.113.11'] },
      { name: 'office', ip_addresses: ['203.0.113.9', '203.0.113.10', '203.0.113.11'] },
      rules,
    );
    expect(diff.patch).toEqual([{ op: 'add', path: '/ip_addresses/203.0.113.9', value: '203.0.113.9' }]);
    expect(diff.changedFields).toEqual(['ip_addresses']);
  });

  it('keys entries by address and prefix, so a description change is one replace', () => {
    const diff = diffSpecs(
      { entries: [{ ip: '10.0.0.1', cidr_prefix: 32, description: 'old' }] },
      { entries: [{ ip: '10.0.0.1', cidr_prefix: 32, description: 'new' }] },
      rules,
    );
    expect(diff.patch).toEqual([{ op: 'replace', path: '/entries/10.0.0.1~132/description', value: 'new' }]);
  });

  it('reports scalar replaces, additions and removals', () => {
    const diff = diffSpecs({ secure: false, fallback_uri_uuid: 'u1' }, { secure: true, name: 'x' }, rules);
    expect(diff.changedFields).toEqual(['fallback_uri_uuid', 'name', 'secure']);
    expect(diff.patch).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: '/fallback_uri_uuid' },
        { op: 'replace', path: '/secure', value: true },
        { op: 'add', path: '/name', value: 'x' },
      ]),
    );
  });
});

describe('changedFieldsOf', () => {
  it('compares nested values by content, whatever the key order', () => {
    const before = { entries: { a: { ip: '10.0.0.1', cidr_prefix: 32 } }, name: 'x', secure: true };
    const after = { name: 'x', entries: { a: { cidr_prefix: 32, ip: '10.0.0.1' } }, secure: true };
    expect(changedFieldsOf(before, after)).toEqual([]);
  });

  it('names fields that differ, appear or disappear, sorted', () => {
    const before = { uris: ['a', 'b'], name: 'x', gone: 1 };
    const after = { uris: ['b', 'a'], name: 'x', added: { deep: [1] } };
    expect(changedFieldsOf(before, after)).toEqual(['added', 'gone', 'uris']);
    expect(changedFieldsOf({ nested: { a: 1 } }, { nested: { a: 1, b: 2 } })).toEqual(['nested']);
    expect(changedFieldsOf({ nested: { a: 1, b: 2 } }, { nested: { a: 1 } })).toEqual(['nested']);
    expect(changedFieldsOf({ list: [] }, { list: {} })).toEqual(['list']);
  });
});

describe('stableJson', () => {
  it('sorts object keys at every depth and writes absent values as null', () => {
    expect(stableJson({ b: 1, a: [1, { d: null, c: 'x' }, undefined], e: undefined })).toBe(
      '{"a":[1,{"c":"x","d":null},null],"b":1,"e":null}',
    );
  });
});
