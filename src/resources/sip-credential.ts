import { z } from 'zod';
import { secret } from './fields.js';
import type { Kind } from './kind.js';
import { checkSipAuthPassword } from './passwords.js';

/**
 * A SIP credential (SipAuth) for digest authentication of calls to an application
 * (api.md "SIP credentials"). The username cannot change once created.
 */
export const sipCredential = {
  name: 'SipCredential',
  description: 'SIP credential (username and password) used to authenticate calls to an application.',
  spec: z
    .strictObject({
      username: z
        .string()
        .min(3)
        .max(64)
        // api.md "SIP credentials" rule 1.
        .regex(/^[A-Za-z0-9._-]*$/, { error: 'may hold only letters, digits, ".", "_" and "-"' })
        .optional()
        .describe('SIP username, 3–64 letters, digits, ".", "_", "-"; unique in the account. Defaults to metadata.name.'),
      password: secret.describe(
        'SIP password (write-only): 8–128 characters with an upper-case letter, a lower-case letter and a digit (production asks for 12+).',
      ),
    })
    .describe('SipCredential spec.'),
  nameField: 'username',
  references: {},
  secrets: { password: { check: checkSipAuthPassword } },
  setFields: {},
  uniqueFields: ['username'],
  rules: [],
  checks: [],
} as const satisfies Kind;
