import { TelformError } from '../errors.js';
import type { ApiClient } from './client.js';
import { ApiRequestError, PartialListError } from './errors.js';

/** The page size is the API's maximum (api.md, Shared conventions). */
export const pageSize = 20;

export interface ListOptions<T> {
  /** Key of the items array: `objects`, `brands`, `campaigns`, `profiles`. */
  itemsKey: string;
  /** Identity of an item, for de-duplication across pages. */
  idOf: (item: T) => string;
  /** Filters sent with every page. */
  query?: Record<string, string | number | boolean | undefined>;
}

interface PageBody {
  meta?: { total_count?: unknown; next?: unknown };
  [key: string]: unknown;
}

/**
 * Reads a whole list: the first page, then every other page concurrently once `total_count` is
 * known (the shared limiter bounds the concurrency). Items are de-duplicated by id. A list that
 * cannot be read whole — a page failed, or fewer items came back than `total_count` said — is an
 * error, never a partial view (DESIGN.md section 6); a list that changed while it was read is read
 * once more before giving up. Lists without `total_count` (profiles) follow `meta.next`.
 */
export async function listAll<T>(client: ApiClient, path: string, options: ListOptions<T>): Promise<T[]> {
  try {
    const first = await readPage(client, path, options, 0);
    const total = first.meta?.total_count;
    if (typeof total !== 'number') return await followNextLinks(client, path, options, first);
    const result = await readByOffsets(client, path, options, first, total);
    if (result.complete) return result.items;
    const again = await readPage(client, path, options, 0);
    const retotal = again.meta?.total_count;
    if (typeof retotal !== 'number') throw new PartialListError(path, 'the second read has no total_count');
    const retry = await readByOffsets(client, path, options, again, retotal);
    if (retry.complete) return retry.items;
    throw new PartialListError(path, `came back short: ${retry.items.length} of ${retotal} items`, {
      received: retry.items.length,
      total_count: retotal,
    });
  } catch (error) {
    if (error instanceof PartialListError) throw error;
    // Wrong credentials are not a list problem; the 401 says what to fix.
    if (error instanceof ApiRequestError && error.status === 401) throw error;
    if (error instanceof TelformError) throw new PartialListError(path, error.message);
    throw error;
  }
}

async function readByOffsets<T>(
  client: ApiClient,
  path: string,
  options: ListOptions<T>,
  first: PageBody,
  total: number,
): Promise<{ items: T[]; complete: boolean }> {
  const offsets: number[] = [];
  for (let offset = pageSize; offset < total; offset += pageSize) offsets.push(offset);
  const pages = await Promise.all(offsets.map((offset) => readPage(client, path, options, offset)));
  const changed = pages.some((page) => page.meta?.total_count !== total);
  const items = dedupe([first, ...pages].flatMap((page) => itemsOf<T>(page, options.itemsKey, path)), options.idOf);
  return { items, complete: !changed && items.length >= total };
}

async function followNextLinks<T>(client: ApiClient, path: string, options: ListOptions<T>, first: PageBody): Promise<T[]> {
  const items = itemsOf<T>(first, options.itemsKey, path);
  let next = first.meta?.next;
  const seen = new Set<string>();
  while (typeof next === 'string' && next !== '') {
    if (seen.has(next)) throw new PartialListError(path, `the next link repeats (${next})`);
    seen.add(next);
    const page = (await client.get<PageBody>(next)).body;
    items.push(...itemsOf<T>(page, options.itemsKey, path));
    next = page.meta?.next;
  }
  return dedupe(items, options.idOf);
}

async function readPage<T>(client: ApiClient, path: string, options: ListOptions<T>, offset: number): Promise<PageBody> {
  const response = await client.get<PageBody>(path, { ...options.query, limit: pageSize, offset });
  if (!response.body || typeof response.body !== 'object') throw new PartialListError(path, 'the response has no body');
  return response.body;
}

function itemsOf<T>(page: PageBody, key: string, path: string): T[] {
  const items = page[key];
  if (!Array.isArray(items)) throw new PartialListError(path, `the response has no "${key}" array`);
  return items as T[];
}

function dedupe<T>(items: T[], idOf: (item: T) => string): T[] {
  const byId = new Map<string, T>();
  for (const item of items) byId.set(idOf(item), item);
  return [...byId.values()];
}
