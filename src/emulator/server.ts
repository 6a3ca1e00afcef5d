import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setMaxListeners } from 'node:events';
import { authenticate } from './auth.js';
import type { Controls } from './controls.js';
import type { FaultKind } from './faults.js';
import { ApiError, errorBody, readJsonBody, type JsonObject, type Reply } from './http.js';
import { delay } from './latency.js';
import type { DataFileWriter } from './persistence.js';
import { checkProduct } from './products.js';
import { forbiddenListRefusal, variationOf } from './variation.js';
import type { RequestLogEntry } from './request-log.js';
import { Router, decodePathSegment, matchSegments, segmentsOf, type AdminRoute, type Route } from './router.js';
import type { Runtime } from './runtime.js';

const accountPathPattern = /^\/v1\/Account\/([^/]+)(\/.*)?$/;

export interface ServerParts {
  routes: readonly Route[];
  adminRoutes: readonly AdminRoute[];
  controls: Controls;
  /** Where writes are saved before they are acknowledged; null keeps the state in memory only. */
  store: DataFileWriter | null;
}

type LoggedFault = FaultKind | 'rate_limited';

/**
 * The emulator's HTTP server: admin routes under `/__emulator/` (no auth; the emulator listens on
 * loopback), account routes under `/v1/Account/{auth_id}/` behind Basic auth. Every account request
 * is recorded in the request log, with the fault injected into it if any.
 *
 * The pipeline of an account request, in order: latency; a `reset` fault (the connection is reset
 * before anything is read); authentication; the per-account rate limit (429 + `Retry-After`); an
 * `error500` fault (500, nothing handled); routing and the handler; for a write route, saving the
 * state (durable before acknowledgement); a `lost_response` fault (the connection is dropped after
 * the change was committed and saved); the response.
 */
export class EmulatorServer {
  private readonly router: Router;
  private readonly server: Server;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  constructor(
    private readonly runtime: Runtime,
    private readonly parts: ServerParts,
  ) {
    this.router = new Router(parts.routes);
    // Every request waiting out its latency listens for the close: dozens at once are normal, not a
    // leak (Node warns past 10 listeners on one signal).
    setMaxListeners(0, this.closing.signal);
    this.server = createServer((request, response) => {
      const handling = this.handle(request, response).catch((error: unknown) => {
        process.stderr.write(
          `emulator internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
        response.destroy();
      });
      this.inFlight.add(handling);
      void handling.finally(() => this.inFlight.delete(handling));
    });
    this.server.keepAliveTimeout = 30_000;
  }

  async listen(host: string, port: number): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  /** Stops accepting requests, drops every connection and waits for requests being handled to finish. */
  async close(): Promise<void> {
    this.closing.abort();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://emulator.invalid');
    const method = request.method ?? 'GET';
    if (url.pathname.startsWith('/__emulator/')) {
      send(response, await this.handleAdmin(method, url, request));
      return;
    }
    const started = performance.now();
    const log = (entry: {
      account: string | null;
      status: number | null;
      fault?: LoggedFault;
      note?: string;
    }): void => {
      const record: Omit<RequestLogEntry, 'seq'> = {
        at: this.runtime.nowIso(),
        type: 'request',
        account: entry.account,
        method,
        path: url.pathname,
        query: url.search,
        status: entry.status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      };
      if (entry.fault) record.fault = entry.fault;
      if (entry.note) record.note = entry.note;
      this.runtime.log.record(record);
    };

    const { controls } = this.parts;
    const latencyMs = controls.nextLatencyMs();
    if (latencyMs > 0) {
      await delay(latencyMs, this.closing.signal);
      if (this.closing.signal.aborted) {
        request.socket.destroy();
        return;
      }
    }
    const fault = controls.faults.draw(method);
    if (fault === 'reset') {
      request.socket.resetAndDestroy();
      // Not authenticated, but logged under the account its path names (if served) so that a test
      // reading one account's log sees its resets too.
      const named = accountPathPattern.exec(url.pathname)?.[1];
      const account = named !== undefined && this.runtime.state.accounts.has(named) ? named : null;
      log({ account, status: null, fault, note: 'connection reset before the request was handled' });
      return;
    }

    let account: string | null = null;
    let loggedFault: LoggedFault | undefined;
    let reply: Reply;
    try {
      const match = accountPathPattern.exec(url.pathname);
      if (!match) throw new ApiError(404, 'not found');
      const state = authenticate(
        this.runtime.state,
        decodePathSegment(match[1] as string),
        request.headers.authorization,
      );
      account = state.authId;
      const admission = controls.rateLimiter.settings
        ? controls.rateLimiter.admit(state.authId, this.runtime.now().getTime())
        : undefined;
      if (admission && !admission.admitted) {
        loggedFault = 'rate_limited';
        throw new ApiError(429, 'too many requests: the rate limit of this account is exceeded, retry later', {
          'Retry-After': String(admission.retryAfterSeconds),
        });
      }
      if (fault === 'error500') {
        loggedFault = fault;
        throw new ApiError(500, 'internal server error (injected fault)');
      }
      checkProduct(this.runtime.config.products, match[2] ?? '/');
      // An account's permissions may refuse one list (not a whole product): the variation chooses which.
      const forbidden = forbiddenListRefusal(variationOf(this.runtime.config, state), method, match[2] ?? '/');
      if (forbidden !== undefined) throw new ApiError(403, forbidden);
      const { route, params } = this.router.match(method, match[2] ?? '/');
      const body = await readJsonBody(request);
      reply = await route.handle({
        account: state,
        params,
        query: url.searchParams,
        body,
        accountBase: `/v1/Account/${state.authId}`,
        runtime: this.runtime,
      });
      if (route.writes) reply = await this.save(reply);
    } catch (error) {
      reply = replyForError(error);
    }
    if (fault === 'lost_response' && loggedFault === undefined) {
      request.socket.destroy();
      log({
        account,
        status: reply.status,
        fault,
        note: 'handled (and any change saved), then the connection was dropped unanswered',
      });
      return;
    }
    send(response, reply);
    log({ account, status: reply.status, ...(loggedFault ? { fault: loggedFault } : {}) });
  }

  /** Saves the state before a write is acknowledged; if that fails the client gets a 500, not a false success. */
  private async save(reply: Reply): Promise<Reply> {
    if (!this.parts.store) return reply;
    try {
      await this.parts.store.save();
      return reply;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      process.stderr.write(`emulator: could not save the state to ${this.parts.store.file}: ${code}\n`);
      return { status: 500, body: errorBody(`the emulator could not save its state (${code})`) };
    }
  }

  private async handleAdmin(method: string, url: URL, request: IncomingMessage): Promise<Reply> {
    try {
      const segments = segmentsOf(url.pathname);
      let pathKnown = false;
      for (const route of this.parts.adminRoutes) {
        const params = matchSegments(segmentsOf(route.path), segments);
        if (!params) continue;
        pathKnown = true;
        if (route.method !== method) continue;
        const body: JsonObject = await readJsonBody(request);
        const reply = await route.handle({ params, query: url.searchParams, body, runtime: this.runtime });
        // Admin changes (accounts, numbers, the clock) are state too; reads need no save.
        return method === 'GET' ? reply : await this.save(reply);
      }
      if (pathKnown) throw new ApiError(405, `method ${method} is not allowed on this resource`);
      throw new ApiError(404, 'not found');
    } catch (error) {
      return replyForError(error);
    }
  }
}

function replyForError(error: unknown): Reply {
  if (error instanceof ApiError) {
    return { status: error.status, body: errorBody(error.message), headers: error.headers };
  }
  // A bug in the emulator: say so in the body and on stderr rather than hiding it.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`emulator internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
  return { status: 500, body: errorBody(`internal emulator error: ${message}`) };
}

function send(response: ServerResponse, reply: Reply): void {
  if (response.destroyed) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    response.writeHead(reply.status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = Buffer.byteLength(text);
  response.writeHead(reply.status, headers);
  response.end(text);
}
