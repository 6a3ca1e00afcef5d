import * as z from 'zod';
import { optionalFriendlyName, reference, uuid } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { flag, itemPath, listRecords, lowerText, present, readRecord, text, type ApiRecord } from './api-records.js';
import { collectionLive } from './collection-crud.js';
import { numbersIfReadable } from './tendlc-api.js';
import type { LiveContext, LiveObject, LiveSide } from './live-side.js';

const collection = '/Zentrunk/Trunk/';
const createFields = [
  'name',
  'trunk_direction',
  'trunk_status',
  'secure',
  'ipacl_uuid',
  'credential_uuid',
  'primary_uri_uuid',
  'fallback_uri_uuid',
];
/** A trunk update accepts every create parameter. */
const updatable = createFields;
/** Fields the schema gives a default: a read that leaves one out leaves it unknown. */
const defaultedFields = ['trunk_status', 'secure'];
const directionFields: Record<string, readonly string[]> = {
  outbound: ['ipacl_uuid', 'credential_uuid'],
  inbound: ['primary_uri_uuid', 'fallback_uri_uuid'],
};

/**
 * A trunk as the manifest spells it: enum values lower-cased, defaults filled, and only the
 * references of its direction (the others are null on the API). `numbers` is how
 * many phone numbers are attached to it.
 */
export function normaliseTrunk(raw: ApiRecord, numbers: number | undefined): LiveObject {
  const direction = lowerText(raw['trunk_direction']);
  const spec: Record<string, unknown> = {
    name: text(raw['name']),
    trunk_direction: direction,
    trunk_status: lowerText(raw['trunk_status']),
    secure:
      typeof raw['secure'] === 'boolean' || raw['secure'] === 'true' || raw['secure'] === 'false'
        ? flag(raw['secure'], false)
        : undefined,
  };
  for (const field of directionFields[direction ?? ''] ?? []) spec[field] = text(raw[field]);
  // A field the schema defaults (status, secure) that the read left out is unknown, never the default.
  const unread = defaultedFields.filter((field) => spec[field] === undefined);
  const createdAt = text(raw['created_at']);
  return {
    id: String(raw['trunk_id']),
    spec: present(spec),
    ...(unread.length > 0 ? { unread } : {}),
    facts: numbers === undefined ? {} : { numbers },
    ...(createdAt ? { createdAt } : {}),
  };
}

/** Production nests a trunk GET under `object`, the docs show it flat: both are read. */
function unwrapTrunk(body: ApiRecord): ApiRecord {
  const inner = body['object'];
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as ApiRecord) : body;
}

/**
 * Phone numbers per trunk id. A number on a trunk shows it in `application` as the trunk's resource
 * path, `/v1/Account/{id}/Zentrunk/Trunk/{trunk_id}/`; both trunking
 * spellings are recognised.
 */
async function numbersByTrunk(context: LiveContext): Promise<Map<string, number> | undefined> {
  const numbers = await numbersIfReadable(context);
  if (numbers === undefined) return undefined;
  const counts = new Map<string, number>();
  for (const number of numbers) {
    const match = /\/(?:Zentrunk|Trunking)\/Trunk\/([^/]+)\/?$/.exec(text(number['application']) ?? '');
    if (match) counts.set(match[1] as string, (counts.get(match[1] as string) ?? 0) + 1);
  }
  return counts;
}

const rows = collectionLive({
  kind: 'Trunk',
  collection,
  idField: 'trunk_id',
  // Production nests a trunk GET under `object`; a create answer may nest it likewise, or under `trunk`.
  createdUnder: ['trunk', 'object'],
  normalise: (raw) => normaliseTrunk(unwrapTrunk(raw), 0),
  createFields,
  matchFields: createFields,
  updatable,
});

/**
 * The live side: every field is updatable in place; an update
 * sends only what changed, and `""` for a reference the manifest dropped (the API clears it; absent
 * would keep it). Reads count the numbers attached, which hold back a turn to outbound.
 */
export const trunkLive: LiveSide = {
  product: 'SIP trunking',
  ...rows,
  list: async (context) => {
    const [trunks, numbers] = await Promise.all([
      listRecords(context.client, collection, 'trunk_id'),
      numbersByTrunk(context),
    ]);
    return trunks.map((raw) => normaliseTrunk(raw, numbers && (numbers.get(String(raw['trunk_id'])) ?? 0)));
  },
  read: async (context, id) => {
    const body = await readRecord(context.client, itemPath(collection, id));
    if (!body) return undefined;
    const numbers = await numbersByTrunk(context);
    return normaliseTrunk(unwrapTrunk(body), numbers && (numbers.get(id) ?? 0));
  },
  fields: { updatable, replaceOn: [], immutable: [], unreadable: [], mayBeUnread: defaultedFields },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  // Phone numbers refer to an inbound trunk (PhoneNumber.app_id): deleting it while they do breaks their calls.
  whenInUse: 'breaks_calls',

  updateRefusal(live, desired) {
    if (live.spec['trunk_direction'] !== 'inbound' || desired?.['trunk_direction'] !== 'outbound') return undefined;
    const numbers = live.facts?.numbers;
    // The numbers could not be read (403): the worst is assumed, as the blast radius does.
    if (numbers === undefined)
      return 'the phone numbers attached to it could not be read, and only inbound trunks can carry numbers; turn it outbound once they can be read';
    if (numbers === 0) return undefined;
    // Only inbound trunks can be attached to numbers (the API's trunk rules); the API would keep the numbers on a trunk that no longer answers them.
    return `${numbers} phone number(s) are attached to it and only inbound trunks can carry numbers; detach or re-point them before turning it outbound`;
  },
};

const trunkSpec = builtOnce(() =>
  z
    .strictObject({
      name: optionalFriendlyName('Friendly name. Defaults to metadata.name.').optional(),
      trunk_direction: z
        .enum(['inbound', 'outbound'])
        .describe('inbound: calls to your PBX; outbound: calls from your PBX.'),
      trunk_status: z.enum(['enabled', 'disabled']).default('enabled').describe('Whether the trunk carries calls.'),
      secure: z.boolean().default(false).describe('SRTP media and TLS signalling.'),
      ipacl_uuid: reference(uuid, 'TrunkIpAcl', 'a trunk IP ACL uuid').optional(),
      credential_uuid: reference(uuid, 'TrunkCredential', 'a trunk credential uuid').optional(),
      primary_uri_uuid: reference(uuid, 'OriginationUri', 'an origination URI uuid').optional(),
      fallback_uri_uuid: reference(uuid, 'OriginationUri', 'an origination URI uuid').optional(),
    })
    .describe('Trunk spec.'),
);

/**
 * A SIP trunk. Outbound trunks carry calls from your PBX and authenticate it by
 * IP ACL, credentials or both (rule 1); inbound trunks send calls to origination URIs and need a
 * primary one (rule 2). Fields of the other direction are null on the API, so they are refused here.
 */
export const trunk = {
  name: 'Trunk',
  description:
    'SIP trunk: outbound (your PBX to the network, authenticated by IP ACL and/or credentials) or inbound (to your origination URIs).',
  get spec() {
    return trunkSpec();
  },
  nameField: 'name',
  references: {
    ipacl_uuid: 'TrunkIpAcl',
    credential_uuid: 'TrunkCredential',
    primary_uri_uuid: 'OriginationUri',
    fallback_uri_uuid: 'OriginationUri',
  },
  secrets: {},
  setFields: {},
  uniqueFields: [],
  rules: [
    {
      when: { field: 'trunk_direction', in: ['outbound'] },
      requireOneOf: ['ipacl_uuid', 'credential_uuid'],
      reason: 'an outbound trunk authenticates your PBX by IP ACL, credentials or both',
    },
    {
      when: { field: 'trunk_direction', in: ['outbound'] },
      forbid: ['primary_uri_uuid', 'fallback_uri_uuid'],
      reason: 'origination URIs belong to inbound trunks',
    },
    {
      when: { field: 'trunk_direction', in: ['inbound'] },
      require: ['primary_uri_uuid'],
      reason: 'an inbound trunk sends calls to its primary origination URI',
    },
    {
      when: { field: 'trunk_direction', in: ['inbound'] },
      forbid: ['ipacl_uuid', 'credential_uuid'],
      reason: 'IP ACLs and credentials authenticate outbound trunks',
    },
  ],
  checks: [
    (spec, report) => {
      const primary = spec['primary_uri_uuid'];
      const fallback = spec['fallback_uri_uuid'];
      if (primary !== undefined && JSON.stringify(primary) === JSON.stringify(fallback)) {
        report(['fallback_uri_uuid'], {
          severity: 'warning',
          message: 'is the same as primary_uri_uuid, so it provides no fallback',
        });
      }
    },
  ],
  live: trunkLive,
  traffic: {
    // An inbound, enabled trunk answers its numbers' calls through either of its origination URIs.
    answers: {
      when: (spec) => spec['trunk_direction'] !== 'outbound' && spec['trunk_status'] !== 'disabled',
      through: ['primary_uri_uuid', 'fallback_uri_uuid'],
    },
    // An outbound trunk lets your PBX in by its IP ACL, its credential or both.
    authenticates: {
      by: ['ipacl_uuid', 'credential_uuid'],
      when: (spec) => spec['trunk_direction'] === 'outbound',
      counted: { in: 'trunks' },
      removalBreaks: false,
    },
  },
  snapshot: {
    collection: 'trunks',
    path: collection,
    itemsKey: 'objects',
    idField: 'trunk_id',
    seed: 'existing',
    fields: textFields(
      [
        'trunk_id',
        'name',
        'trunk_status',
        'trunk_direction',
        'ipacl_uuid',
        'credential_uuid',
        'primary_uri_uuid',
        'fallback_uri_uuid',
        'trunk_domain',
        'created_at',
        'updated_at',
      ],
      { secure: 'flag' },
    ),
  },
  scope: { code: 'tr', preset: 'voice' },
} as const satisfies Kind;
