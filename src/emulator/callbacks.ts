import { createHmac, randomBytes } from 'node:crypto';
import { isLoopbackHost } from './loopback.js';
import type { Runtime } from './runtime.js';
import type { CallbackTarget } from './state.js';

/**
 * Delivery of 10DLC status callbacks (the API reference, Events). A local emulator must not reach out to the
 * internet nor relay requests for anyone: a callback goes only to a loopback
 * host (127.0.0.0/8, `localhost`, `::1`), redirects are not followed, and a callback to any other
 * host is recorded in the request log as not delivered without any connection being made. Every
 * attempt is recorded (type `callback`). Deliveries of one emulator go out one at a time, in the
 * order the registry reached the statuses, once each, with no retry.
 */

/** The payload sent for one status change; documented in docs/emulator.md. */
export type CallbackPayload = Record<string, string | DeclinedReasonList>;
type DeclinedReasonList = { code: string; message: string }[];

/** Give up on a callback receiver after this long. */
const deliveryTimeoutMs = 5_000;

const queues = new WeakMap<Runtime, Promise<void>>();

/**
 * Queues the delivery of `payload` to `target` for the account `authId`. Returns at once; the
 * returned promise settles when this delivery has been attempted and logged (tests may ignore it).
 */
export function sendCallback(
  runtime: Runtime,
  authId: string,
  target: CallbackTarget,
  payload: CallbackPayload,
): Promise<void> {
  const previous = queues.get(runtime) ?? Promise.resolve();
  const next = previous
    .then(() => deliver(runtime, authId, target, payload))
    .catch((error: unknown) => {
      // A bug here must not stop later callbacks; say so where an operator looks.
      process.stderr.write(
        `emulator: status callback failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
  queues.set(runtime, next);
  return next;
}

/** Settles once every callback queued so far has been attempted and logged (for tests). */
export function callbacksSettled(runtime: Runtime): Promise<void> {
  return queues.get(runtime) ?? Promise.resolve();
}

async function deliver(
  runtime: Runtime,
  authId: string,
  target: CallbackTarget,
  payload: CallbackPayload,
): Promise<void> {
  const url = new URL(target.url);
  // Credentials in a callback URL are the receiver's secret: they are never written to the log.
  url.username = '';
  url.password = '';
  const started = performance.now();
  const base = { at: runtime.nowIso(), type: 'callback' as const, account: authId, method: target.method };
  if (!isLoopbackHost(url.hostname)) {
    runtime.log.record({
      ...base,
      path: `${url.origin}${url.pathname}`,
      query: '',
      status: null,
      duration_ms: 0,
      delivered: false,
      note: `not delivered: ${url.hostname} is not a loopback host (callbacks go to 127.0.0.0/8, localhost and ::1 only)`,
    });
    return;
  }
  const request = buildRequest(new URL(target.url), target.method, payload, accountToken(runtime, authId));
  let status: number | null = null;
  let note: string | undefined;
  try {
    const response = await fetch(request.url, {
      method: target.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(deliveryTimeoutMs),
    });
    status = response.status;
    await response.arrayBuffer().catch(() => undefined);
    if (status < 200 || status >= 300) note = `the receiver answered ${status}; callbacks are not retried`;
  } catch (error) {
    note = `not delivered: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`;
  }
  runtime.log.record({
    ...base,
    path: `${url.origin}${url.pathname}`,
    // The query string is left out: it may carry the receiver's own token.
    query: '',
    status,
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    delivered: status !== null,
    ...(note === undefined ? {} : { note }),
  });
}

interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * A POST carries the payload as JSON; a GET carries it in the query string (`declined_reasons`
 * as JSON text). Both are signed like production's callbacks (production's documentation): the
 * `X-Plivo-Signature-V2` header is base64 HMAC-SHA256, keyed by the account's auth token, of the
 * URL without its query string followed by the nonce.
 */
function buildRequest(
  url: URL,
  method: CallbackTarget['method'],
  payload: CallbackPayload,
  token: string,
): OutgoingRequest {
  const headers: Record<string, string> = { 'User-Agent': 'telform-emulator' };
  // fetch refuses URLs with credentials; a receiver protected by Basic auth gets them as a header.
  if (url.username !== '' || url.password !== '') {
    const user = decodeUserinfo(url.username);
    const password = decodeUserinfo(url.password);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  let body: string | undefined;
  if (method === 'GET') {
    for (const [key, value] of Object.entries(payload)) {
      url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } else {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(payload);
  }
  const nonce = randomBytes(12).toString('hex');
  const signature = createHmac('sha256', token).update(`${url.origin}${url.pathname}${nonce}`).digest('base64');
  headers['X-Plivo-Signature-V2'] = signature;
  headers['X-Plivo-Signature-Ma-V2'] = signature;
  headers['X-Plivo-Signature-V2-Nonce'] = nonce;
  return { url: url.toString(), headers, ...(body === undefined ? {} : { body }) };
}

/** URL credentials as the receiver wrote them: percent-decoded, or as they are when that is not valid encoding. */
function decodeUserinfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function accountToken(runtime: Runtime, authId: string): string {
  return runtime.state.accounts.get(authId)?.authToken ?? '';
}
