import { describe, expect, it } from 'vitest';
import { editDistance, suggest } from '../../src/util/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions as one edit each', () => {
    expect(editDistance('trunk', 'trunk')).toBe(0);
    expect(editDistance('trunk', 'trunks')).toBe(1);
    expect(editDistance('trunk', 'trnk')).toBe(1);
    expect(editDistance('trunk', 'trank')).toBe(1);
    expect(editDistance('trunk', 'turnk')).toBe(1);
    expect(editDistance('trunk', 'tunrk')).toBe(2);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('gives up past its limit', () => {
    expect(editDistance('a', 'abcdefgh', 2)).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });
});

describe('suggest', () => {
  const kinds = ['SipCredential', 'SipIpAcl', 'TrunkCredential', 'TrunkIpAcl', 'Trunk'];

  it('prefers a match ignoring case, "-" and "_"', () => {
    expect(suggest('TrunkIPAcl', kinds)).toBe('TrunkIpAcl');
    expect(suggest('trunk_ip_acl', kinds)).toBe('TrunkIpAcl');
  });

  it('suggests the closest candidate within a third of the length', () => {
    expect(suggest('Trunks', kinds)).toBe('Trunk');
    expect(suggest('SipCredentail', kinds)).toBe('SipCredential');
    expect(suggest('ipacl_uid', ['ipacl_uuid', 'credential_uuid'])).toBe('ipacl_uuid');
  });

  it('suggests nothing for unrelated words or the word itself', () => {
    expect(suggest('PhoneNumber', kinds)).toBeUndefined();
    expect(suggest('x', ['y'])).toBeUndefined();
    expect(suggest('Trunk', ['Trunk'])).toBeUndefined();
  });
});
