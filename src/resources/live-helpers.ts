import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import { createWithRecovery, deleteIdempotent } from '../api/writes.js';
import { TelformError } from '../errors.js';
import type { LiveContext, LiveObject, LiveSide, ResolvedSpec, UpdateRequest } from './live-side.js';

/**
 * Building blocks shared by the live sides of the kinds: reading the API's loosely typed records,
 * normalising them (DESIGN.md section 5: `""`, `null` and absent alike), whole-list reads, creates
 * that survive a lost response, and bodies of partial updates.
 */

/** A record as the API returns it; fields are read through the helpers below. */
export type ApiRecord = Record<string, unknown>;

/** A text field; `""`, `null` and anything else that is not a string count as absent. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A lower-cased text field, for enum values whose case production does not keep steady (DESIGN.md section 5). */
export function lowerText(value: unknown): string | undefined {
  return text(value)?.toLowerCase();
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

/** The fields of `spec` named in `fields` that hold a value, as a request body. */
export function pick(spec: ResolvedSpec, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = spec[field];
    if (value !== undefined && value !== null) out[field] = value;
  }
  return out;
}

/** `/Collection/{id}/`, the id encoded (ids come from the API, but never trusted as path text). */
export function itemPath(collection: string, id: string): string {
  return `${collection}${encodeURIComponent(id)}/`;
}

/** Every item of a paginated list with `objects` (trunking, SipAuth, applications, numbers), read whole. */
export function listRecords(context: LiveContext, path: string, idField: string): Promise<ApiRecord[]> {
  return listAll<ApiRecord>(context.client, path, {
    itemsKey: 'objects',
    idOf: (item) => String(item[idField]),
  });
}

/** One record by path; undefined when the API answers 404. */
export async function readRecord(context: LiveContext, path: string): Promise<ApiRecord | undefined> {
  try {
    const { body } = await context.client.get<unknown>(path);
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new TelformError('unexpected_response', `the API answered GET ${path} without a JSON object`);
    }
    return body as ApiRecord;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return undefined;
    throw error;
  }
}

/** The new object's id from a create response. */
export function idFromResponse(body: unknown, field: string, path: string): string {
  const value = body && typeof body === 'object' ? (body as ApiRecord)[field] : undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  throw new TelformError('unexpected_response', `the API answered POST ${path} without "${field}", so the new object cannot be tracked`);
}

/**
 * Sends a create that is never duplicated (DESIGN.md section 7): when its response is lost,
 * `recover` looks the object up (by natural key) and adopts it before anything is sent again.
 */
export async function createOnce(
  context: LiveContext,
  path: string,
  body: Record<string, unknown>,
  idField: string,
  recover: () => Promise<LiveObject | undefined>,
): Promise<{ id: string }> {
  const outcome = await createWithRecovery<unknown>(context.client, path, body, recover);
  if (outcome.kind === 'recovered') return { id: (outcome.found as LiveObject).id };
  return { id: idFromResponse(outcome.response.body, idField, path) };
}

/** Deletes by path; an object already gone (404, also on a retry after a lost answer) is done. */
export async function deleteAt(context: LiveContext, path: string): Promise<void> {
  await deleteIdempotent(context.client, path);
}

/**
 * The object a lost create made, among `objects`: the one whose natural key is `key`. Two or more
 * candidates are narrowed to those whose `compare` fields equal the spec that was sent; if that
 * still leaves several, nothing tells which one this create made, so it is an error naming them
 * (never a silent pick, DESIGN.md section 6).
 */
export function findCreated(
  objects: readonly LiveObject[],
  naturalKey: (spec: Record<string, unknown>) => string | undefined,
  spec: ResolvedSpec,
  compare: readonly string[],
  kind: string,
): LiveObject | undefined {
  const key = naturalKey(spec);
  if (key === undefined) return undefined;
  const candidates = objects.filter((object) => naturalKey(object.spec) === key);
  if (candidates.length <= 1) return candidates[0];
  const same = candidates.filter((object) => compare.every((field) => sameValue(object.spec[field], spec[field])));
  if (same.length === 1) return same[0];
  throw new TelformError(
    'ambiguous_create',
    `the answer to creating ${kind} "${key}" was lost and ${candidates.length} objects with that name exist (${candidates.map((object) => object.id).join(', ')}); telform cannot tell which one it made: delete the extra ones or record the right one with \`telform state\``,
  );
}

/** Equality of normalised values: `""`/null/absent alike, arrays as sets of their JSON members. */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(comparableValue(a)) === JSON.stringify(comparableValue(b));
}

function comparableValue(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) return value.map((item) => JSON.stringify(comparableValue(item))).sort();
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, comparableValue(record[key])] as const)
        .filter(([, item]) => item !== null),
    );
  }
  return value;
}

/**
 * The body of a partial update: each changed field with its desired value, `""` for a field the
 * manifest no longer sets (the API clears an optional field given `""`; absent would leave it as it
 * is), then the write-only fields to (re)send. Only fields in `updatable` are sent; the planner
 * never asks to update another.
 */
export function updateBody(request: UpdateRequest, updatable: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of request.changedFields) {
    if (!updatable.includes(field)) continue;
    const value = request.desired[field];
    body[field] = value === undefined || value === null ? '' : value;
  }
  for (const field of request.secretFields) {
    const value = request.desired[field];
    if (typeof value === 'string' && value !== '') body[field] = value;
  }
  return body;
}

/** What differs between the simple collections of the API (trunk ACLs, trunk credentials, URIs, trunks). */
export interface CollectionLiveOptions {
  /** The kind's name, for messages. */
  kind: string;
  /** Account-relative collection path, e.g. `/Zentrunk/URI/`. */
  collection: string;
  /** The id field of a record, e.g. `uri_uuid`. */
  idField: string;
  normalise(raw: ApiRecord): LiveObject;
  /** The spec fields a create sends. */
  createFields: readonly string[];
  /** Fields that tell namesakes apart when a lost create is looked up. */
  matchFields: readonly string[];
  /** The spec fields an update may send. */
  updatable: readonly string[];
  /** Last word on an update's body (e.g. a field the API needs alongside another). */
  completeUpdate?(body: Record<string, unknown>, request: UpdateRequest): void;
}

/**
 * Reading and writing a collection whose objects are matched by their `name`, created with one
 * POST (recovered by natural key after a lost answer), updated in place with only what changed and
 * deleted idempotently: the shape every trunking resource shares.
 */
export function collectionLive(options: CollectionLiveOptions): Pick<LiveSide, 'naturalKey' | 'list' | 'read' | 'create' | 'update' | 'delete'> {
  const naturalKey = (spec: Record<string, unknown>): string | undefined => text(spec['name']);
  const list = async (context: LiveContext): Promise<LiveObject[]> =>
    (await listRecords(context, options.collection, options.idField)).map((raw) => options.normalise(raw));
  return {
    naturalKey,
    list,
    read: async (context, id) => {
      const raw = await readRecord(context, itemPath(options.collection, id));
      return raw && options.normalise(raw);
    },
    create: (context, spec) =>
      createOnce(context, options.collection, pick(spec, options.createFields), options.idField, async () =>
        findCreated(await list(context), naturalKey, spec, options.matchFields, options.kind),
      ),
    update: async (context, request) => {
      const body = updateBody(request, options.updatable);
      options.completeUpdate?.(body, request);
      if (Object.keys(body).length === 0) return;
      await context.client.request('POST', itemPath(options.collection, request.id), { body, mode: 'idempotent' });
    },
    delete: (context, id) => deleteAt(context, itemPath(options.collection, id)),
  };
}
