// serve's HTTP side: probes (`/healthz`, `/readyz`), Prometheus metrics (`/metrics`), the status
// page (`/`, `/accounts/NAME`, read-only) and the callback receiver (`/callbacks/NAME`, or
// `/callbacks` for every account: the URL to give brands and campaigns as `url`). A callback is
// answered at once — the registry is not kept waiting for serve's read — after its signature was
// checked with the account's token; its payload only names which object to re-read.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { catalog, type KindCatalog } from '../resources/index.js';
import { TelformError } from '../util/errors.js';
import type { Logger } from './logger.js';
import type { ServeMetrics } from './metrics.js';
import type { RegistryKind } from './model.js';
import type { ServeService } from './service.js';
import { NonceMemory, hasSignature, unsignedReason, verifyCallbackSignature } from './signature.js';
import { renderAccountPage, renderFleetPage } from './status-page.js';
import type { QueueSnapshot } from './queue-view.js';

export interface ServerOptions {
  service: ServeService;
  metrics: ServeMetrics;
  logger: Logger;
  now: () => number;
  version: string;
  /**
   * The base URL the API calls back (scheme, host, port, any path prefix), when serve sits behind a
   * proxy; otherwise the request's own Host header names it.
   */
  publicUrl?: string;
  /** With a queue: this replica's name and the fleet view's latest reading of the queue. */
  replica?: string;
  queue?: () => QueueSnapshot | undefined;
}

/** A callback body larger than this is refused unread (the registry's are a few hundred bytes). */
const callbackBodyLimit = 64 * 1024;

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startServer(
  options: ServerOptions,
  listen: { host: string; port: number },
): Promise<RunningServer> {
  const nonces = new NonceMemory();
  const server = createServer((request, response) => {
    handle(options, nonces, request, response).catch((error: unknown) => {
      options.logger.log('error', 'request failed', {
        path: pathOf(request),
        error: error instanceof Error ? error.message : String(error),
      });
      if (!response.headersSent) send(response, 500, 'application/json', JSON.stringify({ error: 'internal error' }));
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'the port is in use'
          : error.code === 'EADDRNOTAVAIL'
            ? "the address is not one of this machine's"
            : (error.code ?? error.message);
      reject(
        new TelformError(
          'serve_listen_failed',
          `cannot listen on ${listen.host}:${listen.port}: ${why}; choose another with --listen HOST:PORT`,
        ),
      );
    };
    server.once('error', failed);
    server.listen(listen.port, listen.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function pathOf(request: IncomingMessage): string {
  return (request.url ?? '/').split('?')[0] ?? '/';
}

async function handle(
  options: ServerOptions,
  nonces: NonceMemory,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = pathOf(request);
  const method = request.method ?? 'GET';
  const callback = /^\/callbacks(?:\/([^/]+))?\/?$/.exec(path);
  if (callback)
    return receiveCallback(
      options,
      nonces,
      callback[1] === undefined ? undefined : safeDecode(callback[1]),
      request,
      response,
    );
  if (method !== 'GET' && method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return send(
      response,
      405,
      'application/json',
      JSON.stringify({ error: `${method} is not allowed here; the pages are read-only` }),
    );
  }
  const { service } = options;
  if (path === '/healthz') return send(response, 200, 'application/json', JSON.stringify({ status: 'ok' }));
  if (path === '/readyz') {
    return service.ready
      ? send(response, 200, 'application/json', JSON.stringify({ status: 'ready' }))
      : send(response, 503, 'application/json', JSON.stringify({ status: 'not ready' }));
  }
  if (path === '/metrics') return send(response, 200, options.metrics.contentType, await options.metrics.render());
  const queue = options.queue?.();
  const context = {
    fleet: service.fleet,
    now: options.now(),
    applyMode: service.applyMode,
    version: options.version,
    ...(options.replica === undefined ? {} : { replica: options.replica }),
    ...(queue === undefined ? {} : { queue }),
  };
  if (path === '/') return send(response, 200, 'text/html; charset=utf-8', renderFleetPage(context));
  const account = /^\/accounts\/([^/]+)\/?$/.exec(path);
  const page = account ? renderAccountPage(context, safeDecode(account[1] as string)) : undefined;
  if (page !== undefined) return send(response, 200, 'text/html; charset=utf-8', page);
  return send(response, 404, 'application/json', JSON.stringify({ error: 'not found' }));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // The page has no script and loads nothing: say so, so an injected one could not run either.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/**
 * `/callbacks/NAME` names the account; plain `/callbacks` lets one URL serve every account (one value
 * in the accounts file's defaults): the account is the one that manages the object the payload
 * names, and its token must have signed the callback. An object no account manages costs nothing.
 */
async function receiveCallback(
  options: ServerOptions,
  nonces: NonceMemory,
  named: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { service, logger, metrics } = options;
  const refuse = (status: number, result: string, reason: string): void => {
    metrics.callback(result);
    logger.log('warn', 'callback refused', {
      account: named?.slice(0, 80) ?? null,
      result,
      reason,
      remote: request.socket.remoteAddress ?? null,
    });
    send(response, status, 'application/json', JSON.stringify({ error: reason }));
  };
  const method = request.method ?? 'GET';
  if (method !== 'POST' && method !== 'GET')
    return refuse(405, 'bad_method', `${method} is not a callback method (POST or GET)`);
  const body = method === 'POST' ? await readBody(request) : '';
  if (body === undefined) return refuse(413, 'too_large', `the body is over ${callbackBodyLimit} bytes`);
  const calledUrl = `${(options.publicUrl ?? `http://${request.headers.host ?? 'localhost'}`).replace(/\/$/, '')}${request.url ?? '/'}`;
  // The signature is checked before anything the payload names is looked up: whoever cannot sign
  // gets the same answer for an object serve manages and one it does not (no enumerating ids).
  if (!hasSignature(request.headers)) return refuse(403, 'bad_signature', unsignedReason);
  if (named !== undefined && !service.worker(named))
    return refuse(404, 'unknown_account', 'no such account in this serve');
  const candidates = named !== undefined ? [named] : service.accountNames();
  let nonce: string | undefined;
  let reason = unsignedReason;
  const signers: string[] = [];
  for (const name of candidates) {
    const verdict = verifyCallbackSignature(
      { url: calledUrl, headers: request.headers },
      service.worker(name)?.authToken ?? '',
    );
    if (verdict.ok) {
      nonce = verdict.nonce;
      signers.push(name);
    } else reason = verdict.reason;
  }
  if (nonce === undefined)
    return refuse(
      403,
      'bad_signature',
      named !== undefined
        ? reason
        : 'the signature matches no account of this serve (wrong token, altered URL, or forged)',
    );
  const target = callbackTarget(
    method === 'GET' ? new URL(calledUrl).searchParams : parseBody(body, request.headers['content-type']),
  );
  if (!target) return refuse(400, 'unreadable', 'the payload names no brand, campaign or number');
  // Accounts sharing a token (sub-accounts of one parent would not) all signed it: the one that manages the object is meant.
  // With a queue, another replica may have been the one to read the object: one signer is enough.
  const account =
    named ??
    signers.find((name) => service.fleet.findRegistry(name, target.kind, target.id) !== undefined) ??
    (service.shared && signers.length === 1 ? signers[0] : undefined);
  if (account === undefined)
    return refuse(404, 'unknown_object', `no account of this serve manages ${target.kind} ${target.id}`);
  if (!nonces.admit(nonce)) return refuse(409, 'replayed', 'this signature nonce was already used');
  metrics.callback('accepted');
  const outcome = service.hint(account, target.kind, target.id);
  logger.log('info', 'callback received', {
    account,
    kind: target.kind,
    id: target.id,
    status: target.status,
    outcome,
  });
  send(response, 200, 'application/json', JSON.stringify({ status: 'received' }));
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > callbackBodyLimit) over = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** A JSON or form body as string fields; anything else as none. */
function parseBody(body: string, contentType: string | undefined): URLSearchParams {
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) return new URLSearchParams(body);
  const fields = new URLSearchParams();
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') fields.set(key, value);
    }
  } catch {
    // Not JSON: no fields, so the callback names nothing.
  }
  return fields;
}

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Which object a callback is about (only an id of a plausible form; the payload is never trusted
 * further), as the kinds of `kinds` that declare a `registry` say their callbacks name them.
 */
export function callbackTarget(
  fields: URLSearchParams,
  kinds: KindCatalog = catalog,
): { kind: RegistryKind; id: string; status: string | undefined } | undefined {
  const type = fields.get('type') ?? '';
  const status = fields.get('status')?.slice(0, 40);
  const registered = kinds.kinds.flatMap((kind) =>
    kind.registry ? [{ kind: kind.name, callback: kind.registry.callback }] : [],
  );
  const pick = ({ kind, callback }: (typeof registered)[number]) => {
    const value = fields.get(callback.idField);
    const id = value === null ? undefined : (callback.id?.(value) ?? value);
    return id !== undefined && idPattern.test(id) ? { kind, id, status } : undefined;
  };
  const typed = registered.find(({ callback }) => callback.types.includes(type));
  if (typed) return pick(typed);
  // Without a known type: the most specific id it carries (the kind last in the catalog).
  for (const candidate of registered.reverse()) {
    if (!candidate.callback.untyped) continue;
    const target = pick(candidate);
    if (target) return target;
  }
  return undefined;
}
