import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { optionalBoolean, optionalString, queryBoolean, queryEnum } from '../params.js';
import { findOr404, freshId, listReply, secondsTimestamp } from '../records.js';
import type { Route } from '../router.js';
import type { AccountState, TrunkRecord } from '../state.js';

/**
 * SIP trunks (the API reference, "Trunks"; production's documentation). Missing required parameters are 422, bad values
 * 400 (the API reference, Errors rule 4). References must name existing trunking objects of the account when
 * they are given; a reference whose target is deleted later stays as it is (production only warns
 * that deleting an ACL, credential or URI in use breaks the trunk).
 */

const directions = ['inbound', 'outbound'] as const;
const statuses = ['enabled', 'disabled'] as const;
type Direction = (typeof directions)[number];

const collectionPath = '/Zentrunk/Trunk/';
const itemPath = '/Zentrunk/Trunk/:trunk_id/';
/** Production's documentation: `trunk_domain` is `{trunk_id}.zt.plivo.com`. */
export const trunkingDomain = 'zt.plivo.com';

type ReferenceField = 'ipacl_uuid' | 'credential_uuid' | 'primary_uri_uuid' | 'fallback_uri_uuid';
const outboundFields: readonly ReferenceField[] = ['ipacl_uuid', 'credential_uuid'];
const inboundFields: readonly ReferenceField[] = ['primary_uri_uuid', 'fallback_uri_uuid'];
const referenceFields: readonly ReferenceField[] = [...outboundFields, ...inboundFields];

export function presentTrunk(record: TrunkRecord): JsonObject {
  return {
    trunk_id: record.trunk_id,
    name: record.name,
    trunk_status: record.trunk_status,
    secure: record.secure,
    trunk_domain: `${record.trunk_id}.${trunkingDomain}`,
    trunk_direction: record.trunk_direction,
    ipacl_uuid: record.ipacl_uuid,
    credential_uuid: record.credential_uuid,
    primary_uri_uuid: record.primary_uri_uuid,
    fallback_uri_uuid: record.fallback_uri_uuid,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function readEnum<T extends string>(body: JsonObject, field: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(body, field);
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new ApiError(400, `${field} must be ${allowed.join(' or ')}`);
  return value as T;
}

function targetExists(account: AccountState, field: ReferenceField, id: string): boolean {
  if (field === 'ipacl_uuid') return account.trunkAcls.has(id);
  if (field === 'credential_uuid') return account.trunkCredentials.has(id);
  return account.originationUris.has(id);
}

const targetNames: Record<ReferenceField, string> = {
  ipacl_uuid: 'a trunk IP access control list',
  credential_uuid: 'a trunk credential',
  primary_uri_uuid: 'an origination URI',
  fallback_uri_uuid: 'an origination URI',
};

/**
 * Applies the reference fields of a body to `trunk` for its (final) direction. Absent or null
 * leaves a field as it is; `""` clears it (so an update can drop a fallback URI); fields that do
 * not apply to the direction are null (the API reference, Trunk: "returned as null"), whatever was sent.
 */
function applyReferences(account: AccountState, trunk: TrunkRecord, body: JsonObject): void {
  const applicable = trunk.trunk_direction === 'outbound' ? outboundFields : inboundFields;
  for (const field of referenceFields) {
    const value = optionalString(body, field);
    if (!applicable.includes(field)) {
      trunk[field] = null;
    } else if (value === '') {
      trunk[field] = null;
    } else if (value !== undefined) {
      if (!targetExists(account, field, value)) {
        throw new ApiError(400, `${field} ${value} is not ${targetNames[field]} of this account`);
      }
      trunk[field] = value;
    }
  }
}

/** The API reference Trunks rules 1 and 2: what each direction needs; 422 when missing. */
function checkDirectionNeeds(trunk: TrunkRecord): void {
  if (trunk.trunk_direction === 'outbound' && trunk.ipacl_uuid === null && trunk.credential_uuid === null) {
    throw new ApiError(422, 'an outbound trunk needs ipacl_uuid or credential_uuid');
  }
  if (trunk.trunk_direction === 'inbound' && trunk.primary_uri_uuid === null) {
    throw new ApiError(422, 'an inbound trunk needs primary_uri_uuid');
  }
}

/**
 * The list filters (the API reference, Trunks): enumerated and boolean filters are validated (400 on a value
 * outside the set, even when no trunk exists); id filters match exactly; other query keys are ignored.
 */
function readFilters(query: URLSearchParams): (trunk: TrunkRecord) => boolean {
  const status = queryEnum(query, 'trunk_status', statuses);
  const direction = queryEnum(query, 'trunk_direction', directions);
  const secure = queryBoolean(query, 'secure');
  const ids = referenceFields
    .map((field) => [field, query.get(field)] as const)
    .filter((pair): pair is readonly [ReferenceField, string] => pair[1] !== null && pair[1] !== '');
  return (trunk) =>
    (status === undefined || trunk.trunk_status === status) &&
    (direction === undefined || trunk.trunk_direction === direction) &&
    (secure === undefined || trunk.secure === secure) &&
    ids.every(([field, wanted]) => trunk[field] === wanted);
}

export const trunkRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const direction = readEnum<Direction>(body, 'trunk_direction', directions);
      if (direction === undefined) throw new ApiError(422, 'trunk_direction is required');
      const now = secondsTimestamp(runtime);
      const trunk: TrunkRecord = {
        trunk_id: freshId(account.trunks, () => runtime.numericId()),
        name: optionalString(body, 'name') ?? '',
        trunk_status: readEnum(body, 'trunk_status', statuses) ?? 'enabled',
        trunk_direction: direction,
        secure: optionalBoolean(body, 'secure') ?? false,
        ipacl_uuid: null,
        credential_uuid: null,
        primary_uri_uuid: null,
        fallback_uri_uuid: null,
        created_at: now,
        updated_at: now,
      };
      applyReferences(account, trunk, body);
      checkDirectionNeeds(trunk);
      account.trunks.set(trunk.trunk_id, trunk);
      return json(201, { message: 'Trunk created successfully.', trunk_id: trunk.trunk_id });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) => {
      const trunks = [...account.trunks.values()].filter(readFilters(query));
      return listReply(trunks, query, `${accountBase}${collectionPath}`, false, presentTrunk);
    },
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, runtime }) => {
      const trunk = presentTrunk(findOr404(account.trunks, params.trunk_id as string, 'trunk'));
      // Production's documentation: production nests the record under `object`; the docs show it flat.
      return json(200, runtime.config.trunkGetShape === 'flat' ? trunk : { object: trunk });
    },
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body, runtime }) => {
      const current = findOr404(account.trunks, params.trunk_id as string, 'trunk');
      const next: TrunkRecord = { ...current };
      const name = optionalString(body, 'name');
      if (name !== undefined && name !== '') next.name = name;
      next.trunk_status = readEnum(body, 'trunk_status', statuses) ?? next.trunk_status;
      next.trunk_direction = readEnum<Direction>(body, 'trunk_direction', directions) ?? next.trunk_direction;
      next.secure = optionalBoolean(body, 'secure') ?? next.secure;
      applyReferences(account, next, body);
      checkDirectionNeeds(next);
      if (next.trunk_direction === 'outbound' && current.trunk_direction === 'inbound') {
        for (const number of account.numbers.values()) {
          if (number.app_id === current.trunk_id) {
            throw new ApiError(
              400,
              `trunk ${current.trunk_id} has phone numbers attached; only inbound trunks can be attached to phone numbers`,
            );
          }
        }
      }
      const changed = (Object.keys(next) as Array<keyof TrunkRecord>).some((key) => next[key] !== current[key]);
      if (changed) next.updated_at = secondsTimestamp(runtime);
      Object.assign(current, next);
      return json(202, { message: 'Trunk updated successfully.', trunk_id: current.trunk_id });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.trunk_id as string;
      findOr404(account.trunks, id, 'trunk');
      account.trunks.delete(id);
      // Production's documentation: deleting a trunk detaches every number routed to it.
      for (const number of account.numbers.values()) if (number.app_id === id) number.app_id = null;
      return noContent();
    },
  },
];
