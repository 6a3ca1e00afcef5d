import { ApiError, type JsonObject } from '../http.js';
import type { CampaignAttributes, CampaignRecord } from '../state.js';
import { multiUseCases, subUseCaseCodes, useCaseCodes, verticals } from './tendlc-codes.js';
import { checkEnum, checkHttpUrl, checkMinLength, requiredFlag, requiredText, text } from './tendlc-input.js';

/**
 * The campaign register and update rules (the API reference, Campaigns: the register table and "Campaign
 * update"). Each refusal is a 400 naming the field; the first broken rule, in table order, is
 * reported. `""` counts as absent, and the Node SDK's `sample_3`..`sample_5` are read as
 * `sample3`..`sample5` (production's documentation).
 */

/** The campaign's own content, as submitted: everything the registry reviews. */
export type CampaignContent = Pick<
  CampaignRecord,
  | 'campaign_alias'
  | 'vertical'
  | 'usecase'
  | 'sub_usecases'
  | 'description'
  | 'sample1'
  | 'sample2'
  | 'sample3'
  | 'sample4'
  | 'sample5'
  | 'message_flow'
  | 'help_message'
  | 'optout_message'
  | 'optin_message'
  | 'optin_keywords'
  | 'optout_keywords'
  | 'help_keywords'
  | 'terms_and_conditions_link'
  | 'privacy_policy_link'
  | 'campaign_attributes'
>;

/** Text fields an update may change (the API reference, Campaign update; samples 3–5 and links per production's documentation). */
export const updatableFields = [
  'campaign_alias',
  'description',
  'sample1',
  'sample2',
  'sample3',
  'sample4',
  'sample5',
  'message_flow',
  'help_message',
  'optout_message',
  'optout_keywords',
  'optin_message',
  'optin_keywords',
  'help_keywords',
  'terms_and_conditions_link',
  'privacy_policy_link',
] as const;

export type UpdatableField = (typeof updatableFields)[number];

/** Register parameters an update refuses (they would be silently dropped from a billed review). */
const fixedFields = [
  'brand_id',
  'vertical',
  'usecase',
  'sub_usecases',
  'subscriber_optin',
  'subscriber_optout',
  'subscriber_help',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'age_gated',
  'affiliate_marketing',
  'url',
  'method',
] as const;

/** Minimum lengths in characters (the API reference register table and Limits). */
const minimumLength: Partial<Record<UpdatableField, number>> = {
  description: 40,
  sample1: 20,
  sample2: 20,
  sample3: 20,
  sample4: 20,
  sample5: 20,
  message_flow: 40,
  help_message: 20,
  optout_message: 20,
  optin_message: 20,
};

/** Comma-separated words without spaces or special characters; help keywords in capitals. */
const keywordsPattern = /^[A-Za-z0-9]+(,[A-Za-z0-9]+)*$/;
const capitalKeywordsPattern = /^[A-Z0-9]+(,[A-Z0-9]+)*$/;

/** Reads an updatable text field, with the Node SDK's `sample_N` spelling as a fallback. */
function readField(body: JsonObject, field: UpdatableField): string | undefined {
  const value = text(body, field);
  if (value !== undefined) return value;
  const nodeSpelling = /^sample([3-5])$/.exec(field);
  return nodeSpelling ? text(body, `sample_${nodeSpelling[1] as string}`, field) : undefined;
}

/** The rules of one text field; run on register and update alike. */
function checkField(field: UpdatableField, value: string | undefined): void {
  if (value === undefined) return;
  checkMinLength(field, value, minimumLength[field] ?? 0);
  if (field === 'help_keywords' && !capitalKeywordsPattern.test(value)) {
    throw new ApiError(
      400,
      'help_keywords must be comma-separated words in capitals, without spaces or special characters',
    );
  }
  if ((field === 'optin_keywords' || field === 'optout_keywords') && !keywordsPattern.test(value)) {
    throw new ApiError(400, `${field} must be comma-separated words without spaces or special characters`);
  }
  if (field === 'terms_and_conditions_link' || field === 'privacy_policy_link') checkHttpUrl(field, value);
}

function readRequired(body: JsonObject, field: UpdatableField): string {
  const value = readField(body, field);
  if (value === undefined) throw new ApiError(400, `${field} is required`);
  checkField(field, value);
  return value;
}

function readOptional(body: JsonObject, field: UpdatableField): string | undefined {
  const value = readField(body, field);
  checkField(field, value);
  return value;
}

function readSubUseCases(body: JsonObject, usecase: string): string[] {
  const raw = body.sub_usecases;
  // The Python SDK sends `[]` when none were given (production's documentation).
  const given =
    raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0) ? undefined : raw;
  if (!multiUseCases.includes(usecase)) {
    if (given !== undefined)
      throw new ApiError(400, 'sub_usecases is allowed only when usecase is MIXED or LOW_VOLUME');
    return [];
  }
  if (given === undefined) throw new ApiError(400, `sub_usecases is required when usecase is ${usecase}`);
  if (!Array.isArray(given) || !given.every((item) => typeof item === 'string')) {
    throw new ApiError(400, 'sub_usecases must be an array of use-case codes');
  }
  const codes = given as string[];
  if (codes.length < 2 || codes.length > 5) throw new ApiError(400, 'sub_usecases must hold 2 to 5 use cases');
  for (const code of codes) {
    if (!subUseCaseCodes.includes(code))
      throw new ApiError(400, `sub_usecases must be chosen from ${subUseCaseCodes.join(', ')}`);
  }
  if (new Set(codes).size !== codes.length) throw new ApiError(400, 'sub_usecases must not repeat a use case');
  return [...codes];
}

function readAttributes(body: JsonObject): CampaignAttributes {
  const mustBeTrue = (field: 'subscriber_optin' | 'subscriber_optout' | 'subscriber_help'): true => {
    if (!requiredFlag(body, field)) throw new ApiError(400, `${field} must be true`);
    return true;
  };
  const subscriberOptin = mustBeTrue('subscriber_optin');
  const subscriberOptout = mustBeTrue('subscriber_optout');
  const subscriberHelp = mustBeTrue('subscriber_help');
  return {
    subscriber_optin: subscriberOptin,
    subscriber_optout: subscriberOptout,
    subscriber_help: subscriberHelp,
    direct_lending: requiredFlag(body, 'direct_lending'),
    embedded_link: requiredFlag(body, 'embedded_link'),
    embedded_phone: requiredFlag(body, 'embedded_phone'),
    age_gated: requiredFlag(body, 'age_gated'),
    affiliate_marketing: requiredFlag(body, 'affiliate_marketing'),
  };
}

/** Reads a register request's content (`brand_id`, `url` and `method` are read by the route). */
export function readCampaignContent(body: JsonObject): CampaignContent {
  const campaignAlias = readRequired(body, 'campaign_alias');
  const vertical = requiredText(body, 'vertical');
  checkEnum('vertical', vertical, verticals);
  const description = readRequired(body, 'description');
  const usecase = requiredText(body, 'usecase');
  checkEnum('usecase', usecase, useCaseCodes);
  const sample1 = readRequired(body, 'sample1');
  const sample2 = readRequired(body, 'sample2');
  const sample3 = readOptional(body, 'sample3');
  const sample4 = readOptional(body, 'sample4');
  const sample5 = readOptional(body, 'sample5');
  const attributes = readAttributes(body);
  const subUseCases = readSubUseCases(body, usecase);
  const content: CampaignContent = {
    campaign_alias: campaignAlias,
    vertical,
    usecase,
    sub_usecases: subUseCases,
    description,
    sample1,
    sample2,
    message_flow: readRequired(body, 'message_flow'),
    help_message: readRequired(body, 'help_message'),
    optout_message: readRequired(body, 'optout_message'),
    campaign_attributes: attributes,
  };
  const optional: Partial<Record<UpdatableField, string | undefined>> = {
    sample3,
    sample4,
    sample5,
    optin_message: readOptional(body, 'optin_message'),
    optin_keywords: readOptional(body, 'optin_keywords'),
    optout_keywords: readOptional(body, 'optout_keywords'),
    help_keywords: readOptional(body, 'help_keywords'),
    terms_and_conditions_link: readOptional(body, 'terms_and_conditions_link'),
    privacy_policy_link: readOptional(body, 'privacy_policy_link'),
  };
  for (const [field, value] of Object.entries(optional)) {
    if (value !== undefined) (content as Partial<Record<string, unknown>>)[field] = value;
  }
  return content;
}

/**
 * Reads an update: the updatable fields given (at least one), each checked by the register rule.
 * A register parameter that cannot change, given with a value, is a 400 naming it.
 */
export function readCampaignUpdate(body: JsonObject): Partial<Record<UpdatableField, string>> {
  for (const field of fixedFields) {
    const value = body[field];
    const given =
      value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
    if (given) {
      throw new ApiError(
        400,
        `${field} cannot be updated; a campaign update may change only ${updatableFields.join(', ')}`,
      );
    }
  }
  const changes: Partial<Record<UpdatableField, string>> = {};
  for (const field of updatableFields) {
    const value = readOptional(body, field);
    if (value !== undefined) changes[field] = value;
  }
  if (Object.keys(changes).length === 0) {
    throw new ApiError(
      400,
      `no updatable field given; a campaign update changes one or more of ${updatableFields.join(', ')}`,
    );
  }
  return changes;
}
