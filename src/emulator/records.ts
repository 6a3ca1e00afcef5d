import { ApiError, json, type JsonObject, type Reply } from './http.js';
import { paginate } from './pagination.js';
import type { Runtime } from './runtime.js';

/**
 * Small helpers shared by the emulator's resource routes: lookups that answer 404, list replies
 * with pagination, fresh ids and timestamps.
 */

/** The record with `id` in `collection`, or a 404 naming what was looked for. */
export function findOr404<T>(collection: ReadonlyMap<string, T>, id: string, what: string): T {
  const record = collection.get(id);
  if (record === undefined) throw new ApiError(404, `${what} ${id} not found`);
  return record;
}

/**
 * A paginated list reply `{ api_id, meta, objects }` (the API reference, Shared conventions). `listPath` is
 * the absolute path of the list; `leadingSlash` follows production per area (production's documentation
 * section 7: trunking links have none).
 */
export function listReply<T>(
  items: readonly T[],
  query: URLSearchParams,
  listPath: string,
  leadingSlash: boolean,
  present: (item: T) => JsonObject,
): Reply {
  const page = paginate(items, query, listPath, { leadingSlash });
  return json(200, { meta: page.meta, objects: page.items.map(present) });
}

/** An id not yet used in `collection`; ids are random, so a clash only repeats the draw. */
export function freshId(collection: ReadonlyMap<string, unknown>, make: () => string): string {
  let id = make();
  while (collection.has(id)) id = make();
  return id;
}

/** Production trunking timestamps are ISO 8601 in UTC to the second (`2026-08-23T19:57:52Z`, production's documentation). */
export function secondsTimestamp(runtime: Runtime): string {
  return runtime.nowIso().replace(/\.\d{3}Z$/, 'Z');
}

/** Length in characters (code points), not UTF-16 units, for the spec's length limits. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}
