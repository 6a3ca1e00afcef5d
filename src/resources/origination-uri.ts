import * as z from 'zod';
import { maxTextLength, optionalFriendlyName, secret } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { flag, present, text, type ApiRecord } from './api-records.js';
import { collectionLive } from './collection-crud.js';
import type { LiveObject, LiveSide } from './live-side.js';
import { checkAnyPassword } from './passwords.js';

const collection = '/Zentrunk/URI/';
const updatable = ['name', 'uri', 'authentication_needed', 'username', 'password'];

/**
 * A URI as the manifest spells it. The username means something only with authentication (the
 * API returns it as null otherwise); the password is never returned.
 */
export function normaliseOriginationUri(raw: ApiRecord): LiveObject {
  const given = raw['authentication_needed'];
  // A read that leaves `authentication_needed` out leaves it unknown, never the schema's default (false);
  // the username then shows only when the read gives one.
  const authentication = given === undefined || given === null ? undefined : flag(given, false);
  const username = authentication === false ? undefined : text(raw['username']);
  const unread = [
    ...(authentication === undefined ? ['authentication_needed'] : []),
    ...(authentication === undefined && username === undefined ? ['username'] : []),
  ];
  return {
    id: String(raw['uri_uuid']),
    spec: present({ name: text(raw['name']), uri: text(raw['uri']), authentication_needed: authentication, username }),
    ...(unread.length > 0 ? { unread } : {}),
  };
}

/**
 * The live side: every field is updatable; deleting a URI a trunk uses is
 * allowed and breaks that trunk's calls.
 */
export const originationUriLive: LiveSide = {
  product: 'SIP trunking',
  ...collectionLive({
    kind: 'OriginationUri',
    collection,
    idField: 'uri_uuid',
    createdUnder: ['uri', 'object'],
    normalise: normaliseOriginationUri,
    createFields: ['name', 'uri', 'authentication_needed', 'username', 'password'],
    matchFields: ['uri', 'authentication_needed', 'username'],
    updatable,
    completeUpdate: (body, request) => {
      // Turning authentication on needs the password as well (422 otherwise),
      // even when it is the one telform set before it was turned off.
      const turningOn =
        request.desired['authentication_needed'] === true && request.live.spec['authentication_needed'] !== true;
      const password = request.desired['password'];
      if (turningOn && body['password'] === undefined && typeof password === 'string' && password !== '')
        body['password'] = password;
    },
  }),
  fields: {
    updatable,
    replaceOn: [],
    immutable: [],
    unreadable: [],
    mayBeUnread: ['authentication_needed', 'username'],
  },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'breaks_calls',
};

const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * The documented forms: `host`, `host:port`, `sip:user@host`, `sips:host`,
 * `[ipv6]:port`, then optional `;param=value` parameters such as `;transport=tls`.
 */
const uriPattern = new RegExp(
  `^(?:sips?:)?(?:[A-Za-z0-9+._~!$&'()*,=-]+@)?(?:${label}(?:\\.${label})*|\\[[0-9A-Fa-f:.]+\\])(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?(?:;[A-Za-z0-9_.-]+(?:=[A-Za-z0-9_.-]+)?)*$`,
);

const originationUriSpec = builtOnce(() =>
  z
    .strictObject({
      name: optionalFriendlyName('Friendly name. Defaults to metadata.name.').optional(),
      uri: z
        .string()
        .max(255)
        .regex(uriPattern, {
          error:
            'must be a host name or IP address with optional sip:/sips: scheme, user@, :port (1–65535) and ;parameters',
        })
        .describe(
          'FQDN or IP of your PBX: host, host:port, sip:user@host, sips:host, [ipv6]:port, optionally ;transport=udp|tcp|tls.',
        ),
      authentication_needed: z
        .boolean()
        .default(false)
        .describe('Whether calls to the URI authenticate with username and password.'),
      username: z
        .string()
        .min(1, { error: 'must not be empty' })
        .max(maxTextLength)
        .optional()
        .describe('Username; only with authentication_needed: true.'),
      password: secret.optional().describe('Password (write-only); only with authentication_needed: true.'),
    })
    .describe('OriginationUri spec.'),
);

/**
 * An origination URI: where an inbound trunk sends calls. Username and password go with
 * `authentication_needed: true` only.
 */
export const originationUri = {
  name: 'OriginationUri',
  description: 'Origination URI: the address of your PBX that an inbound SIP trunk sends calls to.',
  get spec() {
    return originationUriSpec();
  },
  nameField: 'name',
  references: {},
  secrets: { password: { check: checkAnyPassword } },
  setFields: {},
  uniqueFields: [],
  rules: [
    {
      when: { field: 'authentication_needed', in: [true] },
      require: ['username', 'password'],
      reason: 'authentication_needed is true',
    },
    {
      when: { field: 'authentication_needed', in: [false] },
      forbid: ['username', 'password'],
      reason: 'it is used only when authentication_needed is true',
    },
  ],
  checks: [
    (spec, report) => {
      const host = /^(?:sips?:)?(?:[^@]+@)?([0-9.]+)(?::|;|$)/.exec(spec['uri'] as string)?.[1];
      // A host of digits and dots only is an IPv4 address, and must be a valid one.
      if (
        host !== undefined &&
        !/^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/.test(
          host,
        )
      ) {
        report(['uri'], { severity: 'error', message: `${host} is not a valid IPv4 address` });
      }
    },
  ],
  live: originationUriLive,
  snapshot: {
    collection: 'origination_uris',
    path: collection,
    itemsKey: 'objects',
    idField: 'uri_uuid',
    seed: 'existing',
    fields: textFields(['uri_uuid', 'name', 'uri', 'username', 'created_at'], { authentication_needed: 'flag' }),
  },
  scope: { code: 'ou', preset: 'voice' },
} as const satisfies Kind;
