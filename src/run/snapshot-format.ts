// The snapshot file (`telform snapshot`): the account's objects in the emulator's seed format (objects it
// "already holds", kept as given), with a header saying what was read, when and from where. Each record is
// cut to the fields that format documents (docs/emulator.md, snapshots): production's shapes survive —
// legacy values, fields the API did not return stay absent — and nothing write-only is ever in it, since
// the API never returns a password and the emulator gives each held credential a random one.
import type { AccountReading } from '../resources/account-records.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Row = Record<string, unknown>;
type FieldType = 'text' | 'flag' | 'number' | 'object' | 'list';

export const snapshotFormat = 'telform-snapshot';
export const snapshotVersion = 1;

/** Fields of each held kind, as the emulator's seed format names them, with the type each must have. */
const heldFields: Record<string, Record<string, FieldType>> = {
  profiles: fields(
    'text',
    [
      'profile_uuid',
      'profile_alias',
      'profile_type',
      'primary_profile',
      'customer_type',
      'entity_type',
      'company_name',
      'vertical',
      'ein',
      'ein_issuing_country',
      'stock_symbol',
      'stock_exchange',
      'alt_business_id',
      'alt_business_id_type',
      'website',
      'plivo_subaccount',
      'business_contact_email',
      'doing_business_as',
      'created_at',
    ],
    { address: 'object', authorized_contact: 'object' },
  ),
  brands: fields(
    'text',
    [
      'brand_id',
      'brand_type',
      'profile_uuid',
      'brand_alias',
      'company_name',
      'ein',
      'ein_issuing_country',
      'entity_type',
      'vertical',
      'website',
      'registration_status',
      'created_at',
    ],
    { address: 'object', authorized_contact: 'object', secondary_vetting: 'flag', declined_reasons: 'list' },
  ),
  campaigns: fields(
    'text',
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
  trunk_credentials: fields('text', ['credential_uuid', 'name', 'username', 'created_at']),
  sip_credentials: fields('text', ['credential_uuid', 'username', 'realm', 'created_at']),
  sip_ip_acls: fields('text', ['ip_acl_uuid', 'name', 'created_at'], { entries: 'list' }),
  trunk_ip_acls: fields('text', ['ipacl_uuid', 'name', 'created_at'], { ip_addresses: 'list' }),
  origination_uris: fields('text', ['uri_uuid', 'name', 'uri', 'username', 'created_at'], {
    authentication_needed: 'flag',
  }),
  trunks: fields(
    'text',
    [
      'trunk_id',
      'name',
      'trunk_status',
      'trunk_direction',
      'ipacl_uuid',
      'credential_uuid',
      'primary_uri_uuid',
      'fallback_uri_uuid',
      'trunk_domain',
      'created_at',
      'updated_at',
    ],
    { secure: 'flag' },
  ),
};

const applicationFields = fields(
  'text',
  [
    'app_id',
    'app_name',
    'answer_url',
    'answer_method',
    'hangup_url',
    'hangup_method',
    'fallback_answer_url',
    'fallback_method',
    'message_url',
    'message_method',
    'sip_auth_type',
    'ip_acl_uuid',
    'credential_uuid',
  ],
  { default_app: 'flag', enabled: 'flag', public_uri: 'flag', log_incoming_messages: 'flag' },
);

/** A number's columns the emulator computes itself (its own id path, the attachment as a URI). */
const computedNumberColumns = new Set(['number', 'application', 'app_id', 'resource_uri']);
const heldLinkStatuses = new Set(['PROCESSING', 'COMPLETED', 'FAILED', 'REGISTERED']);

function fields(
  type: 'text',
  names: readonly string[],
  others: Record<string, FieldType> = {},
): Record<string, FieldType> {
  return { ...Object.fromEntries(names.map((name) => [name, type])), ...others };
}

export interface SnapshotHeaderInput {
  takenAt: string;
  /** How the ledger names the endpoint (`local` or a base URL). */
  endpoint: string;
  account: string;
}

/** The snapshot of one account as the JSON document the emulator loads. */
export function snapshotDocument(reading: AccountReading, header: SnapshotHeaderInput): Record<string, Json> {
  const skippedProducts = new Set(reading.skipped.map((skip) => skip.collection.product));
  const products = (['sip-trunking', '10dlc'] as const).filter(
    (product) => !skippedProducts.has(product === 'sip-trunking' ? 'sip trunking' : '10DLC'),
  );
  const existing: Record<string, Json> = {};
  for (const [kind, shape] of Object.entries(heldFields)) {
    const records = reading.records[kind as keyof typeof reading.records];
    if (records && records.length > 0) existing[kind] = records.map((record) => projectHeld(kind, record, shape));
  }
  const applications = (reading.records.applications ?? []).map((record) => project(record, applicationFields));
  const numbers = (reading.records.numbers ?? []).map(projectNumber);
  return {
    format: snapshotFormat,
    version: snapshotVersion,
    taken_at: header.takenAt,
    endpoint: header.endpoint,
    account: header.account,
    products: [...products],
    skipped: reading.skipped.map((skip) => `${skip.collection.path}: ${skip.message}`),
    existing,
    applications,
    numbers,
  };
}

/** The fields of `record` that `shape` names and that have its type; anything else is left out. */
function project(record: Row, shape: Record<string, FieldType>): Json {
  const out: Record<string, Json> = {};
  for (const [field, type] of Object.entries(shape)) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    if (type === 'text' && typeof value === 'string') out[field] = value;
    else if (type === 'flag' && typeof value === 'boolean') out[field] = value;
    else if (type === 'flag' && (value === 'true' || value === 'false')) out[field] = value === 'true';
    else if (type === 'number' && typeof value === 'number') out[field] = value;
    else if (type === 'number' && typeof value === 'string' && /^[0-9]+$/.test(value)) out[field] = Number(value);
    else if (type === 'object' && typeof value === 'object' && !Array.isArray(value)) out[field] = jsonOf(value);
    else if (type === 'list' && Array.isArray(value)) out[field] = jsonOf(value);
    else if (type === 'list' && typeof value === 'string') out[field] = value.split(',').filter((item) => item !== '');
  }
  return out;
}

function projectHeld(kind: string, record: Row, shape: Record<string, FieldType>): Json {
  if (kind === 'sip_ip_acls') return projectSipAcl(record, shape);
  const out = project(record, shape) as Record<string, Json>;
  // A brand read does not say whether secondary vetting was asked for; a completed brand shows its
  // vetting only when it was, so that is what the replica holds.
  if (
    kind === 'brands' &&
    out.secondary_vetting === undefined &&
    String(record.registration_status ?? '').toUpperCase() === 'COMPLETED'
  ) {
    out.secondary_vetting = record.vetting_status !== undefined && record.vetting_status !== null;
  }
  return out;
}

const aclEntryFields = fields('text', ['entry_id', 'ip', 'description'], { cidr_prefix: 'number' });

/** A SIP IP ACL with each entry cut to its documented fields. */
function projectSipAcl(record: Row, shape: Record<string, FieldType>): Json {
  const out = project(record, shape) as Record<string, Json>;
  const entries = Array.isArray(record.entries) ? (record.entries as unknown[]) : [];
  out.entries = entries
    .filter((entry): entry is Row => entry !== null && typeof entry === 'object')
    .map((entry) => project(entry, aclEntryFields));
  return out;
}

/** A number: what it is attached to and linked to, and every other column of its row as the account shows it. */
function projectNumber(record: Row): Json {
  const out: Record<string, Json> = { number: String(record.number ?? '') };
  const attachedTo =
    typeof record.app_id === 'string' && record.app_id !== '' ? record.app_id : lastSegment(record.application);
  if (attachedTo) out.app_id = attachedTo;
  const campaign = record.tendlc_campaign_id;
  const status =
    typeof record.tendlc_registration_status === 'string' ? record.tendlc_registration_status.toUpperCase() : undefined;
  if (typeof campaign === 'string' && campaign !== '') {
    out.campaign_id = campaign;
    if (status && heldLinkStatuses.has(status)) out.campaign_link_status = status;
  }
  const row: Record<string, Json> = {};
  for (const [column, value] of Object.entries(record))
    if (!computedNumberColumns.has(column)) row[column] = jsonOf(value);
  out.row = row;
  return out;
}

function lastSegment(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri === '') return undefined;
  const segments = uri.split('/').filter((segment) => segment !== '');
  return segments[segments.length - 1];
}

function jsonOf(value: unknown): Json {
  return JSON.parse(JSON.stringify(value ?? null)) as Json;
}
