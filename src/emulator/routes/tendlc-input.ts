import { ApiError, json, type JsonObject, type Reply } from '../http.js';
import type { Shapes } from '../options.js';
import { paginate, readPageBounds, type PageMeta } from '../pagination.js';
import type { ShapeVariation } from '../variation.js';
import { booleanInput } from '../params.js';
import { characterCount } from '../records.js';
import type { CallbackTarget } from '../state.js';

/**
 * Input readers and reply helpers shared by the Profile, Brand and Campaign routes. In this area
 * `""` counts as "not provided" (the Python SDK sends `''` for every
 * field it was not given), every refusal is a 400 naming the field, and lists are paginated with
 * links that start with a slash (production's documentation).
 */

/**
 * A string parameter; `""` and `null` are absent, any other non-string is a 400. `label` names
 * the field in messages (`address.city` for a nested one).
 */
export function text(body: JsonObject, field: string, label = field): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `${label} must be a string`);
  return value;
}

export function requiredText(body: JsonObject, field: string, label = field): string {
  const value = text(body, field, label);
  if (value === undefined) throw new ApiError(400, `${label} is required`);
  return value;
}

export function checkMinLength(field: string, value: string | undefined, minimum: number): void {
  if (value !== undefined && characterCount(value) < minimum) {
    throw new ApiError(400, `${field} must be at least ${minimum} characters`);
  }
}

export function checkMaxLength(field: string, value: string | undefined, maximum: number): void {
  if (value !== undefined && characterCount(value) > maximum) {
    throw new ApiError(400, `${field} must be at most ${maximum} characters`);
  }
}

export function checkEnum(field: string, value: string | undefined, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new ApiError(400, `${field} must be one of ${allowed.join(', ')}`);
  }
}

/** A boolean parameter (or `"true"`/`"false"` where params.ts allows it); `null` is absent, anything else is a 400. */
export function flag(body: JsonObject, field: string): boolean | undefined {
  const value = booleanInput(body, field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ApiError(400, `${field} must be true or false`);
  return value;
}

export function requiredFlag(body: JsonObject, field: string): boolean {
  const value = flag(body, field);
  if (value === undefined) throw new ApiError(400, `${field} is required`);
  return value;
}

/** A nested object parameter (address, authorized_contact); `null` is absent. */
export function object(body: JsonObject, field: string): JsonObject | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, `${field} must be an object`);
  return value as JsonObject;
}

/** True for an absolute `http:` or `https:` URL with a host. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export function checkHttpUrl(field: string, value: string | undefined): void {
  if (value !== undefined && !isHttpUrl(value)) {
    throw new ApiError(400, `${field} must be a fully qualified http or https URL`);
  }
}

/**
 * The status callback of a brand create, campaign register or import (the API reference, Events): `url`
 * fully qualified, `method` `GET` or `POST` (default `POST`, any case accepted).
 */
export function callbackTarget(body: JsonObject): CallbackTarget | null {
  const url = text(body, 'url');
  const method = text(body, 'method')?.toUpperCase();
  checkHttpUrl('url', url);
  if (method !== undefined && method !== 'GET' && method !== 'POST')
    throw new ApiError(400, 'method must be GET or POST');
  if (url === undefined) return null;
  return { url, method: method === 'GET' ? 'GET' : 'POST' };
}

/**
 * An enumerated list filter compared without regard to case (the campaign list documents
 * `Active`, records say `ACTIVE`: production's documentation); answers the canonical value.
 */
export function queryEnumAnyCase<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const found = allowed.find((value) => value.toLowerCase() === raw.toLowerCase());
  if (found === undefined) throw new ApiError(400, `${name} must be one of ${allowed.join(', ')}`);
  return found;
}

/**
 * A list reply `{ api_id, meta, <key>: [...] }` (the API reference, Shared conventions: `brands`,
 * `campaigns`; `profiles` in production's documentation), paged and enveloped as `tendlcPage` says.
 */
export function tendlcList<T>(
  items: readonly T[],
  query: URLSearchParams,
  listPath: string,
  key: string,
  present: (item: T) => JsonObject,
  shape: MetaShape,
): Reply {
  const page = tendlcPage(items, query, listPath, shape);
  return json(200, { ...page.envelope, [key]: page.items.map(present) });
}

/**
 * One page of a 10DLC or Profile list and its paging fields. The production shapes vary per account
 * (variation.ts): the page size may be production's 10 or 2 whatever the request asked (the `next` link then
 * carries that limit), and the paging fields may be `meta` with or without `total_count`, `{count, limit,
 * offset}` beside the items (`count` the total), or none at all.
 */
export function tendlcPage<T>(
  items: readonly T[],
  query: URLSearchParams,
  listPath: string,
  shape: MetaShape,
): { envelope: JsonObject; items: T[] } {
  const variation = shape.variation;
  let pageQuery = query;
  if (variation && typeof variation.pageSize === 'number') {
    readPageBounds(query); // a bad limit or offset is still a 400
    pageQuery = new URLSearchParams(query);
    pageQuery.set('limit', String(variation.pageSize));
  }
  const page = paginate(items, pageQuery, listPath, { leadingSlash: true });
  const meta = page.meta;
  switch (variation?.listEnvelope ?? 'meta') {
    case 'meta_total':
      return { envelope: { meta: { ...tendlcMeta(meta, shape), total_count: meta.total_count } }, items: page.items };
    case 'count':
      return { envelope: { count: meta.total_count, limit: meta.limit, offset: meta.offset }, items: page.items };
    case 'none':
      return { envelope: {}, items: page.items };
    default:
      return { envelope: { meta: tendlcMeta(meta, shape) }, items: page.items };
  }
}

/**
 * The answer of a brand or campaign delete: production's may carry no `api_id` (`{"message": "… Deactivated",
 * "brand_id": …}` in the SDKs' fixtures), so the production shapes leave it out; the ideal ones carry it.
 */
export function deactivated(shapes: Shapes, body: JsonObject): Reply {
  return shapes === 'production' ? { status: 200, body: { message: body.message, ...body } } : json(200, body);
}

/** How a 10DLC or Profile list's `meta` is written: the emulator's shapes, and whether the ideal form has a total. */
export interface MetaShape {
  shapes: Shapes;
  /** False for the profile list, which has no `total_count` even in the ideal shapes (production's documentation). */
  withTotal?: boolean;
  /** The account's variation among production's shapes (none under the ideal shapes). */
  variation?: ShapeVariation;
}

/**
 * Production's 10DLC and Profile lists answer `meta` as `{limit, next, offset}`: no `total_count`, no
 * `previous` (the SDKs' fixtures), so a client cannot know the page count in advance. The ideal shapes keep
 * the full meta of the other lists.
 */
function tendlcMeta(meta: PageMeta, shape: MetaShape): JsonObject {
  if (shape.shapes === 'production') return { limit: meta.limit, next: meta.next, offset: meta.offset };
  const full: JsonObject = { ...meta };
  if (shape.withTotal === false) delete full.total_count;
  return full;
}

/**
 * The answer of a brand, campaign or profile create, with the new id where the account's variation puts it:
 * at the top level (`{campaign_id, message}`), nested under the kind (`{message, campaign: {campaign_id}}`), or
 * in camelCase (`{campaignId, message}`), the shapes the SDKs' fixtures show.
 */
export function createdReply(
  variation: ShapeVariation,
  kind: string,
  idField: string,
  id: string,
  message: string,
): Reply {
  if (variation.createAnswer === 'nested') return json(200, { message, [kind]: { [idField]: id } });
  if (variation.createAnswer === 'camel') {
    const camel = idField.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    return json(200, { [camel]: id, message });
  }
  return json(200, { [idField]: id, message });
}

/** A list row without its alias when the account's variation says so (campaign rows in two SDKs' list mocks carry none). */
export function withoutAlias(row: JsonObject, aliasField: string, variation: ShapeVariation): JsonObject {
  if (!variation.rowsWithoutAlias) return row;
  const { [aliasField]: _alias, ...rest } = row;
  return rest;
}
