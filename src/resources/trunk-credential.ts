import * as z from 'zod';
import { optionalFriendlyName, secret } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { present, text, type ApiRecord } from './api-records.js';
import { collectionLive } from './collection-crud.js';
import type { LiveObject, LiveSide } from './live-side.js';
import { checkTrunkPassword } from './passwords.js';

const collection = '/Zentrunk/Credential/';
const updatable = ['name', 'username', 'password'];

/** A trunk credential as the manifest spells it; the password is write-only. */
export function normaliseTrunkCredential(raw: ApiRecord): LiveObject {
  return {
    id: String(raw['credential_uuid']),
    spec: present({ name: text(raw['name']), username: text(raw['username']) }),
  };
}

/**
 * The live side: every field is updatable in place (the API's update takes `name`, `username`,
 * `password`), so nothing forces a replace; deleting one a trunk uses is allowed and breaks its auth.
 */
export const trunkCredentialLive: LiveSide = {
  product: 'SIP trunking',
  ...collectionLive({
    kind: 'TrunkCredential',
    collection,
    idField: 'credential_uuid',
    createdUnder: ['credential', 'object'],
    normalise: normaliseTrunkCredential,
    createFields: ['name', 'username', 'password'],
    matchFields: ['username'],
    updatable,
  }),
  fields: { updatable, replaceOn: [], immutable: [], unreadable: [] },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'breaks_auth',
};

const trunkCredentialSpec = builtOnce(() =>
  z
    .strictObject({
      name: optionalFriendlyName('Friendly name. Defaults to metadata.name.').optional(),
      username: z
        .string()
        .min(5)
        .max(20)
        .regex(/^[A-Za-z0-9]*$/, { error: 'may hold only letters and digits' })
        .describe('SIP username, 5–20 letters and digits.'),
      password: secret.describe(
        'Password (write-only): 5–20 letters, digits and ~!@#$%^&*()_+, with at least one of those special characters.',
      ),
    })
    .describe('TrunkCredential spec.'),
);

/** Credentials (username and password) that authenticate a PBX on an outbound trunk. */
export const trunkCredential = {
  name: 'TrunkCredential',
  description: 'Trunk credentials: username and password authenticating your PBX on an outbound SIP trunk.',
  get spec() {
    return trunkCredentialSpec();
  },
  nameField: 'name',
  references: {},
  secrets: { password: { check: checkTrunkPassword } },
  setFields: {},
  uniqueFields: ['username'],
  rules: [],
  checks: [],
  live: trunkCredentialLive,
  // A new password or username makes the copy the caller stored fail.
  traffic: { admits: { credential: ['username'] } },
  snapshot: {
    collection: 'trunk_credentials',
    path: collection,
    itemsKey: 'objects',
    idField: 'credential_uuid',
    seed: 'existing',
    fields: textFields(['credential_uuid', 'name', 'username', 'created_at']),
  },
  scope: { code: 'tc', preset: 'voice' },
} as const satisfies Kind;
