// Held SIP and trunking objects (seed `existing`, and replicas written by `telform snapshot`): given as the
// API reads them back, kept with their ids, so a replica of an account answers with the same ids the real
// one does. Passwords are write-only: nobody knows a held object's password, so each gets a random one,
// kept only as a hash like any other (a replica never holds a secret).
import { randomUUID } from 'node:crypto';
import { ApiError, type JsonObject } from './http.js';
import { Fields, heldId } from './held-fields.js';
import { hashPassword } from './passwords.js';
import type { Runtime } from './runtime.js';
import type {
  AccountState,
  OriginationUriRecord,
  SipAclEntryRecord,
  SipAclRecord,
  SipCredentialRecord,
  TrunkAclRecord,
  TrunkRecord,
} from './state.js';

const uuidPattern = /^[0-9a-f-]{36}$/;
/** The production default realm, as the SIP credential routes use it. */
const defaultRealm = 'phone.plivo.com';

export function holdSipCredential(account: AccountState, body: JsonObject, runtime: Runtime): SipCredentialRecord {
  const fields = new Fields(body);
  const uuid = heldId(
    account.sipCredentials,
    fields.text('credential_uuid'),
    uuidPattern,
    'credential_uuid must be a UUID',
    () => runtime.uuid(),
  );
  const username = fields.text('username');
  if (username === undefined || username === '') throw new ApiError(400, 'username is required');
  const record: SipCredentialRecord = {
    credential_uuid: uuid,
    username,
    realm: fields.text('realm') ?? defaultRealm,
    password_hash: hashPassword(randomUUID()),
    created_at: fields.text('created_at') ?? runtime.nowIso(),
  };
  fields.checkNoOthers('SIP credential');
  account.sipCredentials.set(uuid, record);
  return record;
}

export function holdSipAcl(account: AccountState, body: JsonObject, runtime: Runtime): SipAclRecord {
  const fields = new Fields(body);
  const uuid = heldId(account.sipAcls, fields.text('ip_acl_uuid'), uuidPattern, 'ip_acl_uuid must be a UUID', () =>
    runtime.uuid(),
  );
  const entries = fields.any('entries');
  if (entries !== undefined && entries !== null && !Array.isArray(entries))
    throw new ApiError(400, 'entries must be a list');
  const record: SipAclRecord = {
    ip_acl_uuid: uuid,
    name: fields.text('name') ?? '',
    entries: ((entries ?? []) as unknown[]).map((entry, index) => holdAclEntry(entry, index, runtime)),
    created_at: fields.text('created_at') ?? runtime.nowIso(),
  };
  fields.checkNoOthers('SIP IP access control list');
  account.sipAcls.set(uuid, record);
  return record;
}

function holdAclEntry(entry: unknown, index: number, runtime: Runtime): SipAclEntryRecord {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw new ApiError(400, `entries.${index} must be an object`);
  const fields = new Fields(entry as JsonObject);
  const ip = fields.text('ip');
  if (ip === undefined) throw new ApiError(400, `entries.${index}.ip is required`);
  const prefix = fields.any('cidr_prefix');
  if (prefix !== undefined && prefix !== null && (typeof prefix !== 'number' || !Number.isInteger(prefix))) {
    throw new ApiError(400, `entries.${index}.cidr_prefix must be an integer`);
  }
  const record: SipAclEntryRecord = {
    entry_id: fields.text('entry_id') ?? runtime.uuid(),
    ip,
    cidr_prefix: typeof prefix === 'number' ? prefix : 32,
    description: fields.text('description') ?? '',
  };
  fields.checkNoOthers('SIP IP access control list entry');
  return record;
}

export function holdTrunkAcl(account: AccountState, body: JsonObject, runtime: Runtime): TrunkAclRecord {
  const fields = new Fields(body);
  const uuid = heldId(account.trunkAcls, fields.text('ipacl_uuid'), uuidPattern, 'ipacl_uuid must be a UUID', () =>
    runtime.uuid(),
  );
  const addresses = fields.any('ip_addresses');
  const list = typeof addresses === 'string' ? addresses.split(',').filter((item) => item !== '') : addresses;
  if (list !== undefined && list !== null && (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))) {
    throw new ApiError(400, 'ip_addresses must be a list of addresses');
  }
  const record: TrunkAclRecord = {
    ipacl_uuid: uuid,
    name: fields.text('name') ?? '',
    ip_addresses: [...((list ?? []) as string[])],
    created_at: fields.text('created_at') ?? runtime.nowIso(),
  };
  fields.checkNoOthers('trunk IP access control list');
  account.trunkAcls.set(uuid, record);
  return record;
}

export function holdOriginationUri(account: AccountState, body: JsonObject, runtime: Runtime): OriginationUriRecord {
  const fields = new Fields(body);
  const uuid = heldId(account.originationUris, fields.text('uri_uuid'), uuidPattern, 'uri_uuid must be a UUID', () =>
    runtime.uuid(),
  );
  const uri = fields.text('uri');
  if (uri === undefined) throw new ApiError(400, 'uri is required');
  const authenticated = fields.flag('authentication_needed') ?? false;
  const record: OriginationUriRecord = {
    uri_uuid: uuid,
    name: fields.text('name') ?? '',
    uri,
    authentication_needed: authenticated,
    username: fields.text('username') ?? null,
    password_hash: authenticated ? hashPassword(randomUUID()) : null,
    created_at: fields.text('created_at') ?? runtime.nowIso(),
  };
  fields.checkNoOthers('origination URI');
  account.originationUris.set(uuid, record);
  return record;
}

const trunkReferences = ['ipacl_uuid', 'credential_uuid', 'primary_uri_uuid', 'fallback_uri_uuid'] as const;

export function holdTrunk(account: AccountState, body: JsonObject, runtime: Runtime): TrunkRecord {
  const fields = new Fields(body);
  const trunkId = heldId(account.trunks, fields.text('trunk_id'), /^[0-9]{1,25}$/, 'trunk_id must be digits', () =>
    runtime.numericId(),
  );
  const direction = fields.text('trunk_direction') ?? 'outbound';
  if (direction !== 'inbound' && direction !== 'outbound')
    throw new ApiError(400, 'trunk_direction must be inbound or outbound');
  const status = fields.text('trunk_status') ?? 'enabled';
  if (status !== 'enabled' && status !== 'disabled')
    throw new ApiError(400, 'trunk_status must be enabled or disabled');
  const references = Object.fromEntries(
    trunkReferences.map((field) => [field, emptyAsNull(fields.text(field))]),
  ) as Record<(typeof trunkReferences)[number], string | null>;
  // Read, never managed: the domain follows from the id, as the trunk routes present it.
  fields.text('trunk_domain');
  const createdAt = fields.text('created_at') ?? runtime.nowIso();
  const record: TrunkRecord = {
    trunk_id: trunkId,
    name: fields.text('name') ?? '',
    trunk_status: status,
    trunk_direction: direction,
    secure: fields.flag('secure') ?? false,
    ...references,
    created_at: createdAt,
    updated_at: fields.text('updated_at') ?? createdAt,
  };
  fields.checkNoOthers('trunk');
  account.trunks.set(trunkId, record);
  return record;
}

function emptyAsNull(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
