import { describe, expect, it } from 'vitest';
import { comparable, type DiffRules } from '../../src/engine/diff.js';
import { fingerprintLive } from '../../src/engine/fingerprint.js';
import { liveComparable, liveFingerprint, prepareLiveForms } from '../../src/engine/live-forms.js';
import type { LiveObject } from '../../src/resources/live-side.js';

const bySet: DiffRules = { setFields: { ip_addresses: (member) => String(member) }, secretFields: ['password'] };
const asList: DiffRules = { setFields: {}, secretFields: [] };

const objects = (count: number): LiveObject[] =>
  Array.from({ length: count }, (_, index) => ({ id: `id-${index}`, spec: { name: `acl-${index}`, ip_addresses: ['10.0.0.2', `10.0.1.${index % 250}`], password: 'x' } }));

describe('live forms', () => {
  it('are made for every object of a list, once, as the planner would make them', async () => {
    const list = objects(250);
    await prepareLiveForms(list, bySet);
    for (const live of list) {
      const form = liveComparable(live, bySet);
      expect(form).toEqual(comparable(live.spec, bySet));
      expect(liveComparable(live, bySet)).toBe(form);
      expect(liveFingerprint(live)).toBe(fingerprintLive(live));
    }
  });

  it('are made again for a kind with other rules', () => {
    const [live] = objects(1) as [LiveObject];
    expect(liveComparable(live, bySet)).toEqual({ ip_addresses: { '10.0.0.2': '10.0.0.2', '10.0.1.0': '10.0.1.0' }, name: 'acl-0' });
    expect(liveComparable(live, asList)).toEqual({ ip_addresses: ['10.0.0.2', '10.0.1.0'], name: 'acl-0', password: 'x' });
  });
});
