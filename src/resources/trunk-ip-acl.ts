import { z } from 'zod';
import { friendlyName, ipv4OrCidr } from './fields.js';
import type { Kind } from './kind.js';

/**
 * The addresses a trunk IP ACL trusts: IPv4 addresses or CIDR ranges (api.md leaves the rules
 * open; api-facts.md section 2d shows production accepting CIDR). A set keyed by the address as
 * written; an update replaces the whole list (api.md "Trunk IP access control lists").
 */
export const trunkIpAcl = {
  name: 'TrunkIpAcl',
  description: 'Trunk IP access control list: IPv4 addresses or CIDR ranges allowed to send calls on an outbound trunk.',
  spec: z
    .strictObject({
      name: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
      ip_addresses: z.array(ipv4OrCidr).describe('IPv4 addresses or CIDR ranges; a set (order does not matter).'),
    })
    .describe('TrunkIpAcl spec.'),
  nameField: 'name',
  references: {},
  secrets: {},
  setFields: { ip_addresses: (member: unknown) => String(member) },
  uniqueFields: ['name'],
  rules: [],
  checks: [
    (spec, report) => {
      const addresses = spec['ip_addresses'] as readonly string[];
      addresses.forEach((address, index) => {
        const prefix = address.includes('/') ? Number(address.split('/')[1]) : 32;
        // Like plivo-cli's risky-range warning (api-facts.md section 2d): legal, rarely meant.
        if (prefix === 0) report(['ip_addresses', index], { severity: 'warning', message: `${address} allows every IPv4 address` });
        else if (prefix < 8) report(['ip_addresses', index], { severity: 'warning', message: `${address} allows a range wider than a /8` });
      });
    },
  ],
} as const satisfies Kind;
