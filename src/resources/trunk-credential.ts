import { z } from 'zod';
import { friendlyName, secret } from './fields.js';
import type { Kind } from './kind.js';
import { checkTrunkPassword } from './passwords.js';

/** Credentials (username and password) that authenticate a PBX on an outbound trunk (api.md "Trunk credentials"). */
export const trunkCredential = {
  name: 'TrunkCredential',
  description: 'Trunk credentials: username and password authenticating your PBX on an outbound SIP trunk.',
  spec: z
    .strictObject({
      name: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
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
  uniqueFields: ['name', 'username'],
  rules: [],
  checks: [],
} as const satisfies Kind;
