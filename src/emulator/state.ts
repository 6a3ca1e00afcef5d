/**
 * The emulator's state: accounts, each holding its own collections. Plain data only (maps of
 * records with JSON-safe fields), so that persistence can write it out and read it back as is.
 * Collections are `Map`s keyed by id: insertion order is creation order, which is list order.
 */

export interface SipCredentialRecord {
  credential_uuid: string;
  username: string;
  realm: string;
  /** One-way hash of the password (salted SHA-256); the password itself is never kept. */
  password_hash: string;
  created_at: string;
}

export interface SipAclEntryRecord {
  entry_id: string;
  ip: string;
  cidr_prefix: number;
  description: string;
}

export interface SipAclRecord {
  ip_acl_uuid: string;
  name: string;
  entries: SipAclEntryRecord[];
  created_at: string;
}

export interface ApplicationRecord {
  app_id: string;
  app_name: string;
  answer_url: string;
  answer_method: string;
  hangup_url: string;
  hangup_method: string;
  fallback_answer_url: string;
  fallback_method: string;
  message_url: string;
  message_method: string;
  default_app: boolean;
  enabled: boolean;
  public_uri: boolean;
  log_incoming_messages: boolean;
  /** `""`, `ip_acl`, `credential` or `ip_acl_and_credential`. */
  sip_auth_type: string;
  ip_acl_uuid: string;
  credential_uuid: string;
  created_at: string;
}

export interface TrunkRecord {
  trunk_id: string;
  name: string;
  trunk_status: 'enabled' | 'disabled';
  trunk_direction: 'inbound' | 'outbound';
  secure: boolean;
  ipacl_uuid: string | null;
  credential_uuid: string | null;
  primary_uri_uuid: string | null;
  fallback_uri_uuid: string | null;
  created_at: string;
  updated_at: string;
}

export interface TrunkCredentialRecord {
  credential_uuid: string;
  name: string;
  username: string;
  password_hash: string;
  created_at: string;
}

export interface TrunkAclRecord {
  ipacl_uuid: string;
  name: string;
  ip_addresses: string[];
  created_at: string;
}

export interface OriginationUriRecord {
  uri_uuid: string;
  name: string;
  uri: string;
  authentication_needed: boolean;
  username: string | null;
  password_hash: string | null;
  created_at: string;
}

export type NumberLinkStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED';

/**
 * A link status an account may hold for a number it was seeded with: the registry's statuses, and
 * `REGISTERED`, which real accounts show for a number whose registration is done (treated as `COMPLETED`).
 */
export type HeldLinkStatus = NumberLinkStatus | 'REGISTERED';

/** Why the registry refused to link a number to a campaign. */
export interface NumberLinkFailure {
  code: string;
  reason: string;
}

/** A link of a number to a campaign requested through the API: decided on submission, like a registration. */
export interface NumberLink {
  registration: Registration<NumberLinkStatus>;
  /** Set when the registry decided `FAILED`; shown only once that step is reached. */
  failure: NumberLinkFailure | null;
  callback: CallbackTarget | null;
}

/** A phone number of the account: seeded for every new account, by the admin routes or by `--seed`. */
export interface NumberRecord {
  number: string;
  /** Application or inbound trunk the number is attached to, if any. */
  app_id: string | null;
  /** 10DLC campaign the number is linked to (or being linked to, or failed to link to), if any. */
  campaign_id: string | null;
  /** The link's status when the admin route set it (it never changes by itself); null for an API link. */
  campaign_link_status: HeldLinkStatus | null;
  /** A link made through `POST /10dlc/Campaign/{id}/Number/`; its status comes from the clock. */
  link?: NumberLink | null;
  /**
   * Further columns of the number's row as a real account shows them (`alias`, `carrier`, `city`, …), kept
   * and returned as given. `tendlc_campaign_id` and `tendlc_registration_status` here override what the link
   * says (real accounts show `null`, or `COMPLETED` without a campaign) until a link or unlink through the API.
   */
  row?: { [column: string]: unknown };
  created_at: string;
}

/** A postal address of a 10DLC profile or brand (production's documentation). */
export interface PostalAddress {
  street: string;
  city: string;
  /** State or region code, e.g. `TX`. */
  state: string;
  postal_code: string;
  /** ISO 3166 alpha-2. */
  country: string;
}

/** The person who answers for a profile or brand (production's documentation). */
export interface AuthorizedContact {
  first_name: string;
  last_name: string;
  email: string;
  /** E.164. */
  phone: string;
  title: string;
  seniority: string;
}

/** A contact as an account may hold it: any member missing, or members the API does not document (`name`). */
export type HeldContact = Partial<AuthorizedContact> & { [field: string]: string | undefined };

/**
 * A 10DLC profile (`/Profile/`): the business data a brand is registered from (production's documentation).
 * A profile made through the API has every field (`""` when unset); one the account already held when it
 * was seeded (seed.ts, `existing`) may omit any of them, as real accounts' profiles do, and keeps legacy values.
 */
export interface ProfileRecord {
  profile_uuid: string;
  profile_alias?: string;
  profile_type: 'PRIMARY' | 'SECONDARY';
  /** The account's primary profile (itself for the primary one). */
  primary_profile: string;
  customer_type?: string;
  entity_type?: string;
  company_name?: string;
  vertical?: string;
  /** `""` or absent when the profile holds no EIN; a `STANDARD` brand needs one. */
  ein?: string;
  ein_issuing_country?: string;
  stock_symbol?: string;
  stock_exchange?: string;
  alt_business_id?: string;
  alt_business_id_type?: string;
  website?: string;
  plivo_subaccount?: string;
  business_contact_email?: string;
  doing_business_as?: string;
  address?: Partial<PostalAddress>;
  authorized_contact?: HeldContact;
  /** The brand made from this profile, kept after that brand is deleted: a profile makes one brand, ever. */
  used_by_brand_id: string | null;
  created_at: string;
}

/** Where a 10DLC registration's status callbacks go (the API reference, Events). */
export interface CallbackTarget {
  url: string;
  method: 'GET' | 'POST';
}

/** One status a registration reaches, and when. */
export interface RegistrationStep<S extends string> {
  at: string;
  status: S;
}

/**
 * A registration with the campaign registry, as the registry simulator decided it on submission:
 * the status is that of the last step whose time has come (computed from timestamps, never
 * timers, so a restarted emulator shows the right status). A new submission (a campaign update) replaces the steps.
 */
export interface Registration<S extends string> {
  /** In time order; the first is `PROCESSING` at submission. */
  steps: RegistrationStep<S>[];
  /** How many steps have had their status callback fired (each fires once). */
  notified: number;
}

export type BrandStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED';
export type CampaignStatus = 'PROCESSING' | 'ACTIVE' | 'FAILED' | 'EXPIRED';

export interface DeclinedReason {
  code: string;
  message: string;
}

/**
 * A 10DLC brand: the profile's data copied at create time, plus its registration. A brand the account
 * already held when it was seeded may be `STARTER` and lack its profile, company or entity type, as
 * legacy brands of real accounts do.
 */
export interface BrandRecord {
  brand_id: string;
  brand_alias?: string;
  /** `STANDARD` for every brand made through the API; `STARTER` on held legacy brands. */
  brand_type: string;
  profile_uuid?: string;
  company_name?: string;
  ein?: string;
  ein_issuing_country?: string;
  entity_type?: string;
  vertical?: string;
  website?: string;
  address?: Partial<PostalAddress>;
  authorized_contact?: HeldContact;
  secondary_vetting: boolean;
  callback: CallbackTarget | null;
  registration: Registration<BrandStatus>;
  /** Shown only while the registration is `FAILED`. */
  declined_reasons: DeclinedReason[];
  created_at: string;
}

export interface CampaignAttributes {
  affiliate_marketing: boolean;
  age_gated: boolean;
  direct_lending: boolean;
  embedded_link: boolean;
  embedded_phone: boolean;
  subscriber_help: boolean;
  subscriber_optin: boolean;
  subscriber_optout: boolean;
}

/**
 * A 10DLC campaign. Optional text fields are absent unless supplied (the API reference, Campaign). A
 * campaign the account already held when it was seeded (seed.ts, `existing`) may lack what the API now
 * requires (alias, vertical, use case, samples, attributes), as old campaigns of real accounts do.
 */
export interface CampaignRecord {
  campaign_id: string;
  brand_id: string;
  campaign_alias?: string;
  vertical?: string;
  usecase?: string;
  /** Empty unless `usecase` is `MIXED` or `LOW_VOLUME` (or a held campaign shows sub use cases anyway). */
  sub_usecases: string[];
  description?: string;
  sample1?: string;
  sample2?: string;
  sample3?: string;
  sample4?: string;
  sample5?: string;
  message_flow?: string;
  help_message?: string;
  optout_message?: string;
  optin_message?: string;
  optin_keywords?: string;
  optout_keywords?: string;
  help_keywords?: string;
  terms_and_conditions_link?: string;
  privacy_policy_link?: string;
  campaign_attributes?: Partial<CampaignAttributes>;
  campaign_source: 'plivo' | 'shared';
  reseller_id: string;
  callback: CallbackTarget | null;
  registration: Registration<CampaignStatus>;
  /** Shown only while the registration is `FAILED`. */
  decline: { error_code: string; error_reason: string } | null;
  created_at: string;
}

/** One billed event, e.g. a campaign update's vetting review (15 USD). */
export interface BillingRecord {
  at: string;
  item: string;
  amount_usd: number;
  campaign_id?: string;
  brand_id?: string;
}

export interface AccountState {
  authId: string;
  authToken: string;
  sipCredentials: Map<string, SipCredentialRecord>;
  sipAcls: Map<string, SipAclRecord>;
  applications: Map<string, ApplicationRecord>;
  trunks: Map<string, TrunkRecord>;
  trunkCredentials: Map<string, TrunkCredentialRecord>;
  trunkAcls: Map<string, TrunkAclRecord>;
  originationUris: Map<string, OriginationUriRecord>;
  numbers: Map<string, NumberRecord>;
  profiles: Map<string, ProfileRecord>;
  brands: Map<string, BrandRecord>;
  campaigns: Map<string, CampaignRecord>;
  billing: BillingRecord[];
  /** Names of the account initializers run for it (runtime.ts); absent in a file saved before they were recorded. */
  initialized?: string[];
}

export interface EmulatorState {
  /** Added to the wall clock; advanced by the admin clock route so tests need no sleeps. */
  clockOffsetMs: number;
  accounts: Map<string, AccountState>;
}

export function createAccountState(authId: string, authToken: string): AccountState {
  return {
    authId,
    authToken,
    sipCredentials: new Map(),
    sipAcls: new Map(),
    applications: new Map(),
    trunks: new Map(),
    trunkCredentials: new Map(),
    trunkAcls: new Map(),
    originationUris: new Map(),
    numbers: new Map(),
    profiles: new Map(),
    brands: new Map(),
    campaigns: new Map(),
    billing: [],
  };
}

export function createEmulatorState(): EmulatorState {
  return { clockOffsetMs: 0, accounts: new Map() };
}
