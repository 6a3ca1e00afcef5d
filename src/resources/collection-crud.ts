import { cannotTell, createWithRecovery, deleteIdempotent } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import {
  createdId,
  itemPath,
  listRecords,
  readRecord,
  text,
  type ApiRecord,
  type CreateAnswer,
} from './api-records.js';
import type { LiveContext, LiveObject, LiveSide, ResolvedSpec, UpdateRequest } from './live-side.js';

/**
 * Writing through the API the way the kinds share: creates that survive a lost response (looked up
 * by natural key before anything is sent again), idempotent deletes, bodies of partial updates,
 * and `collectionLive`, the whole read/create/update/delete of a simple collection (the trunking
 * kinds).
 */

/** The fields of `spec` named in `fields` that hold a value, as a request body. */
export function pick(spec: ResolvedSpec, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = spec[field];
    if (value !== undefined && value !== null) out[field] = value;
  }
  return out;
}

/**
 * Sends a create that is never duplicated (docs/commands.md, connecting to the API): when its response is lost,
 * `recover` looks the object up (by natural key) and adopts it before anything is sent again.
 */
export async function createOnce(
  context: LiveContext,
  path: string,
  body: Record<string, unknown>,
  answer: CreateAnswer,
  recover: () => Promise<LiveObject | typeof cannotTell | undefined>,
): Promise<{ id: string }> {
  const outcome = await createWithRecovery<unknown>(context.client, path, body, recover);
  if (outcome.kind === 'recovered') return { id: (outcome.found as LiveObject).id };
  return { id: createdId(outcome.response.body, answer, path) };
}

/** Deletes by path; an object already gone (404, also on a retry after a lost answer) is done. */
export async function deleteAt(context: LiveContext, path: string): Promise<void> {
  await deleteIdempotent(context.client, path);
}

/**
 * The object a lost create made, among `objects`: the one whose natural key is `key`. Two or more
 * candidates are narrowed to those whose `compare` fields equal the spec that was sent; if that
 * still leaves several, nothing tells which one this create made, so it is an error naming them
 * (never a silent pick, docs/state-and-safety.md, safety).
 */
export function findCreated(
  objects: readonly LiveObject[],
  naturalKey: (spec: Record<string, unknown>) => string | undefined,
  spec: ResolvedSpec,
  compare: readonly string[],
  kind: string,
): LiveObject | typeof cannotTell | undefined {
  const key = naturalKey(spec);
  if (key === undefined) return undefined;
  const candidates = objects.filter((object) => naturalKey(object.spec) === key);
  // Objects read without their name (rows that leave it out) might be the one: absence is not proven.
  if (candidates.length === 0)
    return objects.some((object) => naturalKey(object.spec) === undefined) ? cannotTell : undefined;
  if (candidates.length === 1) return candidates[0];
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
  /** Members a create answer may nest the new object under (the kind's name); the id field is also read in camelCase. */
  createdUnder: readonly string[];
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
export function collectionLive(
  options: CollectionLiveOptions,
): Pick<LiveSide, 'naturalKey' | 'list' | 'read' | 'createAnswer' | 'create' | 'update' | 'delete'> {
  const createAnswer: CreateAnswer = { idField: options.idField, under: options.createdUnder };
  const naturalKey = (spec: Record<string, unknown>): string | undefined => text(spec['name']);
  const list = async (context: LiveContext): Promise<LiveObject[]> =>
    (await listRecords(context.client, options.collection, options.idField)).map((raw) => options.normalise(raw));
  return {
    naturalKey,
    list,
    createAnswer,
    read: async (context, id) => {
      const raw = await readRecord(context.client, itemPath(options.collection, id));
      return raw && options.normalise(raw);
    },
    create: (context, spec) =>
      createOnce(context, options.collection, pick(spec, options.createFields), createAnswer, async () =>
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
