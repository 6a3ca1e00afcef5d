import { ApiError, type JsonObject, type Reply } from './http.js';
import type { AccountState } from './state.js';
import type { Runtime } from './runtime.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RouteContext {
  account: AccountState;
  /** Path parameters named in the route's pattern (`:credential_uuid` → `params.credential_uuid`). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body; `{}` when there is none. DELETE arguments may come in the query or the body. */
  body: JsonObject;
  /** `/v1/Account/{auth_id}`, for `resource_uri` and pagination links. */
  accountBase: string;
  runtime: Runtime;
}

/** A route of the account API, relative to `/v1/Account/{auth_id}`. */
export interface Route {
  method: Method;
  /**
   * Pattern with a trailing slash, e.g. `/SipAuth/Credential/:credential_uuid/`. Trunking routes
   * are written with `Zentrunk`; the router serves `Trunking` too (as the API reference writes it).
   */
  path: string;
  /** True when the route changes state: the change is persisted before the response is sent. */
  writes?: boolean;
  handle(context: RouteContext): Reply | Promise<Reply>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  segments: string[];
}

/** Splits a path into segments, treating `Trunking` as the production `Zentrunk`. */
export function segmentsOf(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments[0] === 'Trunking') segments[0] = 'Zentrunk';
  return segments;
}

export class Router {
  private readonly compiled: CompiledRoute[] = [];

  constructor(routes: readonly Route[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`emulator route registered twice: ${key}`);
      seen.add(key);
      this.compiled.push({ route, segments: segmentsOf(route.path) });
    }
  }

  /**
   * Finds the route for a method and a path relative to the account base. Unknown paths are 404;
   * a known path with another method is 405 (the API reference, Errors).
   */
  match(method: string, path: string): RouteMatch {
    const segments = segmentsOf(path);
    let pathKnown = false;
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      pathKnown = true;
      if (route.method === method) return { route, params };
    }
    if (pathKnown) throw new ApiError(405, `method ${method} is not allowed on this resource`);
    throw new ApiError(404, 'not found');
  }
}

/** A path segment with its percent-encoding undone; a malformed one (`%zz`) is the client's error, a 400. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, `the path segment "${segment}" is not valid percent-encoding`);
  }
}

export function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index += 1) {
    const expected = pattern[index] as string;
    const actual = segments[index] as string;
    if (expected.startsWith(':')) {
      params[expected.slice(1)] = decodePathSegment(actual);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/** What an admin route (under `/__emulator/`, no account, no auth) is given. */
export interface AdminRouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: JsonObject;
  runtime: Runtime;
}

/** A route of the emulator's own admin API, outside the account API. */
export interface AdminRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Full path, e.g. `/__emulator/requests/`. */
  path: string;
  handle(context: AdminRouteContext): Reply | Promise<Reply>;
}
