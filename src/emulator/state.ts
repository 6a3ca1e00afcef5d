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

/** A phone number of the account, seeded through the admin routes or `--seed`. */
export interface NumberRecord {
  number: string;
  /** Application or inbound trunk the number is attached to, if any. */
  app_id: string | null;
  /** 10DLC campaign the number is linked to, if any, and the link's status. */
  campaign_id: string | null;
  campaign_link_status: 'PROCESSING' | 'COMPLETED' | 'FAILED' | null;
  created_at: string;
}

/** 10DLC records are kept as the API returns them plus the inputs the registry rules read. */
export interface ProfileRecord {
  profile_uuid: string;
  [field: string]: unknown;
}

export interface BrandRecord {
  brand_id: string;
  profile_uuid: string;
  [field: string]: unknown;
}

export interface CampaignRecord {
  campaign_id: string;
  brand_id: string;
  [field: string]: unknown;
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
