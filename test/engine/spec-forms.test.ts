import { describe, expect, it } from 'vitest';
import { comparable, type DiffRules } from '../../src/engine/diff.js';
import { fingerprintLive } from '../../src/engine/fingerprint.js';
import type { PlannerKind } from '../../src/engine/model.js';
import { SpecForms } from '../../src/engine/spec-forms.js';
import type { LiveObject } from '../../src/resources/live-side.js';

const bySet: DiffRules = { setFields: { ip_addresses: (member) => String(member) }, secretFields: ['password'] };
const asList: DiffRules = { setFields: {}, secretFields: [] };

const objects = (count: number): LiveObject[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `id-${index}`,
    spec: { name: `acl-${index}`, ip_addresses: ['10.0.0.2', `10.0.1.${index % 250}`], password: 'x' },
  }));

describe('spec forms', () => {
  it('are made for every object of a list, once, as the planner would make them', async () => {
    const forms = new SpecForms();
    const list = objects(250);
    await forms.prepareLive(list, bySet);
    for (const live of list) {
      const form = forms.of(live.spec, bySet);
      expect(form).toEqual(comparable(live.spec, bySet));
      expect(forms.of(live.spec, bySet)).toBe(form);
      expect(forms.fingerprint(live)).toBe(fingerprintLive(live));
    }
  });

  it('are made for the specs of known kinds, then looked up', async () => {
    const forms = new SpecForms();
    const specs = objects(150).map(({ spec }) => ({ kind: 'TrunkIpAcl', spec }));
    const kinds = new Map([['TrunkIpAcl', bySet as PlannerKind]]);
    await forms.prepare([...specs, { kind: 'Unknown', spec: { name: 'x' } }], kinds);
    for (const { spec } of specs) {
      const form = forms.of(spec, bySet);
      expect(form).toEqual(comparable(spec, bySet));
      expect(forms.of(spec, bySet)).toBe(form);
    }
  });

  it('are made again for a kind with other rules', () => {
    const forms = new SpecForms();
    const [live] = objects(1) as [LiveObject];
    expect(forms.of(live.spec, bySet)).toEqual({
      ip_addresses: { '10.0.0.2': '10.0.0.2', '10.0.1.0': '10.0.1.0' },
      name: 'acl-0',
    });
    expect(forms.of(live.spec, asList)).toEqual({
      ip_addresses: ['10.0.0.2', '10.0.1.0'],
      name: 'acl-0',
      password: 'x',
    });
  });
});
