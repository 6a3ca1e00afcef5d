import { describe, expect, it } from 'vitest';
import { checkSipAuthPassword, checkTrunkPassword } from '../../src/resources/passwords.js';

const messages = (findings: ReadonlyArray<{ severity: string; message: string }>) =>
  findings.map((finding) => `${finding.severity}: ${finding.message}`);

describe('SipAuth passwords', () => {
  it('accepts 12 to 128 characters with upper, lower and digit without a word', () => {
    expect(checkSipAuthPassword('Abcdefghij12')).toEqual([]);
    expect(checkSipAuthPassword(`Aa1${'x'.repeat(125)}`)).toEqual([]);
  });

  it('accepts 8 to 11 characters with a warning that production asks for 12', () => {
    expect(messages(checkSipAuthPassword('Abcdef12'))).toEqual([
      'warning: is shorter than 12 characters: the API accepts it, but production asks for at least 12',
    ]);
    expect(messages(checkSipAuthPassword('Abcdefghi12'))).toHaveLength(1);
  });

  it('refuses 7 or 129 characters and missing character classes, naming what is missing', () => {
    expect(messages(checkSipAuthPassword('Abcde12'))).toEqual(['error: must be at least 8 characters long']);
    expect(messages(checkSipAuthPassword(`Aa1${'x'.repeat(126)}`))).toEqual([
      'error: must be at most 128 characters long',
    ]);
    expect(messages(checkSipAuthPassword('abcdefghijkl'))).toEqual([
      'error: must contain an upper-case letter and a digit',
    ]);
    expect(messages(checkSipAuthPassword('ABCDEFGHIJK1'))).toEqual(['error: must contain a lower-case letter']);
  });

  it('never includes the password in a message', () => {
    for (const password of ['abc', 'Abcdef12', 'secretsecret']) {
      for (const finding of checkSipAuthPassword(password)) expect(finding.message).not.toContain(password);
    }
  });
});

describe('trunk credential passwords', () => {
  it('accepts 5 to 20 characters from the allowed set with a special character', () => {
    expect(checkTrunkPassword('ab1!x')).toEqual([]);
    expect(checkTrunkPassword('abcdefghij~!@#$%^&*(')).toEqual([]);
    expect(checkTrunkPassword('x)_+y')).toEqual([]);
  });

  it('refuses 4 or 21 characters, other characters, and no special character', () => {
    expect(messages(checkTrunkPassword('ab1!'))).toEqual(['error: must be at least 5 characters long']);
    expect(messages(checkTrunkPassword('abcdefghij!abcdefghij'))).toEqual([
      'error: must be at most 20 characters long',
    ]);
    expect(messages(checkTrunkPassword('pass-word!1'))).toEqual([
      'error: may hold only letters, digits and ~!@#$%^&*()_+',
    ]);
    expect(messages(checkTrunkPassword('password1'))).toEqual(['error: must contain at least one of ~!@#$%^&*()_+']);
  });
});
