import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import { TelformError } from '../util/errors.js';

/**
 * Reading the API's loosely typed records, for every kind's live side: field values normalised
 * (docs/commands.md, plan: `""`, `null` and absent alike; status case; booleans and integers sent as
 * strings), ids, item paths, one record by path and the whole `objects` lists.
 */

/** A record as the API returns it; fields are read through the helpers below. */
export type ApiRecord = Record<string, unknown>;

/** A text field; `""`, `null` and anything else that is not a string count as absent. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A lower-cased text field, for enum values whose case production does not keep steady (docs/commands.md, plan). */
export function lowerText(value: unknown): string | undefined {
  return text(value)?.toLowerCase();
}

/** Status values compared and shown in upper case (10DLC filters say `Active`, records `ACTIVE`). */
export function upperText(value: unknown): string | undefined {
  return text(value)?.toUpperCase();
}

/** A boolean field; production and SDKs sometimes send `"true"`/`"false"` strings. */
export function flag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fallback;
}

/** An integer field, also from a numeric string. */
export function integer(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

/** The record without its undefined fields: a normalised spec holds only what is present. */
export function present(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
  return out;
}

/** An id field: a non-empty string, or a number as text (10DLC ids come as either). */
function idIn(record: unknown, field: string): string | undefined {
  const value = record && typeof record === 'object' ? (record as ApiRecord)[field] : undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * Where a kind's create answer holds the new object's id (declared once, as its live side's `createAnswer`):
 * production answers it at the top level (`{campaign_id}`), in camelCase (`{campaignId}`), or nested under
 * the kind (`{api_id, campaign: {campaign_id, …}}`); every one of these is read.
 */
export interface CreateAnswer {
  /** The id field as the API spells it in reads (`campaign_id`). */
  readonly idField: string;
  /** The members a create answer may nest the new object under (`campaign`). */
  readonly under: readonly string[];
}

/** `campaign_id` → `campaignId`. */
function camelCase(field: string): string {
  return field.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The new object's id from a create answer, wherever `answer` says it may be; undefined when it is nowhere. */
export function createdIdIn(body: unknown, answer: CreateAnswer): string | undefined {
  const names = [answer.idField, camelCase(answer.idField)];
  const places = [
    body,
    ...answer.under.flatMap((member) => [member, camelCase(member)].map((key) => memberOf(body, key))),
  ];
  for (const place of places) {
    for (const name of names) {
      const id = idIn(place, name);
      if (id !== undefined) return id;
    }
  }
  return undefined;
}

function memberOf(body: unknown, key: string): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as ApiRecord)[key] : undefined;
}

/** The new object's id from a create answer; an answer without it is an error naming where it was looked for. */
export function createdId(body: unknown, answer: CreateAnswer, path: string): string {
  const id = createdIdIn(body, answer);
  if (id !== undefined) return id;
  throw new TelformError(
    'unexpected_response',
    `the API answered POST ${path} without "${answer.idField}" (at the top level, in camelCase or under ${answer.under.map((member) => `"${member}"`).join(' or ') || 'no member'}), so the new object cannot be tracked`,
  );
}

/** The id a listed record must carry; a record without one is a response telform cannot work with. */
export function requireId(record: ApiRecord, field: string, path: string): string {
  const id = idIn(record, field);
  if (id !== undefined) return id;
  throw new TelformError('unexpected_response', `the API returned a record without ${field} from ${path}`, {
    details: { path, field },
  });
}

/** `/Collection/{id}/`, the id encoded (ids come from the API, but never trusted as path text). */
export function itemPath(collection: string, id: string): string {
  return `${collection}${encodeURIComponent(id)}/`;
}

/**
 * One record by path; undefined when the API answers 404. With `unwrap`, a body like
 * `{api_id, brand: {…}}` is unwrapped from that member (a flat body is taken as it is).
 */
export async function readRecord<T extends object = ApiRecord>(
  client: ApiClient,
  path: string,
  unwrap?: string,
): Promise<T | undefined> {
  try {
    const { body } = await client.get<unknown>(path);
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new TelformError('unexpected_response', `the API answered GET ${path} without a JSON object`);
    }
    const inner = unwrap === undefined ? undefined : (body as ApiRecord)[unwrap];
    return (inner && typeof inner === 'object' ? inner : body) as T;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return undefined;
    throw error;
  }
}

/** Every item of a paginated list with `objects` (trunking, SipAuth, applications, numbers), read whole. */
export function listRecords(client: ApiClient, path: string, idField: string): Promise<ApiRecord[]> {
  return listAll<ApiRecord>(client, path, {
    itemsKey: 'objects',
    idOf: (item) => String(item[idField]),
  });
}
