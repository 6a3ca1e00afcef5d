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
export function profileSpec(
  company: string,
  ein: string,
  changes: Record<string, unknown> = {},
): Record<string, unknown> {
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

/**
 * A Fabrikam Tea brand on a seeded profile and an order-notification campaign under it, as one
 * manifest. Its samples and replies name the brand, as 10DLC lint asks; `sample2` and the alias vary.
 */
export function teaBrandAndCampaign(
  names: { brand: string; campaign: string },
  alias: string,
  sample2: string,
): string {
  return `apiVersion: telform/v1
kind: Brand
metadata:
  name: ${names.brand}
spec:
  profile_uuid: 5eed0000-0000-4000-8000-000000000004
  brand_alias: Fabrikam Tea
---
apiVersion: telform/v1
kind: Campaign
metadata:
  name: ${names.campaign}
spec:
  brand_id: { ref: ${names.brand} }
  campaign_alias: ${alias}
  vertical: RETAIL
  usecase: ACCOUNT_NOTIFICATION
  description: Order notifications for the customers of the Fabrikam Tea online shop.
  sample1: "Fabrikam Tea: your order 881 has shipped. Reply STOP to opt out."
  sample2: "${sample2}"
  message_flow: Customers tick an SMS updates box on the checkout form and confirm by replying YES.
  help_message: "Fabrikam Tea: help at fabrikam.example.com or 1-800-555-0188."
  optout_message: "Fabrikam Tea: you are unsubscribed and will receive no more messages."
  subscriber_optin: true
  subscriber_optout: true
  subscriber_help: true
  direct_lending: false
  embedded_link: false
  embedded_phone: false
  age_gated: false
  affiliate_marketing: false
`;
}
