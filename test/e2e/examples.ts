import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repository } from './cli.js';

export const examplesDir = path.join(repository, 'examples');

/** The demo secrets of `examples/demo-secrets.env` as environment variables. */
export function demoSecrets(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path.join(examplesDir, 'demo-secrets.env'), 'utf8').split('\n')) {
    const match = /^([A-Z0-9_]+)='(.*)'$/.exec(line.trim());
    if (match) env[match[1] as string] = match[2] as string;
  }
  return env;
}

/** The attribute booleans every campaign register carries (all required; subscriber_* only true). */
export const campaignAttributes = {
  subscriber_optin: true,
  subscriber_optout: true,
  subscriber_help: true,
  direct_lending: false,
  embedded_link: false,
  embedded_phone: false,
  age_gated: false,
  affiliate_marketing: false,
} as const;

/** A 10DLC profile's spec with an EIN (so a STANDARD brand can be registered from it), with `changes` over it. */
export function profileSpec(company: string, ein: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customer_type: 'DIRECT',
    entity_type: 'PRIVATE',
    company_name: company,
    vertical: 'RETAIL',
    ein,
    address: { street: '1 Main St', city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' },
    authorized_contact: { first_name: 'Ann', last_name: 'Lee', email: 'ann@shop.example.com', phone: '+12025550177' },
    ...changes,
  };
}
