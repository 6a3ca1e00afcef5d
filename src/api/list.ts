import { TelformError } from '../util/errors.js';
import type { ApiClient } from './client.js';
import { ApiRequestError, PartialListError } from './errors.js';

/** The page size is the API's maximum. */
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
  meta?: { total_count?: unknown; next?: unknown } | null;
  [key: string]: unknown;
}

/** Reads of a list that changes while it is read, before settling for one that only grew. */
const maxReads = 4;

/**
 * Reads a whole list: the first page, then every other page concurrently once the total is known
 * (`meta.total_count`, or the `count` of an answer without `meta`; the shared limiter bounds the
 * concurrency). Items are de-duplicated by id. A list that
 * cannot be read whole — a page failed, or fewer items came back than the total said — is an
 * error, never a partial view (docs/state-and-safety.md, safety). A list that changed while it was read is read
 * again; one that keeps changing only by growing (this run's own parallel creates land while it is
 * read) is not short: every item counted at the start came back, so the last read is used.
 * Lists without a total (10DLC, profiles), or without paging fields, are read page after page.
 */
export async function listAll<T>(client: ApiClient, path: string, options: ListOptions<T>): Promise<T[]> {
  try {
    let first = await readPage(client, path, options, 0);
    if (totalOf(first) === undefined) return await followNextLinks(client, path, options, first);
    for (let read = 1; ; read += 1) {
      const total = totalOf(first);
      if (total === undefined) throw new PartialListError(path, 'a later read has no total');
      const result = await readByOffsets(client, path, options, first, total);
      if (result.complete || (read === maxReads && result.grewOnly)) return result.items;
      if (read === maxReads) {
        throw new PartialListError(path, `came back short: ${result.items.length} of ${total} items`, {
          received: result.items.length,
          total_count: total,
        });
      }
      first = await readPage(client, path, options, 0);
    }
  } catch (error) {
    if (error instanceof PartialListError) throw error;
    // Wrong credentials are not a list problem; the 401 says what to fix. A 403 is a product the
    // account does not have: the caller decides whether the run needs it.
    if (error instanceof ApiRequestError && (error.status === 401 || error.status === 403)) throw error;
    if (error instanceof TelformError) throw new PartialListError(path, error.message);
    throw error;
  }
}

/** The number of items in the whole list, where the answer says: `meta.total_count`, or `count` beside the items when there is no `meta`. */
function totalOf(page: PageBody): number | undefined {
  const meta = page.meta && typeof page.meta === 'object' ? page.meta : undefined;
  if (meta) return typeof meta.total_count === 'number' ? meta.total_count : undefined;
  return typeof page.count === 'number' ? page.count : undefined;
}

async function readByOffsets<T>(
  client: ApiClient,
  path: string,
  options: ListOptions<T>,
  first: PageBody,
  total: number,
): Promise<{ items: T[]; complete: boolean; grewOnly: boolean }> {
  // A list may answer fewer items per page than asked (production's 10DLC lists answer 10): the
  // offsets step by what the first page held.
  const firstItems = itemsOf<T>(first, options.itemsKey, path);
  const step = firstItems.length > 0 ? Math.min(firstItems.length, pageSize) : pageSize;
  const offsets: number[] = [];
  for (let offset = step; offset < total; offset += step) offsets.push(offset);
  const pages = await Promise.all(offsets.map((offset) => readPage(client, path, options, offset)));
  const totals = pages.map(totalOf);
  const changed = totals.some((count) => count !== total);
  const items = dedupe(
    [first, ...pages].flatMap((page) => itemsOf<T>(page, options.itemsKey, path)),
    options.idOf,
  );
  const grewOnly = totals.every((count) => typeof count === 'number' && count >= total) && items.length >= total;
  return { items, complete: !changed && items.length >= total, grewOnly };
}

/**
 * Lists without a total (10DLC and profile lists), or without paging fields at all: pages are read one
 * after the other, following `meta.next` where the answer gives one, else by offset, advanced by the
 * number of items each page held (production may answer 10 or 2 per page whatever was asked). The list
 * ends on an explicit null `next`, an empty page, or a page that brings nothing new; a short page alone
 * is not the end. A `next` may be relative, with or without its leading slash, or absolute: only its
 * path and query are used, always on the client's own endpoint.
 */
async function followNextLinks<T>(
  client: ApiClient,
  path: string,
  options: ListOptions<T>,
  first: PageBody,
): Promise<T[]> {
  const items: T[] = [];
  const ids = new Set<string>();
  const seen = new Set<string>();
  let page = first;
  let offset = 0;
  for (;;) {
    const pageItems = itemsOf<T>(page, options.itemsKey, path);
    if (pageItems.length === 0) break;
    const fresh = pageItems.filter((item) => !ids.has(options.idOf(item)));
    // A page of items already read (an offset the API ignores) would repeat for ever.
    if (fresh.length === 0) throw new PartialListError(path, `the page at offset ${offset} repeats items already read`);
    for (const item of fresh) ids.add(options.idOf(item));
    items.push(...pageItems);
    const meta = page.meta && typeof page.meta === 'object' ? page.meta : undefined;
    const next = meta && 'next' in meta ? meta.next : undefined;
    if (next === null || next === '') break;
    offset += pageItems.length;
    if (typeof next === 'string') {
      const link = pathOfLink(next);
      if (seen.has(link)) throw new PartialListError(path, `the next link repeats (${link})`);
      seen.add(link);
      // The next page waits for this one: it goes ahead of the pages of lists read all at once.
      page = (await client.request<PageBody>('GET', link, { mode: 'read', urgent: true })).body;
    } else {
      page = await readPage(client, path, options, offset, true);
    }
    if (!page || typeof page !== 'object') throw new PartialListError(path, 'the response has no body');
  }
  return dedupe(items, options.idOf);
}

/** The path and query of a `next` link; an absolute URL keeps only those (never another host). */
function pathOfLink(link: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(link)) return link;
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

async function readPage<T>(
  client: ApiClient,
  path: string,
  options: ListOptions<T>,
  offset: number,
  urgent = false,
): Promise<PageBody> {
  const response = await client.request<PageBody>('GET', path, {
    mode: 'read',
    query: { ...options.query, limit: pageSize, offset },
    urgent,
  });
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
