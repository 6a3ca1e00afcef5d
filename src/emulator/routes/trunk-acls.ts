import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { isIpv4AddressOrCidr } from '../ip.js';
import { optionalArray, optionalString } from '../params.js';
import { findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { TrunkAclRecord } from '../state.js';

/**
 * Trunk IP access control lists (the API reference, "Trunk IP access control lists"): 422 without
 * `ip_addresses` on create; on update `ip_addresses` replaces the whole list. Members are IPv4
 * addresses or IPv4 CIDR ranges (production's documentation shows CIDR accepted), each listed once.
 */

const collectionPath = '/Zentrunk/IPAccessControlList/';
const itemPath = '/Zentrunk/IPAccessControlList/:ipacl_uuid/';

export function presentTrunkAcl(record: TrunkAclRecord): JsonObject {
  return { ipacl_uuid: record.ipacl_uuid, name: record.name, ip_addresses: [...record.ip_addresses] };
}

/** Reads `ip_addresses`; undefined when absent, null or empty (which create treats as missing). */
function readAddresses(body: JsonObject): string[] | undefined {
  const items = optionalArray(body, 'ip_addresses');
  if (items === undefined || items.length === 0) return undefined;
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (typeof item !== 'string') throw new ApiError(400, `ip_addresses[${index}] must be a string`);
    if (!isIpv4AddressOrCidr(item)) {
      throw new ApiError(400, `ip_addresses[${index}] is not a valid IPv4 address or CIDR range: ${item}`);
    }
    if (seen.has(item)) throw new ApiError(400, `ip_addresses lists ${item} more than once`);
    seen.add(item);
  });
  return items as string[];
}

export const trunkAclRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const name = optionalString(body, 'name') ?? '';
      const addresses = readAddresses(body);
      if (addresses === undefined) throw new ApiError(422, 'ip_addresses is required');
      const record: TrunkAclRecord = {
        ipacl_uuid: freshId(account.trunkAcls, () => runtime.uuid()),
        name,
        ip_addresses: addresses,
        created_at: runtime.nowIso(),
      };
      account.trunkAcls.set(record.ipacl_uuid, record);
      return json(201, { message: 'IP access control list created successfully.', ipacl_uuid: record.ipacl_uuid });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) =>
      listReply([...account.trunkAcls.values()], query, `${accountBase}${collectionPath}`, false, presentTrunkAcl),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params }) =>
      json(200, presentTrunkAcl(findOr404(account.trunkAcls, params.ipacl_uuid as string, 'IP access control list'))),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body }) => {
      const record = findOr404(account.trunkAcls, params.ipacl_uuid as string, 'IP access control list');
      const name = optionalString(body, 'name');
      const sent = optionalArray(body, 'ip_addresses');
      const addresses = readAddresses(body);
      if (sent !== undefined && addresses === undefined) {
        throw new ApiError(400, 'ip_addresses must hold at least one address');
      }
      if (name !== undefined && name !== '') record.name = name;
      if (addresses !== undefined) record.ip_addresses = addresses;
      return json(202, { message: 'IP access control list updated successfully.', ipacl_uuid: record.ipacl_uuid });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.ipacl_uuid as string;
      findOr404(account.trunkAcls, id, 'IP access control list');
      account.trunkAcls.delete(id);
      return noContent();
    },
  },
];
