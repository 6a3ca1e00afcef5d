import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate } from './auth.js';
import { ApiError, errorBody, readJsonBody, type JsonObject, type Reply } from './http.js';
import { Router, matchSegments, segmentsOf } from './router.js';
import type { Runtime } from './runtime.js';
import { adminRoutes } from './routes/admin.js';
import { accountRoutes } from './routes/index.js';

const accountPathPattern = /^\/v1\/Account\/([^/]+)(\/.*)?$/;

/**
 * The emulator's HTTP server: admin routes under `/__emulator/` (no auth; the emulator listens on
 * loopback), account routes under `/v1/Account/{auth_id}/` behind Basic auth. Every request is
 * recorded in the request log.
 */
export class EmulatorServer {
  private readonly router = new Router(accountRoutes);
  private readonly server: Server;

  constructor(private readonly runtime: Runtime) {
    this.server = createServer((request, response) => {
      void this.handle(request, response);
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

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(request.url ?? '/', 'http://emulator.invalid');
    const method = request.method ?? 'GET';
    let account: string | null = null;
    let reply: Reply;
    try {
      if (url.pathname.startsWith('/__emulator/')) {
        reply = await this.handleAdmin(method, url, request);
      } else {
        const match = accountPathPattern.exec(url.pathname);
        if (!match) throw new ApiError(404, 'not found');
        const pathAuthId = decodeURIComponent(match[1] as string);
        const state = authenticate(this.runtime.state, pathAuthId, request.headers.authorization);
        account = state.authId;
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
      }
    } catch (error) {
      reply = replyForError(error);
    }
    send(response, reply);
    if (!url.pathname.startsWith('/__emulator/')) {
      this.runtime.log.record({
        at: this.runtime.nowIso(),
        type: 'request',
        account,
        method,
        path: url.pathname,
        query: url.search,
        status: reply.status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
    }
  }

  private async handleAdmin(method: string, url: URL, request: IncomingMessage): Promise<Reply> {
    const segments = segmentsOf(url.pathname);
    let pathKnown = false;
    for (const route of adminRoutes) {
      const params = matchSegments(segmentsOf(route.path), segments);
      if (!params) continue;
      pathKnown = true;
      if (route.method !== method) continue;
      const body: JsonObject = await readJsonBody(request);
      return route.handle({ params, query: url.searchParams, body, runtime: this.runtime });
    }
    if (pathKnown) throw new ApiError(405, `method ${method} is not allowed on this resource`);
    throw new ApiError(404, 'not found');
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
