import { setMaxListeners } from 'node:events';
import { TelformError } from '../util/errors.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Credentials } from './connection.js';
import {
  ApiRequestError,
  OutcomeUnknownError,
  RetriesExhaustedError,
  apiMessageOf,
  type RequestSummary,
} from './errors.js';
import { HttpPool } from './http-pool.js';
import { Limiter, defaultLimiterOptions } from './limiter.js';
import type { EndpointPools } from './pools.js';
import { redactSecrets, scrubSecrets, secretValuesOf } from './redact.js';
import { backoffDelay, defaultRetryPolicy, parseRetryAfter, type RetryPolicy } from './retry.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/**
 * How a request may be retried when its outcome is unknown (sent, then a reset, a timeout or a 5xx):
 * - `read`: a GET; always retried.
 * - `idempotent`: re-sending has the same effect (an update that sets values, a delete); retried.
 * - `create`: re-sending could duplicate; an unknown outcome is thrown as `OutcomeUnknownError` for
 *   the caller to reconcile by reading (see `createWithRecovery`).
 * - `billable`: never re-sent after it may have reached the API (a second campaign vetting review
 *   costs money); only a 429 is retried, since a rate-limited request is refused before processing.
 */
export type RetryMode = 'read' | 'idempotent' | 'create' | 'billable';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: Record<string, unknown>;
  mode?: RetryMode;
  /**
   * Sent ahead of the requests waiting for a slot: the next page of a list read page after page,
   * which nothing else can overlap, so it does not wait behind the pages of lists read at once.
   */
  urgent?: boolean;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  /** Shared by every request of a run (docs/commands.md, connecting to the API). */
  limiter?: Limiter;
  retry?: RetryPolicy;
  clock?: Clock;
  random?: () => number;
  /** `--log-http`: receives one line per request and per response, secrets redacted. */
  logHttp?: (line: string) => void;
  /**
   * How long one attempt may wait for an answer (headers, then each part of the body), ms; within
   * the retry policy's total budget, so a server that never answers fails within that budget.
   */
  timeoutMs?: number;
  /**
   * Told what a request that has not been answered for a while is waiting for (a terminal shows it
   * as a status line), and `undefined` once it is answered.
   */
  onSlow?: (status: string | undefined) => void;
  connections?: number;
  /**
   * Pools shared with other clients (serve: one per endpoint for every account); the client takes
   * its endpoint's and leaves it open on `close`. Without it the client has a pool of its own.
   */
  pools?: EndpointPools;
}

/** Connection errors that prove the request never reached the server: safe to re-send any write. */
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'CONNECT_TIMEOUT']);

/** The server was reached and dropped the connection: it took the request, then closed or reset it. */
const droppedCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** What a connection error says of the endpoint: never reached, reached and dropped, or something else on the way. */
function connectionWords(code: string, origin: string): string {
  if (notSentCodes.has(code)) return `cannot reach ${origin}`;
  if (droppedCodes.has(code)) return `${origin} closed the connection without answering`;
  return `talking to ${origin}`;
}

/** The server took the request and did not answer in time. */
const timeoutCodes = new Set(['HEADERS_TIMEOUT', 'BODY_TIMEOUT']);

/** A request unanswered this long is shown on a terminal (what the command waits for). */
const slowAfterMs = 2_000;

export const defaultTimeoutMs = 15_000;

/** Thrown by every request of a client closed while it was in flight (the run already failed). */
export class ClientClosedError extends TelformError {
  constructor() {
    super('client_closed', 'the request was abandoned because the run stopped');
    this.name = 'ClientClosedError';
  }
}

/**
 * The API client: Basic auth, one keep-alive pool, the shared limiter, retries with backoff and
 * jitter on 429/5xx/connection errors, and typed errors. Paths are relative to the account base
 * (`/Zentrunk/Trunk/` means `{baseUrl}/v1/Account/{auth_id}/Zentrunk/Trunk/`).
 */
export class ApiClient {
  readonly accountBase: string;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly pool: HttpPool;
  /** The pool is this client's own, closed with it (not a shared one). */
  private readonly ownsPool: boolean;
  private readonly authorization: string;
  private readonly limiter: Limiter;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logHttp: ((line: string) => void) | undefined;
  private readonly onSlow: ((status: string | undefined) => void) | undefined;
  private readonly timeoutMs: number;
  /** Aborted by `close`: waits between retries end, and no further attempt starts. */
  private readonly closing = new AbortController();
  /** Ends each request in flight (`close`). */
  private readonly inFlight = new Set<(error: Error) => void>();
  private requestCount = 0;
  private rateLimitedCount = 0;

  constructor(options: ApiClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.accountBase = `${this.pathPrefix}/v1/Account/${encodeURIComponent(options.credentials.authId)}`;
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.ownsPool = options.pools === undefined;
    this.pool =
      options.pools?.for(this.origin) ??
      new HttpPool(this.origin, { connections: options.connections ?? 16, keepAliveMs: 10_000 });
    this.authorization = `Basic ${Buffer.from(`${options.credentials.authId}:${options.credentials.authToken}`).toString('base64')}`;
    this.clock = options.clock ?? systemClock;
    this.limiter = options.limiter ?? new Limiter(defaultLimiterOptions, this.clock);
    this.retry = options.retry ?? defaultRetryPolicy;
    this.random = options.random ?? Math.random;
    this.logHttp = options.logHttp;
    this.onSlow = options.onSlow;
    // Every wait between retries listens to it: no fixed bound.
    setMaxListeners(0, this.closing.signal);
  }

  /** Requests sent so far (every attempt counts), for the plan's estimate and for tests. */
  get requestsSent(): number {
    return this.requestCount;
  }

  /** Attempts the API answered 429 so far (serve's metrics). */
  get rateLimited(): number {
    return this.rateLimitedCount;
  }

  /**
   * Ends the client at once: requests still in flight are abandoned (they throw `ClientClosedError`)
   * and none is retried. A run that failed on one request (a 401, an endpoint that is not the API)
   * must not go on waiting for the retries of the others, whose answers nobody will read.
   */
  async close(): Promise<void> {
    this.closing.abort();
    // A shared pool's other clients go on; this one's requests end here.
    for (const end of [...this.inFlight]) end(new ClientClosedError());
    if (this.ownsPool) this.pool.destroy();
  }

  get<T>(path: string, query?: RequestOptions['query']): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, { mode: 'read', ...(query ? { query } : {}) });
  }

  /**
   * Sends a request, retrying as `mode` allows. Resolves with any 2xx; throws `ApiRequestError` for
   * an error status that is not retried, `OutcomeUnknownError` when a non-idempotent write may have
   * happened, `RetriesExhaustedError` when retries ran out.
   */
  async request<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const mode = options.mode ?? (method === 'GET' ? 'read' : 'idempotent');
    const summary: RequestSummary = { method, path };
    const secrets = secretValuesOf(options.body);
    const started = this.clock.now();
    let lastReason = '';
    let lastCause: unknown;
    let timedOut = false;
    for (let attempt = 1; ; attempt += 1) {
      if (this.closing.signal.aborted) throw new ClientClosedError();
      const budgetLeft = this.retry.maxTotalMs - (this.clock.now() - started);
      const timeout = Math.max(1_000, Math.min(this.timeoutMs, budgetLeft));
      const outcome = await this.limiter.run(
        () => this.attempt(method, path, options, secrets, { attempt, timeout }),
        options.urgent === true,
      );
      if (this.closing.signal.aborted) throw new ClientClosedError();
      let retryAfterMs: number | undefined;
      if (outcome.kind === 'response') {
        const { status, body, retryAfter } = outcome;
        if (outcome.notJson && ((status >= 200 && status < 300) || status === 404)) {
          // A web page where the API should be: a wrong endpoint, which no retry mends.
          throw new TelformError(
            'not_the_api',
            `${this.origin} answered ${method} ${path} with ${status} and a body that is not JSON: it does not look like the API; check --endpoint (or TELFORM_ENDPOINT)`,
            { details: { status, method, path } },
          );
        }
        if (status >= 200 && status < 300) {
          // Some answers carry a refusal with a success status: an `error` and nothing else is a failure.
          if (refusalIn(body))
            throw new ApiRequestError(status, scrubSecrets(apiMessageOf(body, `HTTP ${status}`), secrets), summary);
          return { status, body: body as T };
        }
        const message = scrubSecrets(apiMessageOf(body, `HTTP ${status}`), secrets);
        if (status === 429) {
          this.rateLimitedCount += 1;
          retryAfterMs = parseRetryAfter(retryAfter, this.clock.now());
        } else if (status >= 500) {
          if (mode === 'create' || mode === 'billable')
            throw new OutcomeUnknownError(summary, `HTTP ${status}: ${message}`);
        } else {
          throw new ApiRequestError(status, message, summary);
        }
        lastReason = `HTTP ${status}: ${message}`;
        timedOut = false;
      } else {
        const { error, code } = outcome;
        const sent = !notSentCodes.has(code);
        const silent = timeoutCodes.has(code)
          ? `${this.origin} did not answer within ${Math.round(timeout / 1000)} s`
          : undefined;
        if (sent && (mode === 'create' || mode === 'billable'))
          throw new OutcomeUnknownError(summary, silent ?? code, error);
        // A connection error says nothing of where: name the endpoint (a wrong --endpoint, a server down),
        // and whether it was reached at all (a reset comes from a server that took the request).
        lastReason = silent ?? `${code} (${connectionWords(code, this.origin)})`;
        lastCause = error;
        timedOut = silent !== undefined;
      }
      const delay = backoffDelay(this.retry, attempt, this.random, retryAfterMs);
      const elapsed = this.clock.now() - started;
      // A server that let an attempt time out gets another only if it can have the whole timeout again.
      const needed = elapsed + delay + (timedOut ? this.timeoutMs : 0);
      if (attempt >= this.retry.maxAttempts || needed > this.retry.maxTotalMs) {
        throw new RetriesExhaustedError(summary, attempt, lastReason, lastCause);
      }
      await this.sleepUnlessClosed(delay);
    }
  }

  /** Waits between attempts; `close` ends the wait at once. */
  private async sleepUnlessClosed(milliseconds: number): Promise<void> {
    if (!this.closing.signal.aborted) await this.clock.sleep(milliseconds, this.closing.signal);
  }

  private async attempt(
    method: HttpMethod,
    path: string,
    options: RequestOptions,
    secrets: readonly string[],
    limits: { attempt: number; timeout: number },
  ): Promise<
    | { kind: 'response'; status: number; body: unknown; notJson: boolean; retryAfter: string | undefined }
    | { kind: 'error'; error: unknown; code: string }
  > {
    // Closed while this attempt waited for the limiter: nothing is sent.
    if (this.closing.signal.aborted) return { kind: 'error', error: new ClientClosedError(), code: 'client_closed' };
    const fullPath = this.pathFor(path, options.query);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    this.requestCount += 1;
    const sentAt = this.clock.now();
    this.log(
      () =>
        `→ ${method} ${fullPath}${options.body === undefined ? '' : ` ${JSON.stringify(redactSecrets(options.body))}`}`,
    );
    const slow = this.watchSlow(`${method} ${fullPath.split('?')[0]}`, limits);
    try {
      const response = await this.pool.send({
        method,
        path: fullPath,
        timeoutMs: limits.timeout,
        inFlight: this.inFlight,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          'user-agent': 'telform',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { body: payload }),
      });
      const { text } = response;
      let body: unknown = undefined;
      let notJson = false;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = { error: `unreadable response body (${text.length} bytes, not JSON)` };
          notJson = true;
        }
      }
      this.log(() => {
        const shown = body === undefined ? '' : ` ${scrubSecrets(JSON.stringify(redactSecrets(body)), secrets)}`;
        return `← ${response.status} ${method} ${fullPath} (${this.clock.now() - sentAt} ms)${shown}`;
      });
      return { kind: 'response', status: response.status, body, notJson, retryAfter: response.retryAfter };
    } catch (error) {
      const code = errorCode(error);
      this.log(() => `← ${code} ${method} ${fullPath} (${this.clock.now() - sentAt} ms)`);
      return { kind: 'error', error, code };
    } finally {
      slow.stop();
    }
  }

  /** Reports a request unanswered for `slowAfterMs` and more, every second, until `stop`. */
  private watchSlow(what: string, limits: { attempt: number; timeout: number }): { stop(): void } {
    const report = this.onSlow;
    if (!report) return { stop: () => undefined };
    const since = Date.now();
    let shown = false;
    const tick = () => {
      shown = true;
      const seconds = Math.round((Date.now() - since) / 1000);
      const attempt = limits.attempt > 1 ? `, attempt ${limits.attempt} of ${this.retry.maxAttempts}` : '';
      report(
        `waiting for ${this.origin}: ${what} unanswered for ${seconds} s (gives up after ${Math.round(limits.timeout / 1000)} s${attempt})`,
      );
    };
    let timer = setTimeout(function again() {
      tick();
      timer = setTimeout(again, 1_000);
      timer.unref();
    }, slowAfterMs);
    timer.unref();
    return {
      stop: () => {
        clearTimeout(timer);
        if (shown) report(undefined);
      },
    };
  }

  /** Absolute request path for an account-relative path or a server-given `next` link. */
  pathFor(path: string, query?: RequestOptions['query']): string {
    let full: string;
    if (/^\/?v1\//.test(path)) full = `${this.pathPrefix}/${path.replace(/^\//, '')}`;
    else full = `${this.accountBase}${path.startsWith('/') ? path : `/${path}`}`;
    if (!query) return full;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    if (search === '') return full;
    return `${full}${full.includes('?') ? '&' : '?'}${search}`;
  }

  /** The line is built only under `--log-http`: otherwise every response body would be redacted and serialised for nothing. */
  private log(line: () => string): void {
    if (this.logHttp) this.logHttp(`http ${line()}`);
  }
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object') {
    const record = error as { code?: unknown; cause?: { code?: unknown } };
    if (typeof record.code === 'string') return record.code;
    if (record.cause && typeof record.cause.code === 'string') return record.cause.code;
  }
  return error instanceof TelformError ? error.code : 'connection_error';
}

/** Members an error body carries beside its `error`; anything else is a result. */
const errorEnvelope = new Set(['api_id', 'error', 'message']);

/**
 * Whether a 2xx body is a refusal: it holds a non-empty `error` and no result (no member other than
 * `api_id`, `error` and `message`). A body with a result and an `error` member is left to its reader.
 */
function refusalIn(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  const error = record['error'];
  if (error === undefined || error === null || error === '' || error === false) return false;
  return Object.keys(record).every((key) => errorEnvelope.has(key));
}
