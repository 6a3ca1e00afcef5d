// serve's Prometheus metrics (`GET /metrics`), all named `telform_*`, in a registry of their own
// (never prom-client's global one, so two services in one process — the tests — do not mix), with
// the process metrics (memory, CPU, event loop lag) beside them. Labels are account names (from the
// accounts file, a checked alphabet) and fixed words: nothing from the live account, no secret.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AccountStatus, ServeEventType } from './model.js';
import type { QueueSnapshot } from './queue-view.js';

const statuses: readonly AccountStatus[] = ['unknown', 'in_sync', 'drifted', 'pending', 'error'];

export class ServeMetrics {
  readonly registry = new Registry();
  private readonly status: Gauge<'account' | 'status'>;
  private readonly lastRun: Gauge<'account'>;
  private readonly nextRun: Gauge<'account'>;
  private readonly runDuration: Histogram<'operation'>;
  private readonly apiRequests: Counter<'account'>;
  private readonly rateLimited: Counter<'account'>;
  private readonly callbacks: Counter<'result'>;
  private readonly events: Counter<'type'>;
  private readonly notifications: Counter<'result'>;
  private readonly applies: Counter<'result'>;
  private jobs: Counter<'step' | 'result'> | undefined;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.status = new Gauge({
      name: 'telform_account_status',
      help: 'The account status serve knows (1 for the current one, 0 for the others).',
      labelNames: ['account', 'status'],
      registers,
    });
    this.lastRun = new Gauge({
      name: 'telform_account_last_run_timestamp_seconds',
      help: 'When the last check of the account ended (Unix time).',
      labelNames: ['account'],
      registers,
    });
    this.nextRun = new Gauge({
      name: 'telform_account_next_run_timestamp_seconds',
      help: 'When the next check of the account is due (Unix time).',
      labelNames: ['account'],
      registers,
    });
    this.runDuration = new Histogram({
      name: 'telform_run_duration_seconds',
      help: 'How long checks, callback reads and applies took.',
      labelNames: ['operation'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.apiRequests = new Counter({
      name: 'telform_api_requests_total',
      help: 'API requests sent (every attempt).',
      labelNames: ['account'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'telform_api_rate_limited_total',
      help: 'API requests answered 429.',
      labelNames: ['account'],
      registers,
    });
    this.callbacks = new Counter({
      name: 'telform_callbacks_total',
      help: 'Status callbacks received, by result (accepted, or why refused).',
      labelNames: ['result'],
      registers,
    });
    this.events = new Counter({
      name: 'telform_events_emitted_total',
      help: 'Events emitted, by type.',
      labelNames: ['type'],
      registers,
    });
    this.notifications = new Counter({
      name: 'telform_notifications_total',
      help: '--notify deliveries, by result (delivered, failed, dropped).',
      labelNames: ['result'],
      registers,
    });
    this.applies = new Counter({
      name: 'telform_applies_total',
      help: '--apply safe decisions, by result (applied, failed, held, locked).',
      labelNames: ['result'],
      registers,
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'telform_' });
  }

  setStatus(account: string, current: AccountStatus): void {
    for (const status of statuses) this.status.set({ account, status }, status === current ? 1 : 0);
  }

  ranAt(account: string, endedAtMs: number, operation: 'check' | 'callback' | 'apply', durationMs: number): void {
    if (operation === 'check') this.lastRun.set({ account }, endedAtMs / 1000);
    this.runDuration.observe({ operation }, durationMs / 1000);
  }

  scheduled(account: string, dueAtMs: number): void {
    this.nextRun.set({ account }, dueAtMs / 1000);
  }

  requests(account: string, sent: number, refused429: number): void {
    if (sent > 0) this.apiRequests.inc({ account }, sent);
    if (refused429 > 0) this.rateLimited.inc({ account }, refused429);
  }

  callback(result: string): void {
    this.callbacks.inc({ result });
  }

  event(type: ServeEventType): void {
    this.events.inc({ type });
  }

  notification(result: 'delivered' | 'failed' | 'dropped'): void {
    this.notifications.inc({ result });
  }

  apply(result: 'applied' | 'failed' | 'held' | 'locked'): void {
    this.applies.inc({ result });
  }

  /**
   * With a queue: this replica's name (`telform_replica_info`), the jobs it finished by step and
   * result, and the queue as the fleet view last read it (`telform_queue_jobs`, by state).
   */
  replicaOf(replica: string, queue: () => QueueSnapshot | undefined): void {
    const registers = [this.registry];
    new Gauge({
      name: 'telform_replica_info',
      help: 'This replica of a fleet sharing a queue (its --replica name).',
      labelNames: ['replica'],
      registers,
    }).set({ replica }, 1);
    new Gauge({
      name: 'telform_queue_jobs',
      help: 'Accounts in the shared queue by state: scheduled (later), waiting (due), running, late (due too long).',
      labelNames: ['state'],
      registers,
      collect() {
        const snapshot = queue();
        if (!snapshot) return;
        for (const state of ['scheduled', 'waiting', 'running', 'late'] as const) this.set({ state }, snapshot[state]);
      },
    });
    this.jobs = new Counter({
      name: 'telform_queue_jobs_done_total',
      help: 'Jobs of the shared queue this replica finished (done) or handed back, by step (check, apply).',
      labelNames: ['step', 'result'],
      registers,
    });
  }

  jobDone(step: 'check' | 'apply', result: 'done' | 'handed_back'): void {
    this.jobs?.inc({ step, result });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
