/**
 * IPv4 address and CIDR range validation for the emulator's access control lists.
 *
 * The API reference asks for "valid IPv4" (SipAuth entries) and leaves the trunk ACL address rules open
 * ("Address validity rules for `ip_addresses` entries: not shown"); production's documentation shows
 * production accepting CIDR ranges there. The emulator accepts dotted-quad IPv4 only, four
 * decimal octets 0–255 without leading zeros (so `010.0.0.1` cannot be misread as octal), and
 * for ranges a prefix 0–32 written without leading zeros. Host bits under the prefix are allowed
 * (`10.0.0.5/24` names the same range as `10.0.0.0/24`), as production does not document a refusal.
 */

const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const ipv4Pattern = new RegExp(`^${octet}(?:\\.${octet}){3}$`);
const prefixPattern = /^(?:3[0-2]|[12]?[0-9])$/;

/** True for a dotted-quad IPv4 address such as `203.0.113.10`. */
export function isIpv4Address(value: string): boolean {
  return ipv4Pattern.test(value);
}

/** True for an IPv4 CIDR range such as `203.0.113.0/24` (prefix 0–32). */
export function isIpv4Cidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  return isIpv4Address(value.slice(0, slash)) && prefixPattern.test(value.slice(slash + 1));
}

/** True for an IPv4 address or an IPv4 CIDR range: the members of a trunk IP ACL. */
export function isIpv4AddressOrCidr(value: string): boolean {
  return isIpv4Address(value) || isIpv4Cidr(value);
}
