// Replicas of serve share the accounts through one pg-boss queue on PostgreSQL. Each account has a
// chain of jobs: a job looks at the account (a check, or a safe apply), and when it is done the
// replica that ran it queues the account's next job, an interval (± jitter) later. The queue's
// `stately` policy keyed by account allows one waiting, one retrying and one running job per account,
// so no two replicas look at one account at once, and a second "next job" for an account that has one
// waiting is dropped by the database: the chain never forks. A replica that dies leaves its jobs
// running until their expiry; pg-boss's maintenance then puts them up for retry and another replica
// takes them. A callback pulls the account's waiting job forward to the end of a short window, so
// callbacks for one account within the window make one check.
import type PgBoss from 'pg-boss';
import type { Logger } from './logger.js';
import type { EventCause } from './model.js';
import type { LookOutcome, LookScheduler, LookStep, LookWork } from './look-scheduler.js';

/** The queue every replica of a fleet shares (one per database and schema). */
export const serveQueueName = 'telform-serve';

/** What a job carries: the account, what to do, why, and what the previous look knew of it. */
interface ServeJob {
  account: string;
  step: 'check' | 'apply';
  cause: EventCause;
  /** The account's memory as the replica that queued this job left it (`ServeService.memoryOf`). */
  memory?: unknown;
}

/** What a finished job records (its `output`): which replica did it; the fleet view reads it. */
interface ServeJobOutput {
  replica: string;
  step: ServeJob['step'];
  ms: number;
}

interface QueueSchedulerOptions {
  boss: PgBoss;
  /** This replica's name: in the log, the events and each job it finishes. */
  replica: string;
  intervalMs: number;
  jitter: number;
  /** Jobs this replica runs at once. */
  concurrency: number;
  /** A check's expiry: a replica that dies mid-check has its job taken over this long after it began. */
  checkExpiryMs: number;
  /** An apply's expiry: longer than the longest apply, so a live replica's apply is never taken over. */
  applyExpiryMs: number;
  /** Callbacks for one account within this window make one check. */
  callbackWindowMs: number;
  /** How often an idle replica asks the queue for work. */
  pollMs: number;
  logger: Logger;
  random?: () => number;
  /**
   * This replica's finished jobs over the fleet's mean per replica, lately (1: its share); undefined
   * before the fleet view has read the queue.
   */
  share?: () => number | undefined;
  /** Hears each job this replica finished or handed back (the metrics). */
  onJobDone?: (step: ServeJob['step'], result: 'done' | 'handed_back') => void;
  /** Reads the account's memory to carry to its next job, and restores it from a job. */
  memory: { of(name: string): unknown; restore(name: string, memory: unknown): void };
}

/** A retried job is the same job; past this many expiries it fails, and the chain is restarted by the sweep. */
const retryLimit = 50;

export class QueueScheduler implements LookScheduler {
  private readonly names: ReadonlySet<string>;
  private readonly random: () => number;
  private readonly running = new Map<string, Promise<void>>();
  private stopped = true;
  private handingBack = false;
  private wake = new AbortController();
  private loopDone: Promise<void> = Promise.resolve();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Per account, until when the check a callback pulled forward is still to begin (ms). */
  private readonly pulledUntil = new Map<string, number>();

  constructor(
    names: readonly string[],
    private readonly options: QueueSchedulerOptions,
    private readonly work: LookWork,
    private readonly onScheduled: (name: string, dueAt: number) => void = () => undefined,
  ) {
    this.names = new Set(names);
    this.random = options.random ?? Math.random;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    await this.createQueue();
    this.stopped = false;
    await this.sweep();
    // A chain broken by a lost write (the database went away between a job's end and its successor)
    // is started again by the next sweep; a sweep is one query when nothing is missing.
    this.sweepTimer = setInterval(
      () => void this.sweep().catch((error: unknown) => this.warn('queue sweep failed', error)),
      Math.max(this.options.intervalMs, 5_000),
    );
    this.sweepTimer.unref();
    this.loopDone = this.loop();
  }

  /**
   * Creates the queue unless it exists. Replicas starting together may race to create it (its
   * table's creation can deadlock with another's): whoever loses finds it made and goes on.
   */
  private async createQueue(): Promise<void> {
    const { boss } = this.options;
    for (let attempt = 1; ; attempt += 1) {
      if (await boss.getQueue(serveQueueName)) return;
      try {
        await boss.createQueue(serveQueueName, {
          name: serveQueueName,
          policy: 'stately',
          retryLimit,
          retryDelay: 0,
          expireInSeconds: seconds(this.options.checkExpiryMs),
        });
        return;
      } catch (error) {
        if (attempt >= 5) throw error;
        await sleep(200 * attempt, new AbortController().signal);
      }
    }
  }

  /**
   * Queues a first job for every watched account that has none waiting, retrying or running (the
   * first replica of a fleet starts every chain; a replica joining a running fleet finds them there).
   */
  private async sweep(): Promise<void> {
    if (this.stopped) return;
    // An account is without a job for a moment between the end of one and the queuing of the next:
    // only an account missing twice, a second apart, has lost its chain.
    const missing = await this.unqueued();
    if (missing.length === 0) return;
    await sleep(1_000, this.wake.signal);
    const still = new Set(await this.unqueued());
    for (const name of missing) {
      if (!still.has(name) || this.stopped) continue;
      await this.send({ account: name, step: 'check', cause: 'start' }, 0);
    }
  }

  /** The watched accounts with no job waiting, retrying or running. */
  private async unqueued(): Promise<string[]> {
    const { rows } = await this.sql<{ account: string }>(
      `SELECT DISTINCT singleton_key AS account FROM ${this.schema}.job WHERE name = $1 AND state < 'completed'`,
      [serveQueueName],
    );
    const queued = new Set(rows.map((row) => row.account));
    return [...this.names].filter((name) => !queued.has(name));
  }

  /**
   * A callback's hint: the account's waiting job is pulled forward to the end of the window (never
   * pushed back) and marked as asked for by a callback (its events say so), so every callback within
   * the window is one check. pg-boss has no call that moves a
   * waiting job, hence the one UPDATE on its table, limited to a waiting job so a running one is
   * never touched. With no job waiting (it is running now), one is queued for the end of the window,
   * behind every other job (priority −1): it cannot start while the running one holds the account.
   */
  trigger(name: string, cause: EventCause): boolean {
    if (!this.names.has(name) || this.stopped) return false;
    // Pulled forward already by this replica, and not yet begun: that check comes after this callback.
    if (Date.now() < (this.pulledUntil.get(name) ?? 0)) return true;
    this.pulledUntil.set(name, Date.now() + this.options.callbackWindowMs);
    void this.pullForward(name, cause).catch((error: unknown) => this.warn('callback not queued', error, name));
    return true;
  }

  private async pullForward(name: string, cause: EventCause): Promise<void> {
    const windowSeconds = this.options.callbackWindowMs / 1000;
    const { rows } = await this.sql<{ id: string }>(
      `UPDATE ${this.schema}.job SET start_after = now() + $3 * interval '1 second',
              data = jsonb_set(data, '{cause}', to_jsonb($4::text))
        WHERE name = $1 AND singleton_key = $2 AND state = 'created'
          AND start_after > now() + $3 * interval '1 second'
        RETURNING id`,
      [serveQueueName, name, windowSeconds, cause],
    );
    if (rows.length > 0) {
      this.onScheduled(name, Date.now() + this.options.callbackWindowMs);
      return;
    }
    await this.send({ account: name, step: 'check', cause }, this.options.callbackWindowMs, -1);
  }

  active(): string[] {
    return [...this.running.keys()];
  }

  handBack(): void {
    this.handingBack = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.wake.abort();
    await this.loopDone;
    await Promise.all([...this.running.values()]);
  }

  /**
   * Asks the queue for work once per poll, never more often: a busy replica finishing jobs does not
   * ask sooner than an idle one, so each has the same chances and an idle one (a replica that just
   * joined) takes its share. The poll is jittered so replicas do not ask in step.
   */
  private async loop(): Promise<void> {
    while (!this.stopped) {
      const free = this.options.concurrency - this.running.size;
      let fetched = 0;
      if (free > 0) {
        try {
          fetched = await this.fetch(free);
        } catch (error) {
          this.warn('queue fetch failed', error);
        }
      }
      if (this.stopped) break;
      const wake = new AbortController();
      this.wake = wake;
      // A full batch means work is piling up: then getting through it matters more than evenness.
      const pace = fetched > 0 && fetched === free ? 0.25 : this.pace();
      await sleep(Math.round(this.options.pollMs * pace * (0.75 + 0.5 * this.random())), wake.signal);
    }
  }

  /**
   * How much longer than the poll this replica waits before asking again: a replica that did more
   * than its share lately (the fleet view's count of each replica's finished jobs) asks less often,
   * one that did less asks more often, so the work evens out and a replica that just joined takes
   * its share at once. A job goes to whoever asks first once it is due, so asking twice as often
   * takes about twice as many.
   */
  private pace(): number {
    const share = this.options.share?.();
    if (share === undefined || !Number.isFinite(share)) return 1;
    return Math.min(2, Math.max(0.25, share * share));
  }

  /**
   * Takes up to `free` due jobs. A batch that would start a job of an account already running fails
   * whole in pg-boss (the database refuses the second running job), so an empty batch is tried
   * again one job at a time: the first due job by priority, which a pulled-forward callback is not.
   */
  private async fetch(free: number): Promise<number> {
    const { boss } = this.options;
    let jobs = await boss.fetch<ServeJob>(serveQueueName, { batchSize: free });
    if (jobs.length === 0 && free > 1) jobs = await boss.fetch<ServeJob>(serveQueueName, { batchSize: 1 });
    for (const job of jobs) this.run(job);
    return jobs.length;
  }

  private run(job: PgBoss.Job<ServeJob>): void {
    const { account, step, cause, memory } = job.data;
    if (!this.names.has(account)) {
      // A job of an account this replica does not watch (another fleet's, or one removed from the
      // accounts file): handed back at once, for a replica that watches it.
      void this.options.boss.fail(serveQueueName, job.id, { replica: this.options.replica, reason: 'not watched' });
      return;
    }
    this.pulledUntil.delete(account);
    const done = this.runJob(job.id, account, step, cause, memory).finally(() => {
      this.running.delete(account);
    });
    this.running.set(account, done);
  }

  private async runJob(id: string, account: string, step: ServeJob['step'], cause: EventCause, memory: unknown) {
    const { boss, replica, logger } = this.options;
    const started = Date.now();
    if (memory !== undefined) this.options.memory.restore(account, memory);
    let outcome: LookOutcome;
    try {
      outcome = await this.work(account, cause, step === 'apply' ? 'apply' : 'check-only');
    } catch (error) {
      this.warn('look failed', error, account);
    }
    const ms = Date.now() - started;
    const expiryMs = step === 'apply' ? this.options.applyExpiryMs : this.options.checkExpiryMs;
    if (ms > expiryMs)
      logger.log('warn', 'job outlasted its expiry: another replica may have taken the account over', {
        account,
        step,
        ms,
        expiry_ms: expiryMs,
      });
    if (this.handingBack) {
      // Abandoned by a stop: failing it makes it due again at once, for another replica to do again
      // (an apply's journal settles what it had sent).
      await boss
        .fail(serveQueueName, id, { replica, reason: 'handed back by a stopping replica' })
        .catch((error: unknown) => this.warn('job not handed back', error, account));
      logger.log('info', 'job handed back', { account, step });
      this.options.onJobDone?.(step, 'handed_back');
      return;
    }
    try {
      const output: ServeJobOutput = { replica, step, ms };
      await boss.complete(serveQueueName, id, output);
      this.options.onJobDone?.(step, 'done');
      // The job is done before its successor is queued, so the successor can never wait on it.
      const next: ServeJob = {
        account,
        step: outcome === 'apply' ? 'apply' : 'check',
        cause: outcome === 'apply' ? 'apply' : 'interval',
        memory: this.options.memory.of(account),
      };
      await this.send(next, outcome === 'apply' ? 0 : this.nextInterval());
    } catch (error) {
      // The sweep starts the account's chain again.
      this.warn('next job not queued', error, account);
    }
  }

  private async send(job: ServeJob, afterMs: number, priority = 0): Promise<void> {
    const expiryMs = job.step === 'apply' ? this.options.applyExpiryMs : this.options.checkExpiryMs;
    const id = await this.options.boss.send(serveQueueName, job as unknown as object, {
      singletonKey: job.account,
      // Seconds from the database's clock, not this machine's.
      ...(afterMs > 0 ? { startAfter: afterMs / 1000 } : {}),
      priority,
      expireInSeconds: seconds(expiryMs),
      retryLimit,
      retryDelay: 0,
    });
    // No id: the account already has a job waiting (the database kept one), which stands.
    if (id !== null) this.onScheduled(job.account, Date.now() + afterMs);
  }

  private nextInterval(): number {
    const { intervalMs, jitter } = this.options;
    return Math.max(1, Math.round(intervalMs * (1 + jitter * (2 * this.random() - 1))));
  }

  private get schema(): string {
    return queueSchema;
  }

  private async sql<Row>(text: string, values: unknown[]): Promise<{ rows: Row[] }> {
    return (await this.options.boss.getDb().executeSql(text, values)) as { rows: Row[] };
  }

  private warn(message: string, error: unknown, account?: string): void {
    this.options.logger.log('warn', message, {
      ...(account === undefined ? {} : { account }),
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** pg-boss's own schema, where its tables live (its default). */
export const queueSchema = 'pgboss';

/** Whole seconds, at least one (pg-boss counts expiries in seconds). */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
