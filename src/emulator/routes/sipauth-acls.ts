import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { isIpv4Address } from '../ip.js';
import { optionalArray, requiredString } from '../params.js';
import { characterCount, findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { AccountState, SipAclEntryRecord, SipAclRecord } from '../state.js';
import type { Runtime } from '../runtime.js';

/**
 * SIP IP access control lists and their entries (the API reference, "SIP IP access control lists").
 * Missing or bad parameters are 400 (SipAuth), an ACL still assigned to an application is 409.
 */

/** The API reference, Limits. */
export const maxSipAcls = 100;
export const maxEntriesPerAcl = 50;

const assignedMessage =
  'This IP access control list is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.';

const collectionPath = '/SipAuth/IpAccessControlList/';
const itemPath = '/SipAuth/IpAccessControlList/:ip_acl_uuid/';
const entriesPath = '/SipAuth/IpAccessControlList/:ip_acl_uuid/Entry/';
const entryPath = '/SipAuth/IpAccessControlList/:ip_acl_uuid/Entry/:entry_id/';

export function presentSipAcl(record: SipAclRecord, accountBase: string): JsonObject {
  return {
    ip_acl_uuid: record.ip_acl_uuid,
    name: record.name,
    entries: record.entries.map((entry) => ({ ...entry })),
    resource_uri: `${accountBase}${collectionPath}${record.ip_acl_uuid}/`,
  };
}

/** The API reference: `name` is 1 to 120 characters. */
function readName(body: JsonObject): string {
  const name = requiredString(body, 'name');
  if (characterCount(name) > 120) throw new ApiError(400, 'name must be 1 to 120 characters');
  return name;
}

/**
 * Reads one entry: `ip` (required, IPv4), `cidr_prefix` (integer 0–32, default 32),
 * `description` (up to 255 characters, default ""). `label` names the field in errors
 * (`entries[2].ip` at list creation, `ip` on the Entry add), since the spec does not show the
 * element shape at creation and the emulator uses the Entry add's fields for it.
 */
function readEntry(source: unknown, label: string, runtime: Runtime, taken: ReadonlySet<string>): SipAclEntryRecord {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) {
    throw new ApiError(400, `${label.replace(/\.$/, '')} must be an object with ip, cidr_prefix and description`);
  }
  const entry = source as JsonObject;
  const ip = entry.ip;
  if (ip === undefined || ip === null || ip === '') throw new ApiError(400, `${label}ip is required`);
  if (typeof ip !== 'string') throw new ApiError(400, `${label}ip must be a string`);
  if (!isIpv4Address(ip)) throw new ApiError(400, `${label}ip must be a valid IPv4 address: ${ip}`);
  let cidrPrefix = 32;
  if (entry.cidr_prefix !== undefined && entry.cidr_prefix !== null) {
    const value = entry.cidr_prefix;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 32) {
      throw new ApiError(400, `${label}cidr_prefix must be an integer from 0 to 32`);
    }
    cidrPrefix = value;
  }
  let description = '';
  if (entry.description !== undefined && entry.description !== null) {
    if (typeof entry.description !== 'string') throw new ApiError(400, `${label}description must be a string`);
    if (characterCount(entry.description) > 255)
      throw new ApiError(400, `${label}description must be at most 255 characters`);
    description = entry.description;
  }
  let entryId = runtime.uuid();
  while (taken.has(entryId)) entryId = runtime.uuid();
  return { entry_id: entryId, ip, cidr_prefix: cidrPrefix, description };
}

function isAssigned(account: AccountState, aclUuid: string): boolean {
  for (const app of account.applications.values()) {
    const usesAcl = app.sip_auth_type === 'ip_acl' || app.sip_auth_type === 'ip_acl_and_credential';
    if (usesAcl && app.ip_acl_uuid === aclUuid) return true;
  }
  return false;
}

function findAcl(account: AccountState, id: string): SipAclRecord {
  return findOr404(account.sipAcls, id, 'IP access control list');
}

export const sipAclRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const name = readName(body);
      const sources = optionalArray(body, 'entries') ?? [];
      if (sources.length > maxEntriesPerAcl) {
        throw new ApiError(400, `entries must hold at most ${maxEntriesPerAcl} entries`);
      }
      const taken = new Set<string>();
      const entries = sources.map((source, index) => {
        const entry = readEntry(source, `entries[${index}].`, runtime, taken);
        taken.add(entry.entry_id);
        return entry;
      });
      if (account.sipAcls.size >= maxSipAcls) {
        throw new ApiError(400, `an account holds at most ${maxSipAcls} IP access control lists`);
      }
      const record: SipAclRecord = {
        ip_acl_uuid: freshId(account.sipAcls, () => runtime.uuid()),
        name,
        entries,
        created_at: runtime.nowIso(),
      };
      account.sipAcls.set(record.ip_acl_uuid, record);
      return json(201, { ip_acl_uuid: record.ip_acl_uuid });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) =>
      listReply([...account.sipAcls.values()], query, `${accountBase}${collectionPath}`, true, (record) =>
        presentSipAcl(record, accountBase),
      ),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, accountBase }) =>
      json(200, presentSipAcl(findAcl(account, params.ip_acl_uuid as string), accountBase)),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body, accountBase }) => {
      const record = findAcl(account, params.ip_acl_uuid as string);
      record.name = readName(body);
      return json(202, {
        message: 'IP access control list updated successfully.',
        ...presentSipAcl(record, accountBase),
      });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.ip_acl_uuid as string;
      findAcl(account, id);
      if (isAssigned(account, id)) throw new ApiError(409, assignedMessage);
      // The entries live inside the list record, so they go with it (the API reference: "removes the list and all its entries").
      account.sipAcls.delete(id);
      return noContent();
    },
  },
  {
    method: 'POST',
    path: entriesPath,
    writes: true,
    handle: ({ account, params, body, runtime }) => {
      const record = findAcl(account, params.ip_acl_uuid as string);
      const entry = readEntry(body, '', runtime, new Set(record.entries.map((existing) => existing.entry_id)));
      if (record.entries.length >= maxEntriesPerAcl) {
        throw new ApiError(400, `an IP access control list holds at most ${maxEntriesPerAcl} entries`);
      }
      record.entries.push(entry);
      return json(201, { entry_id: entry.entry_id });
    },
  },
  {
    method: 'DELETE',
    path: entryPath,
    writes: true,
    handle: ({ account, params }) => {
      const record = findAcl(account, params.ip_acl_uuid as string);
      const index = record.entries.findIndex((entry) => entry.entry_id === params.entry_id);
      if (index < 0) throw new ApiError(404, `entry ${params.entry_id as string} not found`);
      record.entries.splice(index, 1);
      return noContent();
    },
  },
];
