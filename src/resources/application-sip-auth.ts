import * as z from 'zod';
import { ApiRequestError } from '../api/errors.js';
import { reference, uuid } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { itemPath, listRecords, present, readRecord, text, type ApiRecord } from './api-records.js';
import type { LiveContext, LiveObject, LiveSide, ResolvedSpec } from './live-side.js';

const collection = '/Application/';
const usesAcl = ['ip_acl', 'ip_acl_and_credential'];
const usesCredential = ['credential', 'ip_acl_and_credential'];
const bindingFields = ['sip_auth_type', 'ip_acl_uuid', 'credential_uuid'];

/**
 * The binding of an application, or undefined when it has none (`sip_auth_type` empty). Ids the
 * type does not use are left out whatever the API shows for them (`""` on one read, `null` on
 * another): the type decides what is in force.
 */
export function normaliseApplicationSipAuth(raw: ApiRecord): LiveObject | undefined {
  const appId = String(raw['app_id']);
  // Some reads of an application carry none of the three fields: its binding is unknown, not absent
  // (a binding telform manages is then taken as last applied; an unknown one is never listed as unmanaged).
  if (!('sip_auth_type' in raw)) return { id: appId, spec: { app_id: appId }, unread: [...bindingFields] };
  const type = text(raw['sip_auth_type']);
  if (type === undefined) return undefined;
  return {
    id: appId,
    spec: present({
      app_id: appId,
      sip_auth_type: type,
      ip_acl_uuid: usesAcl.includes(type) ? text(raw['ip_acl_uuid']) : undefined,
      credential_uuid: usesCredential.includes(type) ? text(raw['credential_uuid']) : undefined,
    }),
  };
}

/**
 * Assigns the binding: one POST to the application with all three fields, `""` for an id the type
 * does not use. It sets values, so re-sending it after a lost answer is harmless (no create
 * recovery needed: there is nothing to duplicate).
 */
async function assign(context: LiveContext, spec: ResolvedSpec): Promise<string> {
  const appId = String(spec['app_id']);
  const type = String(spec['sip_auth_type']);
  const body = {
    sip_auth_type: type,
    ip_acl_uuid: usesAcl.includes(type) ? (spec['ip_acl_uuid'] ?? '') : '',
    credential_uuid: usesCredential.includes(type) ? (spec['credential_uuid'] ?? '') : '',
  };
  await context.client.request('POST', itemPath(collection, appId), { body, mode: 'idempotent' });
  return appId;
}

/**
 * The live side: one live object per application whose `sip_auth_type`
 * is set, identified by its `app_id`. Deleting unassigns (`sip_auth_type: ""`); an application that
 * is gone has nothing left to unassign.
 */
export const applicationSipAuthLive: LiveSide = {
  naturalKey: (spec) => text(spec['app_id']),
  list: async (context) =>
    (await listRecords(context.client, collection, 'app_id'))
      .map(normaliseApplicationSipAuth)
      .filter((object): object is LiveObject => object !== undefined),
  read: async (context, id) => {
    const raw = await readRecord(context.client, itemPath(collection, id));
    return raw && normaliseApplicationSipAuth(raw);
  },
  create: async (context, spec) => ({ id: await assign(context, spec) }),
  update: async (context, request) => {
    await assign(context, { ...request.desired, app_id: request.id });
  },
  delete: async (context, id) => {
    try {
      await context.client.request('POST', itemPath(collection, id), {
        body: { sip_auth_type: '' },
        mode: 'idempotent',
      });
    } catch (error) {
      if (!(error instanceof ApiRequestError && error.status === 404)) throw error;
    }
  },
  fields: {
    updatable: bindingFields,
    replaceOn: ['app_id'],
    immutable: [],
    unreadable: [],
    mayBeUnread: bindingFields,
  },
  idle: (live) => (live.unread ?? []).includes('sip_auth_type'),
  billableUpdateUsd: 0,
  // Binding the new application before unbinding the old keeps calls authenticated throughout.
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
};

const applicationSipAuthSpec = builtOnce(() =>
  z
    .strictObject({
      app_id: z
        .string()
        .regex(/^[0-9]{1,32}$/, { error: 'must be an application id: digits, such as 77700000000000001' })
        .describe('The application (not managed by telform), by its numeric app_id.'),
      sip_auth_type: z
        .enum(['ip_acl', 'credential', 'ip_acl_and_credential'])
        .describe('ip_acl: IP ACL only; credential: digest authentication; ip_acl_and_credential: both must pass.'),
      ip_acl_uuid: reference(uuid, 'SipIpAcl', 'a SIP IP ACL uuid').optional(),
      credential_uuid: reference(uuid, 'SipCredential', 'a SIP credential uuid').optional(),
    })
    .describe('ApplicationSipAuth spec.'),
);

/**
 * The SIP authentication of an application: `sip_auth_type` with the
 * IP ACL and/or SIP credential it uses. Applications themselves are not managed; `app_id` names
 * an existing one. Deleting this resource unassigns (sets `sip_auth_type` to "").
 */
export const applicationSipAuth = {
  name: 'ApplicationSipAuth',
  description:
    'SIP authentication of an existing application: which SipIpAcl and/or SipCredential inbound calls must pass.',
  get spec() {
    return applicationSipAuthSpec();
  },
  nameField: undefined,
  references: { ip_acl_uuid: 'SipIpAcl', credential_uuid: 'SipCredential' },
  secrets: {},
  setFields: {},
  uniqueFields: ['app_id'],
  rules: [
    {
      when: { field: 'sip_auth_type', in: ['ip_acl', 'ip_acl_and_credential'] },
      require: ['ip_acl_uuid'],
      reason: 'sip_auth_type includes ip_acl',
    },
    {
      when: { field: 'sip_auth_type', in: ['credential'] },
      forbid: ['ip_acl_uuid'],
      reason: 'sip_auth_type is credential',
    },
    {
      when: { field: 'sip_auth_type', in: ['credential', 'ip_acl_and_credential'] },
      require: ['credential_uuid'],
      reason: 'sip_auth_type includes credential',
    },
    {
      when: { field: 'sip_auth_type', in: ['ip_acl'] },
      forbid: ['credential_uuid'],
      reason: 'sip_auth_type is ip_acl',
    },
  ],
  checks: [],
  live: applicationSipAuthLive,
  traffic: {
    // The binding is the application's SIP authentication: its ACL and credential let callers in, and
    // deleting it leaves the application with none. Counted as the application it binds.
    authenticates: {
      by: ['ip_acl_uuid', 'credential_uuid'],
      counted: { in: 'applications', as: (id) => `Application/${id}` },
      removalBreaks: true,
    },
  },
  snapshot: {
    collection: 'applications',
    path: collection,
    itemsKey: 'objects',
    idField: 'app_id',
    seed: 'section',
    fields: textFields(
      [
        'app_id',
        'app_name',
        'answer_url',
        'answer_method',
        'hangup_url',
        'hangup_method',
        'fallback_answer_url',
        'fallback_method',
        'message_url',
        'message_method',
        'sip_auth_type',
        'ip_acl_uuid',
        'credential_uuid',
      ],
      { default_app: 'flag', enabled: 'flag', public_uri: 'flag', log_incoming_messages: 'flag' },
    ),
  },
  scope: { code: 'ap', preset: 'voice' },
} as const satisfies Kind;
