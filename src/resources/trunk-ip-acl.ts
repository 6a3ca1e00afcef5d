import * as z from 'zod';
import { optionalFriendlyName, ipv4OrCidr } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { present, text, type ApiRecord } from './api-records.js';
import { collectionLive } from './collection-crud.js';
import type { LiveObject, LiveSide } from './live-side.js';

const collection = '/Zentrunk/IPAccessControlList/';
const updatable = ['name', 'ip_addresses'];

export function normaliseTrunkIpAcl(raw: ApiRecord): LiveObject {
  const addresses = Array.isArray(raw['ip_addresses']) ? (raw['ip_addresses'] as unknown[]) : [];
  return {
    id: String(raw['ipacl_uuid']),
    spec: present({
      name: text(raw['name']),
      ip_addresses: addresses.filter((item): item is string => typeof item === 'string'),
    }),
  };
}

/**
 * The live side: `ip_addresses` sent on update replaces the whole list, so any change of the set is one request; deleting a list a trunk uses is
 * allowed and breaks its auth.
 */
export const trunkIpAclLive: LiveSide = {
  product: 'SIP trunking',
  ...collectionLive({
    kind: 'TrunkIpAcl',
    collection,
    idField: 'ipacl_uuid',
    createdUnder: ['ipacl', 'object'],
    normalise: normaliseTrunkIpAcl,
    createFields: ['name', 'ip_addresses'],
    matchFields: ['ip_addresses'],
    updatable,
  }),
  fields: { updatable, replaceOn: [], immutable: [], unreadable: [] },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'breaks_auth',
};

/** The API keeps at most this many entries in one IP ACL. */
const maxTrunkAclEntries = 50;

const trunkIpAclSpec = builtOnce(() =>
  z
    .strictObject({
      name: optionalFriendlyName('Friendly name. Defaults to metadata.name.').optional(),
      ip_addresses: z
        .array(ipv4OrCidr)
        .min(1, { error: 'must hold at least one address (the API refuses an empty list)' })
        .max(maxTrunkAclEntries, {
          error: `must hold at most ${maxTrunkAclEntries} addresses (the API's limit per IP ACL)`,
        })
        .describe(`IPv4 addresses or CIDR ranges, 1 to ${maxTrunkAclEntries}; a set (order does not matter).`),
    })
    .describe('TrunkIpAcl spec.'),
);

/**
 * The addresses a trunk IP ACL trusts: IPv4 addresses or CIDR ranges (the API documents no
 * format; production accepts CIDR). A set keyed by the address as
 * written; an update replaces the whole list.
 */
export const trunkIpAcl = {
  name: 'TrunkIpAcl',
  description:
    'Trunk IP access control list: IPv4 addresses or CIDR ranges allowed to send calls on an outbound trunk.',
  get spec() {
    return trunkIpAclSpec();
  },
  nameField: 'name',
  references: {},
  secrets: {},
  setFields: { ip_addresses: (member: unknown) => String(member) },
  uniqueFields: [],
  rules: [],
  checks: [
    (spec, report) => {
      const addresses = spec['ip_addresses'] as readonly string[];
      addresses.forEach((address, index) => {
        const prefix = address.includes('/') ? Number(address.split('/')[1]) : 32;
        // Like plivo-cli's risky-range warning: legal, rarely meant.
        if (prefix === 0)
          report(['ip_addresses', index], { severity: 'warning', message: `${address} allows every IPv4 address` });
        else if (prefix < 8)
          report(['ip_addresses', index], {
            severity: 'warning',
            message: `${address} allows a range wider than a /8`,
          });
      });
    },
  ],
  live: trunkIpAclLive,
  // An address taken out of the list is a caller no longer let in.
  traffic: { admits: { members: 'ip_addresses' } },
  snapshot: {
    collection: 'trunk_ip_acls',
    path: collection,
    itemsKey: 'objects',
    idField: 'ipacl_uuid',
    seed: 'existing',
    fields: textFields(['ipacl_uuid', 'name', 'created_at'], { ip_addresses: 'list' }),
  },
  scope: { code: 'ta', preset: 'voice' },
} as const satisfies Kind;
