import { describe, expect, it } from 'vitest';
import { TelformError } from '../../src/util/errors.js';
import { createdId, flag, integer, text } from '../../src/resources/api-records.js';
import { findCreated, sameValue, updateBody } from '../../src/resources/collection-crud.js';
import type { LiveObject } from '../../src/resources/live-side.js';
import { cannotTell } from '../../src/api/writes.js';

const byName = (spec: Record<string, unknown>): string | undefined => text(spec['name']);

describe('normalising helpers', () => {
  it('treat "", null and other types as absent text', () => {
    expect([text(''), text(null), text(undefined), text(3), text('x')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'x',
    ]);
  });

  it('read booleans and integers also from strings', () => {
    expect([flag(true, false), flag('false', true), flag(null, true)]).toEqual([true, false, true]);
    expect([integer(24), integer('24'), integer('x'), integer(2.5)]).toEqual([24, 24, undefined, undefined]);
  });

  it('compare values with "" and null alike and arrays as sets', () => {
    expect(sameValue(['b', 'a'], ['a', 'b'])).toBe(true);
    expect(sameValue({ a: '', b: 1 }, { b: 1 })).toBe(true);
    expect(sameValue(null, '')).toBe(true);
    expect(sameValue('a', 'b')).toBe(false);
  });
});

describe('findCreated', () => {
  const objects: LiveObject[] = [
    { id: '1', spec: { name: 'a', ip_addresses: ['192.0.2.1'] } },
    { id: '2', spec: { name: 'b', ip_addresses: ['192.0.2.2'] } },
    { id: '3', spec: { name: 'b', ip_addresses: ['192.0.2.3'] } },
  ];

  it('finds the one object with the natural key, or nothing', () => {
    expect((findCreated(objects, byName, { name: 'a' }, [], 'TrunkIpAcl') as LiveObject).id).toBe('1');
    expect(findCreated(objects, byName, { name: 'c' }, [], 'TrunkIpAcl')).toBeUndefined();
    expect(findCreated(objects, byName, {}, [], 'TrunkIpAcl')).toBeUndefined();
  });

  it('cannot tell when the name it looks for is absent but some objects are read without a name', () => {
    const unnamed = [...objects, { id: '4', spec: { ip_addresses: ['192.0.2.4'] } }];
    expect(findCreated(unnamed, byName, { name: 'c' }, [], 'TrunkIpAcl')).toBe(cannotTell);
  });

  it('narrows several namesakes to the one with the fields that were sent', () => {
    expect(
      (
        findCreated(
          objects,
          byName,
          { name: 'b', ip_addresses: ['192.0.2.3'] },
          ['ip_addresses'],
          'TrunkIpAcl',
        ) as LiveObject
      ).id,
    ).toBe('3');
  });

  it('refuses to guess between namesakes it cannot tell apart, naming them', () => {
    const attempt = () =>
      findCreated(objects, byName, { name: 'b', ip_addresses: ['192.0.2.9'] }, ['ip_addresses'], 'TrunkIpAcl');
    expect(attempt).toThrow(TelformError);
    expect(attempt).toThrow(
      'the answer to creating TrunkIpAcl "b" was lost and 2 objects with that name exist (2, 3); telform cannot tell which one it made: delete the extra ones or record the right one with `telform state`',
    );
  });
});

describe('updateBody', () => {
  const live: LiveObject = { id: 'x', spec: {} };

  it('sends changed fields, "" for dropped ones, and secrets only when listed', () => {
    const desired = { name: 'n', username: 'u', password: 'p@ss', fallback_uri_uuid: undefined };
    expect(
      updateBody({ id: 'x', desired, live, changedFields: ['name', 'fallback_uri_uuid'], secretFields: [] }, [
        'name',
        'fallback_uri_uuid',
        'password',
      ]),
    ).toEqual({
      name: 'n',
      fallback_uri_uuid: '',
    });
    expect(updateBody({ id: 'x', desired, live, changedFields: [], secretFields: ['password'] }, ['password'])).toEqual(
      { password: 'p@ss' },
    );
  });

  it('never sends a field that is not updatable', () => {
    expect(
      updateBody({ id: 'x', desired: { app_id: '2' }, live, changedFields: ['app_id'], secretFields: [] }, [
        'sip_auth_type',
      ]),
    ).toEqual({});
  });
});

describe('createdId', () => {
  const answer = { idField: 'trunk_id', under: ['trunk'] };
  it('reads the id at the top level, in camelCase, or nested under the kind, or says the new object cannot be tracked', () => {
    expect(createdId({ trunk_id: '123' }, answer, '/Zentrunk/Trunk/')).toBe('123');
    expect(createdId({ trunkId: 124 }, answer, '/Zentrunk/Trunk/')).toBe('124');
    expect(createdId({ api_id: 'a', trunk: { trunk_id: '125' } }, answer, '/Zentrunk/Trunk/')).toBe('125');
    expect(createdId({ trunk: { trunkId: '126' } }, answer, '/Zentrunk/Trunk/')).toBe('126');
    expect(() => createdId({ message: 'ok' }, answer, '/Zentrunk/Trunk/')).toThrow(
      'the API answered POST /Zentrunk/Trunk/ without "trunk_id" (at the top level, in camelCase or under "trunk"), so the new object cannot be tracked',
    );
  });
});
