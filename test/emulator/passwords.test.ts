import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/emulator/passwords.js';

describe('password hashing', () => {
  it('verifies the password a hash was made from and no other', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (password, other) => {
          const stored = hashPassword(password);
          expect(verifyPassword(password, stored)).toBe(true);
          expect(verifyPassword(other, stored)).toBe(other === password);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('salts every hash, so equal passwords hash differently, and never stores the password', () => {
    const first = hashPassword('Secr3tPassw0rd');
    const second = hashPassword('Secr3tPassw0rd');
    expect(first).not.toBe(second);
    expect(first).toMatch(/^sha256\$[A-Za-z0-9_-]{22}\$[0-9a-f]{64}$/);
    expect(first).not.toContain('Secr3tPassw0rd');
  });

  it('refuses a malformed stored value instead of throwing', () => {
    expect(verifyPassword('x', '')).toBe(false);
    expect(verifyPassword('x', 'md5$salt$abc')).toBe(false);
    expect(verifyPassword('x', 'sha256$salt$')).toBe(false);
  });
});
