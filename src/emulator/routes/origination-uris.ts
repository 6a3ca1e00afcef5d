import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { isIpv4Address } from '../ip.js';
import { optionalBoolean, optionalString } from '../params.js';
import { hashPassword } from '../passwords.js';
import { findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { OriginationUriRecord } from '../state.js';

/**
 * Origination URIs (`/Zentrunk/URI/`), the resources behind a trunk's `primary_uri_uuid` and
 * `fallback_uri_uuid`. The API reference does not show them; everything here follows production's documentation:
 * `uri` required (422), `username`/`password` required when `authentication_needed` (422), the
 * password write-only, `username` null without authentication, delete 204 even while in use.
 */

const collectionPath = '/Zentrunk/URI/';
const itemPath = '/Zentrunk/URI/:uri_uuid/';

const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * The documented forms (production's documentation): `host`, `host:port`, `sip:user@host`, `sips:host`,
 * `[ipv6]:port`, each optionally followed by `;param=value` (e.g. `;transport=tls`).
 */
const uriPattern = new RegExp(
  `^(?:sips?:)?(?:([A-Za-z0-9+._~!$&'()*,=-]+)@)?(${label}(?:\\.${label})*|\\[[0-9A-Fa-f:.]+\\])(?::([0-9]{1,5}))?((?:;[A-Za-z0-9_.-]+(?:=[A-Za-z0-9_.-]+)?)*)$`,
);

/** Whether `value` is an origination URI the emulator accepts (the forms above, port 1–65535). */
export function isOriginationUri(value: string): boolean {
  if (value.length > 255) return false;
  const match = uriPattern.exec(value);
  if (!match) return false;
  const host = match[2] as string;
  // A host of digits and dots only must be an IPv4 address (`300.1.1.1` is not a name).
  if (/^[0-9.]+$/.test(host) && !isIpv4Address(host)) return false;
  const port = match[3];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

export function presentOriginationUri(record: OriginationUriRecord): JsonObject {
  return {
    uri_uuid: record.uri_uuid,
    name: record.name,
    uri: record.uri,
    authentication_needed: record.authentication_needed,
    username: record.username,
  };
}

/** A string parameter where `""` counts as not given. */
function given(body: JsonObject, field: string): string | undefined {
  const value = optionalString(body, field);
  return value === '' ? undefined : value;
}

function checkUri(uri: string): void {
  if (!isOriginationUri(uri)) {
    throw new ApiError(
      400,
      `uri must be a host name or IP address with an optional sip:/sips: scheme, user, port and parameters: ${uri}`,
    );
  }
}

/** The authentication fields of a body applied to `record`; 422 when authentication lacks them. */
function applyAuthentication(record: OriginationUriRecord, body: JsonObject): void {
  record.authentication_needed = optionalBoolean(body, 'authentication_needed') ?? record.authentication_needed;
  const username = given(body, 'username');
  const password = given(body, 'password');
  if (!record.authentication_needed) {
    record.username = null;
    record.password_hash = null;
    return;
  }
  if (username !== undefined) record.username = username;
  if (password !== undefined) record.password_hash = hashPassword(password);
  if (record.username === null || record.password_hash === null) {
    throw new ApiError(422, 'username and password are required when authentication_needed is true');
  }
}

export const originationUriRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const uri = given(body, 'uri');
      if (uri === undefined) throw new ApiError(422, 'uri is required');
      checkUri(uri);
      const record: OriginationUriRecord = {
        uri_uuid: freshId(account.originationUris, () => runtime.uuid()),
        name: given(body, 'name') ?? '',
        uri,
        authentication_needed: false,
        username: null,
        password_hash: null,
        created_at: runtime.nowIso(),
      };
      applyAuthentication(record, body);
      account.originationUris.set(record.uri_uuid, record);
      return json(201, { message: 'Origination URI created successfully.', uri_uuid: record.uri_uuid });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) =>
      listReply(
        [...account.originationUris.values()],
        query,
        `${accountBase}${collectionPath}`,
        false,
        presentOriginationUri,
      ),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params }) =>
      json(
        200,
        presentOriginationUri(findOr404(account.originationUris, params.uri_uuid as string, 'origination URI')),
      ),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body }) => {
      const current = findOr404(account.originationUris, params.uri_uuid as string, 'origination URI');
      const next: OriginationUriRecord = { ...current };
      const name = given(body, 'name');
      const uri = given(body, 'uri');
      if (uri !== undefined) checkUri(uri);
      if (name !== undefined) next.name = name;
      if (uri !== undefined) next.uri = uri;
      applyAuthentication(next, body);
      Object.assign(current, next);
      // Production's update message starts in lower case, unlike the create message.
      return json(202, { message: 'origination uri updated successfully.', uri_uuid: current.uri_uuid });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.uri_uuid as string;
      findOr404(account.originationUris, id, 'origination URI');
      account.originationUris.delete(id);
      return noContent();
    },
  },
];
