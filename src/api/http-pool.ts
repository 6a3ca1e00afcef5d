// Keep-alive connections to one origin on Node's own http and https modules: at most `connections`
// sockets (further requests wait for one), idle sockets closed after `keepAliveMs` or sooner when the
// server announces a shorter keep-alive. Node's built-in modules load from its code cache, where an
// HTTP library from npm would be compiled at every start of the CLI.
import http from 'node:http';

interface HttpPoolOptions {
  /** Sockets open at most; further requests wait for a free one. */
  connections: number;
  /** How long an idle socket is kept for the next request, ms. */
  keepAliveMs: number;
}

interface PoolRequest {
  method: string;
  /** Absolute path with its query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Longest silence allowed, ms: to connect, then before the answer's headers, then between parts of
   * its body. A silence this long ends the request with a `*_TIMEOUT` code.
   */
  timeoutMs: number;
  /**
   * The requests in flight of the sender: `send` adds one function that ends this request at once
   * (it then rejects with the error given) and removes it when the request settles. A listener on an
   * AbortSignal per request would cost about a tenth of the request's CPU.
   */
  inFlight: Set<(error: Error) => void>;
}

interface PoolResponse {
  status: number;
  /** The `retry-after` header, the only one the client reads. */
  retryAfter: string | undefined;
  text: string;
}

/** The `retry-after` of raw headers (name, value, name, value, ...): Node builds its headers object only when asked. */
function retryAfterOf(rawHeaders: readonly string[]): string | undefined {
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === 'retry-after') return rawHeaders[index + 1];
  }
  return undefined;
}

/** The connection failed in a way Node's errors do not name: a silence too long (see `PoolRequest.timeoutMs`). */
class SilenceError extends Error {
  constructor(
    readonly code: 'CONNECT_TIMEOUT' | 'HEADERS_TIMEOUT' | 'BODY_TIMEOUT',
    timeoutMs: number,
  ) {
    super(
      `no ${code === 'CONNECT_TIMEOUT' ? 'connection' : code === 'HEADERS_TIMEOUT' ? 'answer' : 'further body'} within ${timeoutMs} ms`,
    );
    this.name = 'SilenceError';
  }
}

export class HttpPool {
  readonly #agent: http.Agent;
  readonly #send: typeof http.request;
  readonly #hostname: string;
  readonly #port: number | undefined;
  /** Requests not yet settled, so `close` can let them finish. */
  readonly #inFlight = new Set<Promise<unknown>>();

  /** `origin`: `http://host:port` or `https://host`. */
  constructor(origin: string, options: HttpPoolOptions) {
    const url = new URL(origin);
    const secure = url.protocol === 'https:';
    const agentOptions = {
      keepAlive: true,
      // TCP keep-alive probes on an idle socket after a minute, not Node's default second.
      keepAliveMsecs: 60_000,
      maxSockets: options.connections,
      maxFreeSockets: options.connections,
      timeout: options.keepAliveMs,
    };
    // TLS is loaded only for an https endpoint: a run against the local emulator does without it.
    const transport = secure ? process.getBuiltinModule('node:https') : http;
    this.#agent = new transport.Agent(agentOptions);
    this.#send = transport.request;
    // An IPv6 literal comes bracketed in a URL; the socket wants the bare address.
    this.#hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#port = url.port === '' ? undefined : Number(url.port);
  }

  /** Sockets open now, idle or busy. */
  get openSockets(): number {
    let count = 0;
    for (const list of Object.values(this.#agent.sockets)) count += list?.length ?? 0;
    for (const list of Object.values(this.#agent.freeSockets)) count += list?.length ?? 0;
    return count;
  }

  /**
   * Sends one request and reads its whole answer. Rejects with Node's error (its `code`: ECONNREFUSED,
   * ECONNRESET, ...), with a `SilenceError`, or with the error an `inFlight` function is called with.
   */
  send(request: PoolRequest): Promise<PoolResponse> {
    let end: ((error: Error) => void) | undefined;
    const answer = new Promise<PoolResponse>((resolve, reject) => {
      let answered = false;
      const outgoing = this.#send(
        {
          agent: this.#agent,
          hostname: this.#hostname,
          ...(this.#port === undefined ? {} : { port: this.#port }),
          method: request.method,
          path: request.path,
          headers:
            request.body === undefined
              ? request.headers
              : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          timeout: request.timeoutMs,
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            // Most answers come in one chunk: decoded as it is, without a copy.
            const text =
              chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
            resolve({ status: response.statusCode ?? 0, retryAfter: retryAfterOf(response.rawHeaders), text });
          });
        },
      );
      outgoing.on('timeout', () => {
        const code =
          outgoing.socket?.connecting === true ? 'CONNECT_TIMEOUT' : answered ? 'BODY_TIMEOUT' : 'HEADERS_TIMEOUT';
        const silence = new SilenceError(code, request.timeoutMs);
        // Settled first: destroying the request also fails the response with an error of its own.
        reject(silence);
        outgoing.destroy(silence);
      });
      outgoing.on('error', reject);
      end = (error) => {
        reject(error);
        outgoing.destroy(error);
      };
      if (request.body === undefined) outgoing.end();
      else outgoing.end(request.body);
    });
    if (end) request.inFlight.add(end);
    this.#inFlight.add(answer);
    const forget = () => {
      this.#inFlight.delete(answer);
      if (end) request.inFlight.delete(end);
    };
    answer.then(forget, forget);
    return answer;
  }

  /** Lets the requests in flight finish, then closes every socket. */
  async close(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    this.#agent.destroy();
  }

  /** Closes every socket at once; requests in flight fail. */
  destroy(): void {
    this.#agent.destroy();
  }
}
