import { z } from 'zod';
import { callbackMethod, friendlyName, httpUrl, uuid } from './fields.js';
import type { Kind } from './kind.js';

/**
 * A 10DLC brand registered from an existing profile (api.md "Brands"). Brands cannot be updated
 * and a profile makes one brand only, so `profile_uuid` is unique among brands.
 */
export const brand = {
  name: 'Brand',
  description: 'US 10DLC brand: the business behind your messaging, registered from an existing profile.',
  spec: z
    .strictObject({
      profile_uuid: uuid.describe('The profile the brand is registered from; a profile makes one brand only.'),
      brand_alias: friendlyName('Friendly name. Defaults to metadata.name.').optional(),
      // api.md: STANDARD is the only value (api-facts.md's STARTER is overruled by api.md).
      brand_type: z.enum(['STANDARD']).default('STANDARD').describe('STANDARD (needs a profile with an EIN).'),
      secondary_vetting: z.boolean().default(true).describe('Ask for secondary vetting (standard registration).'),
      url: httpUrl.optional().describe('Callback URL for registration status updates.'),
      method: callbackMethod,
    })
    .describe('Brand spec.'),
  nameField: 'brand_alias',
  references: {},
  secrets: {},
  setFields: {},
  uniqueFields: ['brand_alias', 'profile_uuid'],
  rules: [],
  checks: [],
} as const satisfies Kind;
