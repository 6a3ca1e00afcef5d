import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { optionalBoolean, optionalString } from '../params.js';
import { findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { AccountInitializer, Runtime } from '../runtime.js';
import type { AccountState, ApplicationRecord } from '../state.js';
import type { Shapes } from '../options.js';

/**
 * Applications (`/Application/`), served so that SIP auth can be assigned and the SipAuth 409
 * rules exercised. The API reference leaves this interface out; its shape follows production's documentation:
 * create 201 `{message:"created", app_id}`, update 202 `{message:"changed"}`, delete 204, and the
 * three SIP auth fields `sip_auth_type`, `ip_acl_uuid`, `credential_uuid`.
 */

export const sipAuthTypes = ['', 'ip_acl', 'credential', 'ip_acl_and_credential'] as const;
export type SipAuthType = (typeof sipAuthTypes)[number];

const collectionPath = '/Application/';
const itemPath = '/Application/:app_id/';
const methods = ['GET', 'POST'];

/** The three applications every new account starts with (fixed ids, documented in docs/emulator.md). */
export const seededApplications: ReadonlyArray<{ app_id: string; app_name: string }> = [
  { app_id: '77700000000000001', app_name: 'pbx-inbound' },
  { app_id: '77700000000000002', app_name: 'support-line' },
  { app_id: '77700000000000003', app_name: 'spare-app' },
];

/**
 * The application as the API reads it. With the production shapes an unset SIP auth field reads `null`,
 * as third parties report live (the ideal shapes keep the documented `""`).
 */
export function presentApplication(
  record: ApplicationRecord,
  accountBase: string,
  shapes: Shapes = 'ideal',
): JsonObject {
  const sipField = (value: string): string | null => (value === '' && shapes === 'production' ? null : value);
  return {
    app_id: record.app_id,
    app_name: record.app_name,
    answer_url: record.answer_url,
    answer_method: record.answer_method,
    hangup_url: record.hangup_url,
    hangup_method: record.hangup_method,
    fallback_answer_url: record.fallback_answer_url,
    fallback_method: record.fallback_method,
    message_url: record.message_url,
    message_method: record.message_method,
    default_app: record.default_app,
    enabled: record.enabled,
    public_uri: record.public_uri,
    log_incoming_messages: record.log_incoming_messages,
    sip_uri: `sip:${record.app_id}@app.plivo.com`,
    sub_account: null,
    sip_auth_type: sipField(record.sip_auth_type),
    ip_acl_uuid: sipField(record.ip_acl_uuid),
    credential_uuid: sipField(record.credential_uuid),
    resource_uri: `${accountBase}${collectionPath}${record.app_id}/`,
  };
}

function readMethod(body: JsonObject, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value === undefined || value === '') return undefined;
  const upper = value.toUpperCase();
  if (!methods.includes(upper)) throw new ApiError(400, `${field} must be GET or POST`);
  return upper;
}

function readUrl(body: JsonObject, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value === undefined || value === '') return value;
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw new ApiError(400, `${field} must be an http or https URL`);
  return value;
}

/**
 * Applies the plain (non-SIP-auth) fields of a create or update body to `record`. `""` clears
 * the optional URLs; absent or null leaves a field as it was.
 */
function applyPlainFields(record: ApplicationRecord, body: JsonObject): void {
  const appName = optionalString(body, 'app_name');
  if (appName !== undefined && appName !== '') record.app_name = appName;
  const answerUrl = readUrl(body, 'answer_url');
  if (answerUrl !== undefined && answerUrl !== '') record.answer_url = answerUrl;
  for (const field of ['hangup_url', 'fallback_answer_url', 'message_url'] as const) {
    const value = readUrl(body, field);
    if (value !== undefined) record[field] = value;
  }
  for (const field of ['answer_method', 'hangup_method', 'fallback_method', 'message_method'] as const) {
    const value = readMethod(body, field);
    if (value !== undefined) record[field] = value;
  }
  for (const field of ['default_app', 'enabled', 'public_uri', 'log_incoming_messages'] as const) {
    const value = optionalBoolean(body, field);
    if (value !== undefined) record[field] = value;
  }
}

/**
 * Applies `sip_auth_type`, `ip_acl_uuid` and `credential_uuid`. The type decides which ids are
 * kept: an id the type needs must name an existing SipAuth resource (400 otherwise); an id the
 * type does not use is stored as `""`, and sending a non-empty one is a 400, so a request never
 * silently loses part of what it asked for. `sip_auth_type: ""` unassigns both (production's documentation).
 */
function applySipAuth(account: AccountState, record: ApplicationRecord, body: JsonObject): void {
  const typeInput = optionalString(body, 'sip_auth_type');
  if (typeInput !== undefined && !(sipAuthTypes as readonly string[]).includes(typeInput)) {
    throw new ApiError(400, 'sip_auth_type must be one of ip_acl, credential, ip_acl_and_credential or "" (none)');
  }
  const type = (typeInput ?? record.sip_auth_type) as SipAuthType;
  const aclInput = optionalString(body, 'ip_acl_uuid');
  const credentialInput = optionalString(body, 'credential_uuid');
  const needsAcl = type === 'ip_acl' || type === 'ip_acl_and_credential';
  const needsCredential = type === 'credential' || type === 'ip_acl_and_credential';
  const typeLabel = type === '' ? 'empty' : type;
  if (!needsAcl && aclInput) throw new ApiError(400, `ip_acl_uuid cannot be set when sip_auth_type is ${typeLabel}`);
  if (!needsCredential && credentialInput) {
    throw new ApiError(400, `credential_uuid cannot be set when sip_auth_type is ${typeLabel}`);
  }
  const acl = needsAcl ? (aclInput ?? record.ip_acl_uuid) : '';
  const credential = needsCredential ? (credentialInput ?? record.credential_uuid) : '';
  if (needsAcl && acl === '') throw new ApiError(400, `ip_acl_uuid is required when sip_auth_type is ${type}`);
  if (needsCredential && credential === '')
    throw new ApiError(400, `credential_uuid is required when sip_auth_type is ${type}`);
  if (needsAcl && !account.sipAcls.has(acl)) {
    throw new ApiError(400, `ip_acl_uuid ${acl} is not an IP access control list of this account`);
  }
  if (needsCredential && !account.sipCredentials.has(credential)) {
    throw new ApiError(400, `credential_uuid ${credential} is not a SIP credential of this account`);
  }
  record.sip_auth_type = type;
  record.ip_acl_uuid = acl;
  record.credential_uuid = credential;
}

/**
 * Builds an application from a create body (also used by the admin seed route, which may fix
 * `app_id`). `app_name` and `answer_url` are required, with production's message
 * (production's documentation quotes "answer_url parameter is missing"). Nothing is stored on error.
 */
export function buildApplication(
  account: AccountState,
  body: JsonObject,
  runtime: Runtime,
  appId?: string,
): ApplicationRecord {
  for (const field of ['app_name', 'answer_url']) {
    const value = optionalString(body, field);
    if (value === undefined || value === '') throw new ApiError(400, `${field} parameter is missing`);
  }
  const record: ApplicationRecord = {
    app_id: appId ?? freshId(account.applications, () => runtime.numericId()),
    app_name: '',
    answer_url: '',
    answer_method: 'POST',
    hangup_url: '',
    hangup_method: 'POST',
    fallback_answer_url: '',
    fallback_method: 'POST',
    message_url: '',
    message_method: 'POST',
    default_app: false,
    enabled: true,
    public_uri: false,
    log_incoming_messages: true,
    sip_auth_type: '',
    ip_acl_uuid: '',
    credential_uuid: '',
    created_at: runtime.nowIso(),
  };
  applyPlainFields(record, body);
  // Production defaults the hangup URL to the answer URL when none is given.
  if (record.hangup_url === '') record.hangup_url = record.answer_url;
  applySipAuth(account, record, body);
  return record;
}

/** Seeds a new account with the documented applications. */
export const seedApplications: AccountInitializer = {
  name: 'applications',
  initialize: (account, runtime) => {
    for (const seed of seededApplications) {
      if (account.applications.has(seed.app_id)) continue;
      const body = { app_name: seed.app_name, answer_url: `https://example.com/${seed.app_name}/answer` };
      account.applications.set(seed.app_id, buildApplication(account, body, runtime, seed.app_id));
    }
  },
};

export const applicationRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const record = buildApplication(account, body, runtime);
      account.applications.set(record.app_id, record);
      return json(201, { message: 'created', app_id: record.app_id });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase, runtime }) =>
      listReply([...account.applications.values()], query, `${accountBase}${collectionPath}`, true, (record) =>
        presentApplication(record, accountBase, runtime.config.shapes),
      ),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, accountBase, runtime }) =>
      json(
        200,
        presentApplication(
          findOr404(account.applications, params.app_id as string, 'application'),
          accountBase,
          runtime.config.shapes,
        ),
      ),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body }) => {
      const record = findOr404(account.applications, params.app_id as string, 'application');
      // Validate on a copy so that a refused update changes nothing.
      const updated = { ...record };
      applyPlainFields(updated, body);
      applySipAuth(account, updated, body);
      Object.assign(record, updated);
      return json(202, { message: 'changed' });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.app_id as string;
      findOr404(account.applications, id, 'application');
      account.applications.delete(id);
      // Numbers routed to the application are left without one, as when production deletes it.
      for (const number of account.numbers.values()) if (number.app_id === id) number.app_id = null;
      return noContent();
    },
  },
];
