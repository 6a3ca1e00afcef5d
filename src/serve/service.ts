// The serve loop: the scheduler looks at each account through its worker (a drift check, and with
// `--apply safe` an apply of a plan that needs no approval); the fleet turns what was seen into
// events; events go out through the sinks; callbacks are hints that make serve re-read one object
// now. Nothing here talks to the API or the state itself: the worker does, through the operations
// every command uses.
import type { Clock } from '../util/clock.js';
import { Fleet } from './fleet.js';
import type { Logger } from './logger.js';
import type { ServeMetrics } from './metrics.js';
import type { LookOutcome, LookScheduler, LookSchedulerFactory, LookStep } from './look-scheduler.js';
import type {
  AccountCheck,
  AccountStatus,
  EventCause,
  EventDraft,
  RegistryEntry,
  RegistryKind,
  ServeEvent,
} from './model.js';
import { Scheduler } from './scheduler.js';

/** What `--apply safe` did with an account's plan. */
export type SafeApplyOutcome =
  | { result: 'nothing' }
  /** `failures`: each change that failed, with the API's message (`Address: message`). */
  | { result: 'applied'; changes: string[]; summary: string; failed: boolean; failures?: string[] }
  | { result: 'held'; changes: string[]; reasons: string[] }
  /** Another run (another replica) holds the account's state lock: it is that run's to apply. */
  | { result: 'locked'; holder: string };

/** One account as serve drives it. Methods never throw: a failure is their result. */
export interface AccountWorker {
  readonly name: string;
  /** Keys the signatures of this account's callbacks. */
  readonly authToken: string;
  check(): Promise<AccountCheck>;
  /** Reads one object's registry status through the API; undefined when it is gone. */
  readRegistry(
    kind: RegistryKind,
    id: string,
  ): Promise<{
    entry?: Pick<RegistryEntry, 'status' | 'reason'>;
    requests: number;
    rateLimited: number;
    error?: string;
  }>;
  applySafe(): Promise<SafeApplyOutcome>;
  /** Appends registry moves to the account's history; never throws (a busy lock skips the record). */
  recordRegistry?(moves: ReadonlyArray<{ address: string; from: string; status: string }>): Promise<void>;
  /** Ends what is in flight (requests abort; an apply journals and releases its lock) and frees the client. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  intervalMs: number;
  jitter: number;
  concurrency: number;
  apply: 'never' | 'safe';
  clock: Clock;
  random?: () => number;
  logger: Logger;
  metrics: ServeMetrics;
  /** Receives every event in order (stdout, `--notify`); must not block. */
  sinks: Array<(event: ServeEvent) => void>;
  /**
   * Who decides when each account is looked at; by default the in-process scheduler. With a queue,
   * several replicas share the accounts, a callback is a (coalesced) check of its account from the
   * queue, and an apply is a job of its own.
   */
  scheduler?: LookSchedulerFactory;
  /** This replica's name, carried by every event (with a queue). */
  replica?: string;
}

/**
 * What one look leaves for the next look at the account, wherever that runs: its status, its
 * registry objects, and the plans held or failing, so a replica that takes the account over
 * announces only what changed since the last look of any replica.
 */
interface AccountMemory {
  status: AccountStatus;
  registry: RegistryEntry[];
  held?: string;
  failing?: { plan: string; failures: number; retryAt: number };
  /** The checked plan the account's next job (an apply) is to heal. */
  apply?: string;
}

/** The longest a failed plan waits before it is tried again unchanged. */
const maxBackoffMs = 24 * 3_600_000;

export class ServeService {
  readonly fleet: Fleet;
  private readonly scheduler: LookScheduler;
  private readonly workers = new Map<string, AccountWorker>();
  private readonly runId: string;
  private sequence = 0;
  private started = false;
  private stopping = false;
  private readonly hints = new Set<Promise<void>>();
  /** The held plan last announced per account, so a plan left for a person is announced once. */
  private readonly held = new Map<string, string>();
  /**
   * The plan whose apply last failed, per account: it is announced once, and the same plan is tried
   * again only after a back-off that doubles with each failure (a refused write is not re-sent every
   * interval); a different plan is tried at once.
   */
  private readonly failing = new Map<string, { plan: string; failures: number; retryAt: number }>();
  /** With a queue: the checked plan an account's apply job is to heal (carried to it in the account's memory). */
  private readonly toApply = new Map<string, string>();

  constructor(
    workers: readonly AccountWorker[],
    private readonly options: ServiceOptions,
  ) {
    for (const worker of workers) this.workers.set(worker.name, worker);
    this.fleet = new Fleet(workers.map((worker) => worker.name));
    this.runId = (options.random ?? Math.random)().toString(36).slice(2, 10).padEnd(8, '0');
    const names = workers.map((worker) => worker.name);
    const onScheduled = (name: string, dueAt: number) => {
      this.fleet.account(name).nextRunAt = dueAt;
      options.metrics.scheduled(name, dueAt);
    };
    this.scheduler = options.scheduler
      ? options.scheduler(names, (name, cause, step) => this.look(name, cause, step), onScheduled)
      : new Scheduler(
          names,
          {
            intervalMs: options.intervalMs,
            jitter: options.jitter,
            concurrency: options.concurrency,
            clock: options.clock,
            ...(options.random ? { random: options.random } : {}),
          },
          async (name, cause) => {
            await this.look(name, cause, 'check');
          },
          onScheduled,
        );
    for (const worker of workers) options.metrics.setStatus(worker.name, 'unknown');
  }

  /** Starts looking; resolves once the scheduler has started (a queue's is reached and swept first). */
  start(): Promise<void> {
    const starting = this.scheduler.start();
    if (starting === undefined) {
      this.started = true;
      return Promise.resolve();
    }
    return starting.then(() => {
      this.started = true;
    });
  }

  /** What the next look at `name` needs to know of this one (carried by the queue to whichever replica runs it). */
  memoryOf(name: string): AccountMemory {
    const view = this.fleet.account(name);
    const held = this.held.get(name);
    const failing = this.failing.get(name);
    const apply = this.toApply.get(name);
    return {
      status: view.status,
      registry: [...view.registry.values()].map((known) => known.entry),
      ...(held === undefined ? {} : { held }),
      ...(failing === undefined ? {} : { failing }),
      ...(apply === undefined ? {} : { apply }),
    };
  }

  /** Takes over what the previous look at `name` (another replica's, perhaps) knew, before this look begins. */
  restore(name: string, memory: unknown): void {
    if (!isAccountMemory(memory) || !this.workers.has(name)) return;
    this.fleet.restore(name, memory.status, memory.registry);
    if (memory.held === undefined) this.held.delete(name);
    else this.held.set(name, memory.held);
    if (memory.failing === undefined) this.failing.delete(name);
    else this.failing.set(name, memory.failing);
    if (memory.apply === undefined) this.toApply.delete(name);
    else this.toApply.set(name, memory.apply);
  }

  get ready(): boolean {
    return this.started && !this.stopping;
  }

  /** Whether replicas share the accounts through a queue (then any replica may have read an account last). */
  get shared(): boolean {
    return this.options.scheduler !== undefined;
  }

  get applyMode(): 'never' | 'safe' {
    return this.options.apply;
  }

  /** Every account's name, in the order given. */
  accountNames(): string[] {
    return [...this.workers.keys()];
  }

  worker(name: string): AccountWorker | undefined {
    return this.workers.get(name);
  }

  /**
   * A callback (already verified) names an object of `account`: re-read that object now and compare
   * it with what is known; when it moved, check the whole account against the manifests and the
   * ledger right away. An object serve does not manage costs no read; before the account's first
   * check, the callback asks for that check.
   */
  hint(account: string, kind: RegistryKind, id: string): 'read' | 'check' | 'ignored' {
    const worker = this.workers.get(account);
    if (!worker || this.stopping) return 'ignored';
    // With a queue the callback is a check from the queue, coalesced with the account's other callbacks.
    if (this.options.scheduler) return this.scheduler.trigger(account, 'callback') ? 'check' : 'ignored';
    const view = this.fleet.account(account);
    const known = this.fleet.findRegistry(account, kind, id);
    if (!known) {
      if (view.check) return 'ignored';
      this.scheduler.trigger(account, 'callback');
      return 'check';
    }
    const work = this.reread(worker, known).finally(() => this.hints.delete(work));
    this.hints.add(work);
    return 'read';
  }

  private async reread(worker: AccountWorker, known: RegistryEntry): Promise<void> {
    const observed = this.fleet.beginObservation();
    const started = this.options.clock.now();
    const read = await worker.readRegistry(known.kind, known.id);
    this.options.metrics.requests(worker.name, read.requests, read.rateLimited);
    this.options.metrics.ranAt(worker.name, this.options.clock.now(), 'callback', this.options.clock.now() - started);
    if (read.error !== undefined || !read.entry) {
      if (read.error !== undefined)
        this.options.logger.log('warn', 'callback re-read failed', {
          account: worker.name,
          address: known.address,
          error: read.error,
        });
      this.scheduler.trigger(worker.name, 'callback');
      return;
    }
    const entry: RegistryEntry = {
      ...known,
      status: read.entry.status,
      ...(read.entry.reason === undefined ? {} : { reason: read.entry.reason }),
    };
    if (entry.reason === undefined) delete entry.reason;
    const drafts = this.fleet.recordRegistry(worker.name, entry, observed, 'callback');
    this.emitAll(drafts);
    await this.recordRegistry(worker, drafts);
    if (drafts.length > 0) this.scheduler.trigger(worker.name, 'callback');
  }

  /**
   * One scheduled look at an account: check, record, and with `--apply safe` heal what needs no
   * approval (`check`); or leave the apply to a job of its own (`check-only` answers `apply`); or
   * apply first, then check (`apply`).
   */
  private async look(name: string, cause: EventCause, step: LookStep): Promise<LookOutcome> {
    const worker = this.workers.get(name);
    if (!worker) return undefined;
    const view = this.fleet.account(name);
    view.running = true;
    try {
      if (step === 'apply') {
        const plan = this.toApply.get(name);
        this.toApply.delete(name);
        if (this.options.apply === 'safe' && !this.stopping) await this.applySafely(worker, plan);
        else await this.checkAndRecord(worker, cause);
        return undefined;
      }
      const check = await this.checkAndRecord(worker, cause);
      // A plan that went away and comes back later is announced again.
      if (check.status !== 'error' && check.plan.length === 0) {
        this.held.delete(name);
        this.failing.delete(name);
      }
      if (this.options.apply === 'safe' && !this.stopping && check.status !== 'error' && check.plan.length > 0) {
        const plan = JSON.stringify(check.plan);
        const failing = this.failing.get(name);
        if (failing?.plan === plan && this.options.clock.now() < failing.retryAt) return undefined;
        if (step === 'check-only') {
          this.toApply.set(name, plan);
          return 'apply';
        }
        await this.applySafely(worker, plan);
      }
      return undefined;
    } finally {
      view.running = false;
    }
  }

  private async checkAndRecord(worker: AccountWorker, cause: EventCause): Promise<AccountCheck> {
    const { clock, metrics, logger } = this.options;
    const observed = this.fleet.beginObservation();
    const started = clock.now();
    const check = await worker.check();
    const ended = clock.now();
    const view = this.fleet.account(worker.name);
    view.lastRunAt = ended;
    view.lastDurationMs = ended - started;
    metrics.ranAt(worker.name, ended, 'check', ended - started);
    metrics.requests(worker.name, check.requests, check.rateLimited);
    metrics.setStatus(worker.name, check.status);
    if (check.error)
      logger.log('warn', 'check failed', { account: worker.name, code: check.error.code, error: check.error.message });
    for (const seen of check.windows ?? []) {
      // Between the check that last saw it in sync and this one: serve narrows the window to its interval.
      logger.log('info', 'changed outside telform', {
        account: worker.name,
        address: seen.address,
        in_sync_at: seen.since ?? null,
        changed_before: seen.seen_at,
      });
    }
    const drafts = this.fleet.recordCheck(worker.name, check, observed, cause);
    this.emitAll(drafts);
    await this.recordRegistry(worker, drafts);
    return check;
  }

  /** The registry moves serve saw, appended to the account's history (a resource's timeline shows them). */
  private async recordRegistry(worker: AccountWorker, drafts: readonly EventDraft[]): Promise<void> {
    const moves = drafts.flatMap((draft) =>
      draft.type === 'registry_status' ? [{ address: draft.address, from: draft.from, status: draft.to }] : [],
    );
    if (moves.length > 0 && worker.recordRegistry) await worker.recordRegistry(moves);
  }

  /** `plan`: the checked plan it applies (an apply job of the queue knows it only from the apply's own reconcile). */
  private async applySafely(worker: AccountWorker, checked: string | undefined): Promise<void> {
    const { clock, metrics, logger } = this.options;
    const started = clock.now();
    const outcome = await worker.applySafe();
    const plan = checked ?? JSON.stringify('changes' in outcome ? outcome.changes : []);
    metrics.ranAt(worker.name, clock.now(), 'apply', clock.now() - started);
    if (this.stopping && outcome.result === 'applied' && outcome.failed) {
      // Abandoned by the stop, not failed: what it sent is in the journal, for the next run to settle.
      metrics.apply('failed');
      logger.log('warn', 'apply abandoned: serve is stopping', { account: worker.name, summary: outcome.summary });
      return;
    }
    switch (outcome.result) {
      case 'nothing':
        return;
      case 'locked':
        metrics.apply('locked');
        logger.log('info', 'apply skipped: another run holds the state lock', {
          account: worker.name,
          holder: outcome.holder,
        });
        return;
      case 'held': {
        metrics.apply('held');
        const key = JSON.stringify([outcome.changes, outcome.reasons]);
        if (this.held.get(worker.name) === key) return;
        this.held.set(worker.name, key);
        this.emit({
          type: 'apply_held',
          account: worker.name,
          cause: 'apply',
          changes: outcome.changes,
          reasons: outcome.reasons,
        });
        return;
      }
      case 'applied': {
        metrics.apply(outcome.failed ? 'failed' : 'applied');
        this.held.delete(worker.name);
        const failures = outcome.failures ?? [];
        if (outcome.failed) {
          const before = this.failing.get(worker.name);
          const again = before?.plan === plan;
          const count = again ? before.failures + 1 : 1;
          const backoffMs = Math.min(this.options.intervalMs * 2 ** count, maxBackoffMs);
          this.failing.set(worker.name, { plan, failures: count, retryAt: clock.now() + backoffMs });
          if (again) {
            // Announced already: the log says it failed again and when it is tried next.
            logger.log('warn', 'apply failed again', {
              account: worker.name,
              failures: count,
              retry_in_ms: backoffMs,
              errors: failures,
            });
            return;
          }
          logger.log('warn', 'apply failed', { account: worker.name, retry_in_ms: backoffMs, errors: failures });
        } else this.failing.delete(worker.name);
        this.emit({
          type: 'applied',
          account: worker.name,
          cause: 'apply',
          changes: outcome.changes,
          summary: outcome.summary,
          failed: outcome.failed,
          ...(outcome.failed ? { errors: failures } : {}),
        });
        // What the apply did is confirmed by reading the account again, now.
        if (!this.stopping) await this.checkAndRecord(worker, 'apply');
        return;
      }
      default: {
        const never: never = outcome;
        return never;
      }
    }
  }

  /** True when `work` ends within `ms`, false when the time ran out first. */
  private async within(work: Promise<unknown>, ms: number): Promise<boolean> {
    const timer = new AbortController();
    const ended = await Promise.race([
      work.then(() => true),
      this.options.clock.sleep(ms, timer.signal).then(() => false),
    ]);
    timer.abort();
    return ended;
  }

  private emitAll(drafts: readonly EventDraft[]): void {
    for (const draft of drafts) this.emit(draft);
  }

  private emit(draft: EventDraft): void {
    this.sequence += 1;
    const event = {
      id: `${this.runId}-${this.sequence}`,
      at: new Date(this.options.clock.now()).toISOString(),
      ...(this.options.replica === undefined ? {} : { replica: this.options.replica }),
      ...draft,
    } as ServeEvent;
    this.fleet.remember(event);
    this.options.metrics.event(event.type);
    for (const sink of this.options.sinks) sink(event);
  }

  /**
   * Drains: starts nothing new, lets what is under way finish within `graceMs`, then closes every
   * worker (requests still in flight are abandoned; an apply's journal already holds what it sent,
   * and closing releases its lock). Resolves when all of it is done.
   */
  async stop(graceMs: number): Promise<{ finished: boolean }> {
    this.stopping = true;
    const settled = Promise.all([this.scheduler.stop(), ...this.hints]).then(() => true);
    const finished = await this.within(settled, graceMs);
    if (!finished) this.scheduler.handBack?.();
    // Closing aborts the requests still in flight: an apply among them ends (its journal holds what
    // it sent) and closes its state, which releases the lock. That too gets a bound.
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    if (!finished) await this.within(settled, graceMs);
    return { finished };
  }
}

function isAccountMemory(value: unknown): value is AccountMemory {
  if (typeof value !== 'object' || value === null) return false;
  const memory = value as Partial<AccountMemory>;
  return typeof memory.status === 'string' && Array.isArray(memory.registry);
}
