import { ApiError } from './http.js';

/**
 * Offset pagination of every list endpoint (the API reference, Shared conventions): `limit` 1–20 (default
 * 20), `offset` ≥ 0 (default 0), `meta` with `limit`, `offset`, `total_count` and relative
 * `previous`/`next` links (or null). Out-of-range values are a 400.
 */
export interface PageMeta {
  limit: number;
  offset: number;
  total_count: number;
  previous: string | null;
  next: string | null;
}

export interface Page<T> {
  meta: PageMeta;
  items: T[];
}

export interface PaginateOptions {
  /**
   * Production writes trunking links without the leading slash and 10DLC/Profile links with it
   * (production's documentation); the emulator mirrors that so clients must be tolerant.
   */
  leadingSlash: boolean;
}

export function readPageBounds(query: URLSearchParams): { limit: number; offset: number } {
  const limit = readInteger(query, 'limit', 20);
  const offset = readInteger(query, 'offset', 0);
  if (limit < 1 || limit > 20) throw new ApiError(400, 'limit must be an integer from 1 to 20');
  if (offset < 0) throw new ApiError(400, 'offset must be a non-negative integer');
  return { limit, offset };
}

function readInteger(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ApiError(400, `${name} must be an integer`);
  return Number(raw);
}

/**
 * Cuts one page out of `items` (already filtered) and builds `meta`. `listPath` is the absolute
 * path of the list (`/v1/Account/X/Zentrunk/Trunk/`); filters other than limit/offset are kept in
 * the links.
 */
export function paginate<T>(
  items: readonly T[],
  query: URLSearchParams,
  listPath: string,
  options: PaginateOptions,
): Page<T> {
  const { limit, offset } = readPageBounds(query);
  const total = items.length;
  const link = (linkOffset: number): string => {
    const params = new URLSearchParams();
    for (const [key, value] of query) if (key !== 'limit' && key !== 'offset') params.append(key, value);
    params.set('limit', String(limit));
    params.set('offset', String(linkOffset));
    const path = options.leadingSlash ? listPath : listPath.replace(/^\//, '');
    return `${path}?${params.toString()}`;
  };
  return {
    meta: {
      limit,
      offset,
      total_count: total,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      next: offset + limit < total ? link(offset + limit) : null,
    },
    items: items.slice(offset, offset + limit),
  };
}
