// Where serve's events go: one JSON line each on stdout, and with `--notify URL` a POST of the
// event as JSON. The POSTs never hold up the loop: `publish` only queues; one sender drains the
// queue in order, retrying a refused or failed POST with exponential backoff and jitter, and gives
// an event up after its attempts (counted, and logged). The queue is bounded, so a receiver that is
// down for a day costs a bounded amount of memory: past the bound the oldest event waiting to be
// sent is dropped (counted and logged), never the loop.
import type { Clock } from '../util/clock.js';
import type { ServeEvent } from './model.js';

export interface NotifyOptions {
  url: string;
  clock: Clock;
  /** Attempts per event, the first included. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Events waiting at most; beyond, the oldest is dropped. */
  queueLimit?: number;
  timeoutMs?: number;
  random?: () => number;
  /** Sends one POST; answers the HTTP status (tests and the service use fetch). */
  post?: (url: string, body: string, timeoutMs: number) => Promise<number>;
}

export interface NotifyReport {
  delivered(event: ServeEvent, attempts: number): void;
  failed(event: ServeEvent, attempts: number, reason: string): void;
  dropped(event: ServeEvent): void;
}

export class WebhookNotifier {
  private readonly queue: ServeEvent[] = [];
  private inFlight = 0;
  private sending: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly queueLimit: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  private readonly post: (url: string, body: string, timeoutMs: number) => Promise<number>;

  constructor(
    private readonly options: NotifyOptions,
    private readonly report: NotifyReport,
  ) {
    this.attempts = options.attempts ?? 6;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.queueLimit = options.queueLimit ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.random = options.random ?? Math.random;
    this.post = options.post ?? postJson;
  }

  /** Queues the event and returns at once. */
  publish(event: ServeEvent): void {
    if (this.stopping.signal.aborted) return;
    this.queue.push(event);
    if (this.queue.length > this.queueLimit) this.report.dropped(this.queue.shift() as ServeEvent);
    this.sending ??= this.drain().finally(() => {
      this.sending = undefined;
    });
  }

  /** Events not delivered or given up yet (the one being sent included). */
  get waiting(): number {
    return this.queue.length + this.inFlight;
  }

  /**
   * Stops retrying: waits up to `graceMs` for the queue to empty, then gives up what is left
   * (each reported as failed), so a shutdown is bounded.
   */
  async close(graceMs: number): Promise<void> {
    const sending = this.sending;
    if (sending) {
      const grace = new AbortController();
      await Promise.race([sending, this.options.clock.sleep(graceMs, grace.signal)]);
      grace.abort();
    }
    this.stopping.abort();
    for (const event of this.queue.splice(0)) this.report.failed(event, 0, 'serve stopped before it was sent');
    await this.sending;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.stopping.signal.aborted) {
      const event = this.queue.shift() as ServeEvent;
      this.inFlight = 1;
      await this.deliver(event);
      this.inFlight = 0;
    }
  }

  private async deliver(event: ServeEvent): Promise<void> {
    const body = JSON.stringify(event);
    let reason = '';
    let made = 0;
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      made = attempt;
      try {
        const status = await this.post(this.options.url, body, this.timeoutMs);
        if (status >= 200 && status < 300) {
          this.report.delivered(event, attempt);
          return;
        }
        reason = `the receiver answered ${status}`;
        // A 4xx other than 408/429 is the receiver refusing this event: sending it again changes nothing.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429) break;
      } catch (error) {
        reason = withoutUrlSecrets(
          error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
          this.options.url,
        );
      }
      if (attempt === this.attempts || this.stopping.signal.aborted) break;
      const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
      await this.options.clock.sleep(ceiling / 2 + this.random() * (ceiling / 2), this.stopping.signal);
      if (this.stopping.signal.aborted) break;
    }
    this.report.failed(event, made, reason);
  }
}

async function postJson(url: string, body: string, timeoutMs: number): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'telform-serve' },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.arrayBuffer().catch(() => undefined);
  return response.status;
}

/**
 * An error text with the receiver's URL cut to its origin and path wherever it appears: a query string
 * (often a token) and user info never reach the log.
 */
function withoutUrlSecrets(text: string, url: string): string {
  let shown: string;
  try {
    const parsed = new URL(url);
    shown = `${parsed.origin}${parsed.pathname}`;
  } catch {
    shown = '(the --notify URL)';
  }
  return text
    .split(url)
    .join(shown)
    .replace(/\b(https?:\/\/)[^\s/@]*@/g, '$1')
    .replace(/(https?:\/\/[^\s?#]*)\?[^\s#]*/g, '$1');
}
