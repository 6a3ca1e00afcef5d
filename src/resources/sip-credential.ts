import * as z from 'zod';
import { ApiRequestError } from '../api/errors.js';
import { secret } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { itemPath, listRecords, present, readRecord, text, type ApiRecord, type CreateAnswer } from './api-records.js';
import { cannotTell } from '../api/writes.js';
import { createOnce, deleteAt, findCreated } from './collection-crud.js';
import type { LiveObject, LiveSide } from './live-side.js';
import { checkSipAuthPassword } from './passwords.js';

const collection = '/SipAuth/Credential/';

/** A credential as the manifest spells it; the password is write-only and never returned. */
export function normaliseSipCredential(raw: ApiRecord): LiveObject {
  return { id: String(raw['credential_uuid']), spec: present({ username: text(raw['username']) }) };
}

const naturalKey = (spec: Record<string, unknown>): string | undefined => text(spec['username']);

/**
 * The live side: the username cannot change, so a new username replaces
 * the credential (create first: the new username differs, so both can exist); an update sends the
 * password only, and only when it is to be (re)set.
 */
/** Where a create answer holds the new credential's id. */
const createAnswer: CreateAnswer = { idField: 'credential_uuid', under: ['credential', 'object'] };

export const sipCredentialLive: LiveSide = {
  naturalKey,
  createAnswer,
  list: async (context) =>
    (await listRecords(context.client, collection, 'credential_uuid')).map(normaliseSipCredential),
  read: async (context, id) => {
    const raw = await readRecord(context.client, itemPath(collection, id));
    return raw && normaliseSipCredential(raw);
  },
  create: async (context, spec) => {
    const body = { username: spec['username'], password: spec['password'] };
    const lookup = async () =>
      findCreated(await sipCredentialLive.list(context), naturalKey, spec, [], 'SipCredential');
    try {
      return await createOnce(context, collection, body, createAnswer, lookup);
    } catch (error) {
      // 409: the username exists, e.g. made by an earlier run whose answer was
      // lost, the next run planning a replace again. Usernames are unique, so that credential is the
      // one the manifest describes: it is taken over and given the manifest's password.
      if (!(error instanceof ApiRequestError && error.status === 409)) throw error;
      const existing = await lookup();
      if (!existing || existing === cannotTell) throw error;
      await context.client.request('POST', itemPath(collection, existing.id), {
        body: { password: spec['password'] },
        mode: 'idempotent',
      });
      return { id: existing.id };
    }
  },
  update: async (context, request) => {
    const password = request.desired['password'];
    if (!request.secretFields.includes('password') || typeof password !== 'string') return;
    await context.client.request('POST', itemPath(collection, request.id), { body: { password }, mode: 'idempotent' });
  },
  // A 409 (still assigned to an application) surfaces with the API's own message.
  delete: (context, id) => deleteAt(context, itemPath(collection, id)),
  fields: { updatable: ['password'], replaceOn: ['username'], immutable: [], unreadable: [] },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'needs_unassign',
};

const sipCredentialSpec = builtOnce(() =>
  z
    .strictObject({
      username: z
        .string()
        .min(3)
        .max(64)
        // The API refuses two credentials with one username in an account.
        .regex(/^[A-Za-z0-9._-]*$/, { error: 'may hold only letters, digits, ".", "_" and "-"' })
        .optional()
        .describe(
          'SIP username, 3–64 letters, digits, ".", "_", "-"; unique in the account. Defaults to metadata.name.',
        ),
      password: secret.describe(
        'SIP password (write-only): 8–128 characters with an upper-case letter, a lower-case letter and a digit (production asks for 12+).',
      ),
    })
    .describe('SipCredential spec.'),
);

/**
 * A SIP credential (SipAuth) for digest authentication of calls to an application.
 * The username cannot change once created.
 */
export const sipCredential = {
  name: 'SipCredential',
  description: 'SIP credential (username and password) used to authenticate calls to an application.',
  get spec() {
    return sipCredentialSpec();
  },
  nameField: 'username',
  references: {},
  secrets: { password: { check: checkSipAuthPassword } },
  setFields: {},
  uniqueFields: ['username'],
  rules: [],
  checks: [],
  live: sipCredentialLive,
  // A new password or username makes the copy the caller stored fail.
  traffic: { admits: { credential: ['username'] } },
  snapshot: {
    collection: 'sip_credentials',
    path: collection,
    itemsKey: 'objects',
    idField: 'credential_uuid',
    seed: 'existing',
    fields: textFields(['credential_uuid', 'username', 'realm', 'created_at']),
  },
  scope: { code: 'sc', preset: 'voice' },
} as const satisfies Kind;
