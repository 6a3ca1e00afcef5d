import { z } from 'zod';
import { friendlyName, ipv4 } from './fields.js';
import type { Kind } from './kind.js';

/** api.md "SIP IP access control lists": a list holds at most 50 entries. */
export const maxSipAclEntries = 50;

const entry = z
  .strictObject({
    ip: ipv4.describe('IPv4 address (with cidr_prefix, the start of the range).'),
    cidr_prefix: z
      .int()
      .min(0)
      .max(32)
      .default(32)
      .describe('CIDR prefix 0–32; 32 is the single address, 0 allows every address.'),
    description: z.string().max(255).optional().describe('Free text, up to 255 characters.'),
  })
  .describe('An entry of the list; ip and cidr_prefix together identify it.');

/** The key of an entry: `ip/cidr_prefix`, the same range written the same way. */
function entryKey(member: unknown): string {
  const value = member as { ip?: unknown; cidr_prefix?: unknown };
  return `${String(value.ip)}/${String(value.cidr_prefix ?? 32)}`;
}

/**
 * A SIP IP access control list (SipAuth) of trusted IPv4 addresses or ranges, assigned to
 * applications by `ApplicationSipAuth`. Entries are a set keyed by `ip/cidr_prefix`.
 */
export const sipIpAcl = {
  name: 'SipIpAcl',
  description: 'SIP IP access control list: trusted IPv4 addresses or ranges for calls to an application.',
  spec: z
    .strictObject({
      name: friendlyName('Name of the list, 1–120 characters. Defaults to metadata.name.', 120).optional(),
      entries: z.array(entry).max(maxSipAclEntries).default([]).describe(`Entries, at most ${maxSipAclEntries}; a set keyed by ip/cidr_prefix.`),
    })
    .describe('SipIpAcl spec.'),
  nameField: 'name',
  references: {},
  secrets: {},
  setFields: { entries: entryKey },
  uniqueFields: ['name'],
  rules: [],
  checks: [
    (spec, report) => {
      const entries = spec['entries'] as ReadonlyArray<{ ip: string; cidr_prefix: number }>;
      entries.forEach((item, index) => {
        // Like plivo-cli's risky-range warning (api-facts.md section 2d): legal, rarely meant.
        if (item.cidr_prefix === 0) report(['entries', index, 'cidr_prefix'], { severity: 'warning', message: 'prefix 0 trusts every IPv4 address' });
        else if (item.cidr_prefix < 8) report(['entries', index, 'cidr_prefix'], { severity: 'warning', message: `prefix ${item.cidr_prefix} trusts a range wider than a /8` });
      });
    },
  ],
} as const satisfies Kind;
