import { z } from 'zod';
import { reference, uuid } from './fields.js';
import type { Kind } from './kind.js';

/**
 * The SIP authentication of an application (api-facts.md section 4): `sip_auth_type` with the
 * IP ACL and/or SIP credential it uses. Applications themselves are not managed; `app_id` names
 * an existing one. Deleting this resource unassigns (sets `sip_auth_type` to "").
 */
export const applicationSipAuth = {
  name: 'ApplicationSipAuth',
  description: "SIP authentication of an existing application: which SipIpAcl and/or SipCredential inbound calls must pass.",
  spec: z
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
} as const satisfies Kind;
