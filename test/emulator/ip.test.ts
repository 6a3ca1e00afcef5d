import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpv4Address, isIpv4AddressOrCidr, isIpv4Cidr } from '../../src/emulator/ip.js';

describe('isIpv4Address', () => {
  it('accepts every dotted-quad address', () => {
    fc.assert(fc.property(fc.ipV4(), (address) => isIpv4Address(address)));
  });

  it('accepts exactly the octets 0–255 written without leading zeros', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999 }), (octet) => {
        expect(isIpv4Address(`10.0.0.${octet}`)).toBe(octet <= 255);
      }),
    );
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1.2.3.-4',
    '0x1.2.3.4',
    '1..2.3',
    '::1',
    '1.2.3.4/32',
  ])('refuses %j', (value) => {
    expect(isIpv4Address(value)).toBe(false);
  });

  it('refuses the extended IPv4 notations (hex, octal, fewer parts) other than the plain dotted quad', () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (address) => {
        const plain = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
        const canonical =
          plain !== null && plain.slice(1).every((part) => String(Number(part)) === part && Number(part) <= 255);
        expect(isIpv4Address(address)).toBe(canonical);
      }),
    );
  });
});

describe('isIpv4Cidr and isIpv4AddressOrCidr', () => {
  it('accepts every address with a prefix 0–32, and refuses 33 and above', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 99 }), (address, prefix) => {
        expect(isIpv4Cidr(`${address}/${prefix}`)).toBe(prefix <= 32);
        expect(isIpv4AddressOrCidr(`${address}/${prefix}`)).toBe(prefix <= 32);
      }),
    );
  });

  it.each(['10.0.0.0/', '10.0.0.0/08', '10.0.0.0/-1', '10.0.0/8', '10.0.0.0/8/8', '/8', '10.0.0.0/ 8'])(
    'refuses %j',
    (value) => {
      expect(isIpv4Cidr(value)).toBe(false);
      expect(isIpv4AddressOrCidr(value)).toBe(false);
    },
  );

  it('takes a plain address as a member of a trunk ACL but not as a CIDR range', () => {
    expect(isIpv4Cidr('10.0.0.1')).toBe(false);
    expect(isIpv4AddressOrCidr('10.0.0.1')).toBe(true);
  });
});
