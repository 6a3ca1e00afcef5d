import { z } from 'zod';
import { friendlyName, reference, uuid } from './fields.js';
import type { Kind } from './kind.js';

/**
 * A SIP trunk (api.md "Trunks"). Outbound trunks carry calls from your PBX and authenticate it by
 * IP ACL, credentials or both (rule 1); inbound trunks send calls to origination URIs and need a
 * primary one (rule 2). Fields of the other direction are null on the API, so they are refused here.
 */
export const trunk = {
  name: 'Trunk',
  description: 'SIP trunk: outbound (your PBX to the network, authenticated by IP ACL and/or credentials) or inbound (to your origination URIs).',
  spec: z
    .strictObject({
      name: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
      trunk_direction: z.enum(['inbound', 'outbound']).describe('inbound: calls to your PBX; outbound: calls from your PBX.'),
      trunk_status: z.enum(['enabled', 'disabled']).default('enabled').describe('Whether the trunk carries calls.'),
      secure: z.boolean().default(false).describe('SRTP media and TLS signalling.'),
      ipacl_uuid: reference(uuid, 'TrunkIpAcl', 'a trunk IP ACL uuid').optional(),
      credential_uuid: reference(uuid, 'TrunkCredential', 'a trunk credential uuid').optional(),
      primary_uri_uuid: reference(uuid, 'OriginationUri', 'an origination URI uuid').optional(),
      fallback_uri_uuid: reference(uuid, 'OriginationUri', 'an origination URI uuid').optional(),
    })
    .describe('Trunk spec.'),
  nameField: 'name',
  references: {
    ipacl_uuid: 'TrunkIpAcl',
    credential_uuid: 'TrunkCredential',
    primary_uri_uuid: 'OriginationUri',
    fallback_uri_uuid: 'OriginationUri',
  },
  secrets: {},
  setFields: {},
  uniqueFields: ['name'],
  rules: [
    {
      when: { field: 'trunk_direction', in: ['outbound'] },
      requireOneOf: ['ipacl_uuid', 'credential_uuid'],
      reason: 'an outbound trunk authenticates your PBX by IP ACL, credentials or both (api.md "Trunks" rule 1)',
    },
    {
      when: { field: 'trunk_direction', in: ['outbound'] },
      forbid: ['primary_uri_uuid', 'fallback_uri_uuid'],
      reason: 'origination URIs belong to inbound trunks',
    },
    {
      when: { field: 'trunk_direction', in: ['inbound'] },
      require: ['primary_uri_uuid'],
      reason: 'an inbound trunk sends calls to its primary origination URI (api.md "Trunks" rule 2)',
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
        report(['fallback_uri_uuid'], { severity: 'warning', message: 'is the same as primary_uri_uuid, so it provides no fallback' });
      }
    },
  ],
} as const satisfies Kind;
