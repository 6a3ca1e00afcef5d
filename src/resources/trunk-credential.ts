import { z } from 'zod';
import { optionalFriendlyName, secret } from './fields.js';
import type { Kind } from './kind.js';
import { createOnce, deleteAt, findCreated, itemPath, listRecords, pick, present, readRecord, text, updateBody, type ApiRecord } from './live-helpers.js';
import type { LiveObject, LiveSide } from './live-side.js';
import { checkTrunkPassword } from './passwords.js';

const collection = '/Zentrunk/Credential/';
const updatable = ['name', 'username', 'password'];

/** A trunk credential as the manifest spells it; the password is write-only (api.md "Trunk credentials"). */
export function normaliseTrunkCredential(raw: ApiRecord): LiveObject {
  return { id: String(raw['credential_uuid']), spec: present({ name: text(raw['name']), username: text(raw['username']) }) };
}

const naturalKey = (spec: Record<string, unknown>): string | undefined => text(spec['name']);

/**
 * The live side: every field is updatable in place (api.md: update takes `name`, `username`,
 * `password`), so nothing forces a replace; deleting one a trunk uses is allowed and breaks its auth.
 */
export const trunkCredentialLive: LiveSide = {
  naturalKey,
  list: async (context) => (await listRecords(context, collection, 'credential_uuid')).map(normaliseTrunkCredential),
  read: async (context, id) => {
    const raw = await readRecord(context, itemPath(collection, id));
    return raw && normaliseTrunkCredential(raw);
  },
  create: (context, spec) =>
    createOnce(context, collection, pick(spec, ['name', 'username', 'password']), 'credential_uuid', async () =>
      findCreated(await trunkCredentialLive.list(context), naturalKey, spec, ['username'], 'TrunkCredential'),
    ),
  update: async (context, request) => {
    const body = updateBody(request, updatable);
    if (Object.keys(body).length === 0) return;
    await context.client.request('POST', itemPath(collection, request.id), { body, mode: 'idempotent' });
  },
  delete: (context, id) => deleteAt(context, itemPath(collection, id)),
  fields: { updatable, replaceOn: [], immutable: [], unreadable: [] },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'breaks_auth',
};

/** Credentials (username and password) that authenticate a PBX on an outbound trunk (api.md "Trunk credentials"). */
export const trunkCredential = {
  name: 'TrunkCredential',
  description: 'Trunk credentials: username and password authenticating your PBX on an outbound SIP trunk.',
  spec: z
    .strictObject({
      name: optionalFriendlyName('Friendly name. Defaults to metadata.name.').optional(),
      username: z
        .string()
        .min(5)
        .max(20)
        .regex(/^[A-Za-z0-9]*$/, { error: 'may hold only letters and digits' })
        .describe('SIP username, 5–20 letters and digits.'),
      password: secret.describe('Password (write-only): 5–20 letters, digits and ~!@#$%^&*()_+, with at least one of those special characters.'),
    })
    .describe('TrunkCredential spec.'),
  nameField: 'name',
  references: {},
  secrets: { password: { check: checkTrunkPassword } },
  setFields: {},
  uniqueFields: ['username'],
  rules: [],
  checks: [],
  live: trunkCredentialLive,
} as const satisfies Kind;
