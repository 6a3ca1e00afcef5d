// Scopes: parsing `--scope`, overlap, and the marker's name that carries them.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/resources/index.js';
import { ownershipMarkerName, parseMarkerName } from '../../src/resources/ownership-marker.js';
import {
  describeScope,
  everything,
  parseScope,
  scopeHolds,
  scopeKinds,
  scopeOverlap,
} from '../../src/resources/ownership-scope.js';

const lineage = '0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11';

describe('scopes', () => {
  it('knows every kind of the catalog', () => {
    expect([...scopeKinds].sort()).toEqual([...catalog.names].sort());
  });

  it('parses presets, kinds and a prefix; everything is the whole account', () => {
    expect(parseScope([])).toEqual(everything);
    expect(parseScope(['everything'])).toEqual(everything);
    expect(parseScope(['messaging,Trunk'])).toEqual({
      kinds: ['Brand', 'Campaign', 'PhoneNumber', 'Profile', 'Trunk'],
    });
    expect(parseScope(['Trunk', 'prefix=team-a-'])).toEqual({ kinds: ['Trunk'], prefix: 'team-a-' });
    expect(parseScope(['prefix=team-a-'])).toEqual({ kinds: 'everything', prefix: 'team-a-' });
    expect(() => parseScope(['voices'])).toThrow('--scope voices: not a preset or a kind');
    expect(() => parseScope(['Trunk', 'prefix=a b'])).toThrow('a prefix is 1 to 20 letters, digits');
  });

  it('finds the overlap of two scopes, in words, or none', () => {
    expect(scopeOverlap(parseScope(['voice']), parseScope(['messaging']))).toBeUndefined();
    expect(scopeOverlap(parseScope(['voice']), parseScope(['Trunk,Brand']))).toBe('Trunk');
    expect(scopeOverlap(everything, everything)).toBe('every kind');
    expect(scopeOverlap(parseScope(['Trunk', 'prefix=a-']), parseScope(['Trunk', 'prefix=b-']))).toBeUndefined();
    expect(scopeOverlap(parseScope(['Trunk', 'prefix=a-']), parseScope(['Trunk', 'prefix=a-east-']))).toBe(
      'Trunk named a-east-…',
    );
    expect(scopeOverlap(parseScope(['Trunk']), parseScope(['Trunk', 'prefix=a-']))).toBe('Trunk named a-…');
  });

  it('holds an object by kind and by its API name against the prefix', () => {
    const scope = parseScope(['Trunk', 'prefix=a-']);
    expect(scopeHolds(scope, 'Trunk', 'a-pbx')).toBe(true);
    expect(scopeHolds(scope, 'Trunk', 'b-pbx')).toBe(false);
    expect(scopeHolds(scope, 'Brand', 'a-pbx')).toBe(false);
    expect(describeScope(parseScope(['messaging']))).toBe('messaging (Brand, Campaign, PhoneNumber, Profile)');
  });

  it('writes the scope into the marker name within 120 characters and reads it back; the old name is everything', () => {
    expect(ownershipMarkerName(lineage)).toBe(`telform-owner:${lineage}`);
    expect(parseMarkerName(`telform-owner:${lineage}`)).toEqual({ lineage, scope: everything });
    const widest = parseScope([...scopeKinds.slice(1), 'prefix=abcdefghij0123456789']);
    const name = ownershipMarkerName(lineage, widest);
    expect(name.length).toBeLessThanOrEqual(120);
    expect(parseMarkerName(name)).toEqual({ lineage, scope: widest });
    expect(parseMarkerName(ownershipMarkerName(lineage, parseScope(['voice'])))).toEqual({
      lineage,
      scope: parseScope(['voice']),
    });
    // Anything else in the namespace is not a marker.
    for (const forged of [
      'telform-owner:x',
      `telform-owner:${lineage}; touch planted #`,
      `telform-owner:${lineage.toUpperCase()}`,
      `telform-owner:${lineage} kinds=tr prefix=a b`,
    ]) {
      expect(parseMarkerName(forged)).toBeUndefined();
    }
  });

  it('writes each kind as the code it declares, which markers in accounts already carry and so never changes', () => {
    const codes = Object.fromEntries(
      scopeKinds.map((kind) => [kind, ownershipMarkerName(lineage, { kinds: [kind] }).split(' kinds=')[1]]),
    );
    expect(codes).toEqual({
      SipCredential: 'sc',
      SipIpAcl: 'sa',
      TrunkCredential: 'tc',
      TrunkIpAcl: 'ta',
      OriginationUri: 'ou',
      Trunk: 'tr',
      Profile: 'pf',
      Brand: 'br',
      Campaign: 'cp',
      PhoneNumber: 'pn',
      ApplicationSipAuth: 'ap',
    });
    expect(ownershipMarkerName(lineage, parseScope(['messaging', 'prefix=team-a-']))).toBe(
      `telform-owner:${lineage} kinds=br.cp.pf.pn prefix=team-a-`,
    );
  });
});
