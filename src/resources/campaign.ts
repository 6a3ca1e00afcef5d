import * as z from 'zod';
import { campaignLive } from './campaign-live.js';
import { callbackMethod, friendlyName, httpUrl, maxTextLength, reference } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { textFields } from './snapshot-record.js';
import { campaignPath } from './tendlc-api.js';

/** The register parameters of a campaign. */
export const verticals = [
  'PROFESSIONAL',
  'REAL_ESTATE',
  'HEALTHCARE',
  'HUMAN_RESOURCES',
  'ENERGY',
  'ENTERTAINMENT',
  'RETAIL',
  'TRANSPORTATION',
  'AGRICULTURE',
  'INSURANCE',
  'POSTAL',
  'EDUCATION',
  'HOSPITALITY',
  'FINANCIAL',
  'POLITICAL',
  'GAMBLING',
  'LEGAL',
  'CONSTRUCTION',
  'NGO',
  'MANUFACTURING',
  'GOVERNMENT',
  'TECHNOLOGY',
  'COMMUNICATION',
] as const;

/** The 12 use-case codes the API documents. */
export const usecases = [
  '2FA',
  'ACCOUNT_NOTIFICATION',
  'CUSTOMER_CARE',
  'DELIVERY_NOTIFICATION',
  'FRAUD_ALERT',
  'HIGHER_EDUCATION',
  'LOW_VOLUME',
  'MARKETING',
  'MIXED',
  'POLLING_VOTING',
  'PUBLIC_SERVICE_ANNOUNCEMENT',
  'SECURITY_ALERT',
] as const;

/** Use cases a campaign's `sub_usecases` may list: all but MIXED and LOW_VOLUME themselves. */
export const subUsecases = usecases.filter((code) => code !== 'MIXED' && code !== 'LOW_VOLUME');

/** Use cases that take `sub_usecases` (required for them, 2 to 5 items). */
const withSubUsecases = ['MIXED', 'LOW_VOLUME'];

/**
 * A text of `min` to `max` characters. The API documents the minimums; the maximums are the 10DLC
 * registry's own (description 4,096, samples 1,024, message flow 2,048, the replies 255), which the
 * API passes on: a longer text is declined at registration, after the review is billed.
 */
function text(min: number, max: number, description: string): z.ZodString {
  return z.string().min(min).max(max).describe(description);
}

/** Comma-separated keywords, no special characters or spaces; help keywords in capitals. */
function keywords(pattern: RegExp, rule: string, description: string): z.ZodString {
  return z.string().max(maxTextLength).regex(pattern, { error: rule }).describe(description);
}

/** Fields of a registered campaign that an imported one does not take (the registry holds them). */
const registerOnly = [
  'brand_id',
  'vertical',
  'description',
  'usecase',
  'sub_usecases',
  'sample1',
  'sample2',
  'sample3',
  'sample4',
  'sample5',
  'subscriber_optin',
  'subscriber_optout',
  'subscriber_help',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'age_gated',
  'affiliate_marketing',
  'message_flow',
  'help_message',
  'optout_message',
  'optin_message',
  'optin_keywords',
  'optout_keywords',
  'help_keywords',
  'terms_and_conditions_link',
  'privacy_policy_link',
];

/** Required to register (the API documents each as required). */
const registerRequired = [
  'brand_id',
  'vertical',
  'description',
  'usecase',
  'sample1',
  'sample2',
  'subscriber_optin',
  'subscriber_optout',
  'subscriber_help',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'age_gated',
  'affiliate_marketing',
  'message_flow',
  'help_message',
  'optout_message',
];

const attribute = (description: string) => z.boolean().optional().describe(description);
const onlyTrue = (description: string) =>
  z
    .literal(true, { error: 'must be true (the API accepts only true)' })
    .optional()
    .describe(`${description} Only true is accepted.`);

const campaignSpec = builtOnce(() =>
  z
    .strictObject({
      campaign_alias: friendlyName('Friendly name shown in the console. Defaults to metadata.name.').optional(),
      import: z
        .strictObject({
          campaign_id: z
            .string()
            // The registry's ids: C and 6 capitals or digits.
            .regex(/^C[A-Z0-9]{6}$/, {
              error: 'must be a registry campaign id: C and 6 capital letters or digits, such as CAOHTU5',
            })
            .describe('Id of a campaign shared with the service from the registry.'),
        })
        .optional()
        .describe('Import an existing registry campaign instead of registering one (private beta).'),
      brand_id: reference(
        // The registry's ids: B and 6 capitals or digits.
        z
          .string()
          .regex(/^B[A-Z0-9]{6}$/, { error: 'must be a brand id: B and 6 capital letters or digits, such as BB9TT3V' }),
        'Brand',
        'a brand id',
      ).optional(),
      vertical: z.enum(verticals).optional().describe('Industry of the campaign.'),
      description: text(40, 4096, 'Purpose of the campaign, 40 to 4,096 characters.').optional(),
      usecase: z.enum(usecases).optional().describe('Use case; MIXED and LOW_VOLUME need sub_usecases.'),
      sub_usecases: z
        .array(z.enum(subUsecases))
        .min(2)
        .max(5)
        .optional()
        .describe('2–5 use cases, only with usecase MIXED or LOW_VOLUME; a set.'),
      sample1: text(20, 1024, 'Sample message, 20 to 1,024 characters.').optional(),
      sample2: text(20, 1024, 'Sample message, 20 to 1,024 characters.').optional(),
      sample3: text(20, 1024, 'Sample message, 20 to 1,024 characters.').optional(),
      sample4: text(20, 1024, 'Sample message, 20 to 1,024 characters.').optional(),
      sample5: text(20, 1024, 'Sample message, 20 to 1,024 characters.').optional(),
      subscriber_optin: onlyTrue('Subscribers opt in.'),
      subscriber_optout: onlyTrue('Subscribers can opt out.'),
      subscriber_help: onlyTrue('Subscribers can ask for help.'),
      direct_lending: attribute('The campaign offers direct lending.'),
      embedded_link: attribute('Messages embed links.'),
      embedded_phone: attribute('Messages embed phone numbers.'),
      age_gated: attribute('Content is age-gated.'),
      affiliate_marketing: attribute('Affiliate marketing.'),
      // The API documents these minimums only through its sample texts; they are enforced as stated.
      message_flow: text(40, 2048, 'How a customer opts in and consents, 40 to 2,048 characters.').optional(),
      help_message: text(20, 255, 'Reply to the help keyword, 20 to 255 characters.').optional(),
      optout_message: text(20, 255, 'Reply to the stop keyword, 20 to 255 characters.').optional(),
      optin_message: text(20, 255, 'Message confirming opt-in, 20 to 255 characters.').optional(),
      optin_keywords: keywords(
        /^[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*$/,
        'must be comma-separated keywords of letters and digits, without spaces, such as START,YES',
        'Comma-separated opt-in keywords, no spaces or special characters.',
      ).optional(),
      optout_keywords: keywords(
        /^[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*$/,
        'must be comma-separated keywords of letters and digits, without spaces, such as STOP,QUIT',
        'Comma-separated opt-out keywords, no spaces or special characters.',
      ).optional(),
      help_keywords: keywords(
        /^[A-Z0-9]+(?:,[A-Z0-9]+)*$/,
        'must be comma-separated keywords of capital letters and digits, without spaces, such as HELP,INFO',
        'Comma-separated help keywords in capitals, no spaces or special characters.',
      ).optional(),
      terms_and_conditions_link: httpUrl.optional().describe('Public URL of the terms and conditions.'),
      privacy_policy_link: httpUrl.optional().describe('Public URL of the privacy policy.'),
      url: httpUrl.optional().describe('Callback URL for registration status updates.'),
      method: callbackMethod,
    })
    .describe('Campaign spec: register fields, or import with campaign_alias, url and method.'),
);

/**
 * A 10DLC campaign under a brand: registered from the fields below, or
 * imported from the registry with `import: { campaign_id }` (then only `campaign_alias`, `url`
 * and `method` apply). Every update is a new vetting review billed at 15 USD.
 */
export const campaign = {
  name: 'Campaign',
  description:
    'US 10DLC campaign: a messaging use case under a brand, registered here or imported with import: { campaign_id }.',
  get spec() {
    return campaignSpec();
  },
  nameField: 'campaign_alias',
  references: { brand_id: 'Brand' },
  secrets: {},
  setFields: { sub_usecases: (member: unknown) => String(member) },
  uniqueFields: ['import.campaign_id'],
  rules: [
    {
      when: { field: 'import', present: false },
      require: registerRequired,
      reason:
        'registering a campaign requires the fields the API marks required; or import one with import: { campaign_id }',
    },
    {
      when: { field: 'import', present: true },
      forbid: registerOnly,
      reason: 'an imported campaign takes only campaign_alias, url and method',
    },
    {
      when: { field: 'usecase', in: withSubUsecases },
      require: ['sub_usecases'],
      reason: 'usecase MIXED and LOW_VOLUME need 2 to 5 sub_usecases',
    },
    {
      when: { field: 'usecase', notIn: withSubUsecases },
      forbid: ['sub_usecases'],
      reason: 'sub_usecases go only with usecase MIXED or LOW_VOLUME',
    },
  ],
  checks: [],
  live: campaignLive,
  // Registered for vetting; a read always carries a status (UNKNOWN when the API gives none).
  registry: {
    vetted: true,
    unregistered: 'UNKNOWN',
    callback: { types: ['campaign'], idField: 'campaign_id', untyped: true },
  },
  snapshot: {
    collection: 'campaigns',
    path: campaignPath,
    itemsKey: 'campaigns',
    idField: 'campaign_id',
    seed: 'existing',
    fields: textFields(
      [
        'campaign_id',
        'brand_id',
        'campaign_alias',
        'vertical',
        'usecase',
        'sub_usecase',
        'description',
        'sample1',
        'sample2',
        'sample3',
        'sample4',
        'sample5',
        'message_flow',
        'help_message',
        'optout_message',
        'optin_message',
        'optin_keywords',
        'optout_keywords',
        'help_keywords',
        'terms_and_conditions_link',
        'privacy_policy_link',
        'registration_status',
        'error_code',
        'error_reason',
        'campaign_source',
        'reseller_id',
        'created_at',
      ],
      { campaign_attributes: 'object' },
    ),
  },
  scope: { code: 'cp', preset: 'messaging' },
} as const satisfies Kind;
