import { Pool, type Dispatcher } from 'undici';
import { TelformError } from '../errors.js';
import { systemClock, type Clock } from './clock.js';
import type { Credentials } from './connection.js';
import {
  ApiRequestError,
  OutcomeUnknownError,
  RetriesExhaustedError,
  apiMessageOf,
  type RequestSummary,
} from './errors.js';
import { Limiter, defaultLimiterOptions } from './limiter.js';
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
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  /** Shared by every request of a run (DESIGN.md section 7). */
  limiter?: Limiter;
  retry?: RetryPolicy;
  clock?: Clock;
  random?: () => number;
  /** `--log-http`: receives one line per request and per response, secrets redacted. */
  logHttp?: (line: string) => void;
  /** Per-request timeout (headers and body), ms. */
  timeoutMs?: number;
  connections?: number;
}

/** Connection errors that prove the request never reached the server: safe to re-send any write. */
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The API client: Basic auth, one keep-alive pool, the shared limiter, retries with backoff and
 * jitter on 429/5xx/connection errors, and typed errors. Paths are relative to the account base
 * (`/Zentrunk/Trunk/` means `{baseUrl}/v1/Account/{auth_id}/Zentrunk/Trunk/`).
 */
export class ApiClient {
  readonly accountBase: string;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly pool: Dispatcher;
  private readonly authorization: string;
  private readonly limiter: Limiter;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logHttp: ((line: string) => void) | undefined;
  private requestCount = 0;

  constructor(options: ApiClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.accountBase = `${this.pathPrefix}/v1/Account/${encodeURIComponent(options.credentials.authId)}`;
    const timeout = options.timeoutMs ?? 30_000;
    this.pool = new Pool(this.origin, {
      connections: options.connections ?? 16,
      keepAliveTimeout: 10_000,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    this.authorization = `Basic ${Buffer.from(`${options.credentials.authId}:${options.credentials.authToken}`).toString('base64')}`;
    this.clock = options.clock ?? systemClock;
    this.limiter = options.limiter ?? new Limiter(defaultLimiterOptions, this.clock);
    this.retry = options.retry ?? defaultRetryPolicy;
    this.random = options.random ?? Math.random;
    this.logHttp = options.logHttp;
  }

  /** Requests sent so far (every attempt counts), for the plan's estimate and for tests. */
  get requestsSent(): number {
    return this.requestCount;
  }

  async close(): Promise<void> {
    await this.pool.close();
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
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.limiter.run(() => this.attempt(method, path, options, secrets));
      let retryAfterMs: number | undefined;
      if (outcome.kind === 'response') {
        const { status, body, retryAfter } = outcome;
        if (status >= 200 && status < 300) return { status, body: body as T };
        const message = scrubSecrets(apiMessageOf(body, `HTTP ${status}`), secrets);
        if (status === 429) {
          retryAfterMs = parseRetryAfter(retryAfter, this.clock.now());
        } else if (status >= 500) {
          if (mode === 'create' || mode === 'billable') throw new OutcomeUnknownError(summary, `HTTP ${status}: ${message}`);
        } else {
          throw new ApiRequestError(status, message, summary);
        }
        lastReason = `HTTP ${status}: ${message}`;
      } else {
        const { error, code } = outcome;
        const sent = !notSentCodes.has(code);
        if (sent && (mode === 'create' || mode === 'billable')) throw new OutcomeUnknownError(summary, code, error);
        lastReason = code;
        lastCause = error;
      }
      const delay = backoffDelay(this.retry, attempt, this.random, retryAfterMs);
      const elapsed = this.clock.now() - started;
      if (attempt >= this.retry.maxAttempts || elapsed + delay > this.retry.maxTotalMs) {
        // A connection error says nothing of where: name the endpoint (a wrong --endpoint, a server down).
        const reason = lastCause === undefined ? lastReason : `${lastReason} (cannot reach ${this.origin})`;
        throw new RetriesExhaustedError(summary, attempt, reason, lastCause);
      }
      await this.clock.sleep(delay);
    }
  }

  private async attempt(
    method: HttpMethod,
    path: string,
    options: RequestOptions,
    secrets: readonly string[],
  ): Promise<
    | { kind: 'response'; status: number; body: unknown; retryAfter: string | string[] | undefined }
    | { kind: 'error'; error: unknown; code: string }
  > {
    const fullPath = this.pathFor(path, options.query);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    this.requestCount += 1;
    const sentAt = this.clock.now();
    this.log(`→ ${method} ${fullPath}${options.body === undefined ? '' : ` ${JSON.stringify(redactSecrets(options.body))}`}`);
    try {
      const response = await this.pool.request({
        method,
        path: fullPath,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          'user-agent': 'telform',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { body: payload }),
      });
      const text = await response.body.text();
      let body: unknown = undefined;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = { error: `unreadable response body (${text.length} bytes, not JSON)` };
        }
      }
      const shown = body === undefined ? '' : ` ${scrubSecrets(JSON.stringify(redactSecrets(body)), secrets)}`;
      this.log(`← ${response.statusCode} ${method} ${fullPath} (${this.clock.now() - sentAt} ms)${shown}`);
      return { kind: 'response', status: response.statusCode, body, retryAfter: response.headers['retry-after'] };
    } catch (error) {
      const code = errorCode(error);
      this.log(`← ${code} ${method} ${fullPath} (${this.clock.now() - sentAt} ms)`);
      return { kind: 'error', error, code };
    }
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

  private log(line: string): void {
    this.logHttp?.(`http ${line}`);
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
