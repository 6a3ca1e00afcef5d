// Opens the queue replicas share: pg-boss on the given PostgreSQL database (its tables in their own
// schema, created by the first replica to start), the scheduler that takes this replica's jobs from
// it, and the fleet view that reads it. pg-boss is loaded only here, so serve without a queue, and
// every other command, never loads it.
import { TelformError } from '../util/errors.js';
import type { Logger } from './logger.js';
import type { LookSchedulerFactory } from './look-scheduler.js';
import type { ServeMetrics } from './metrics.js';
import { QueueScheduler, queueSchema } from './queue.js';
import { QueueView } from './queue-view.js';
import type { ServeService } from './service.js';

export interface QueueSettings {
  /** `postgres://…` of the database that holds the queue. */
  url: string;
  /** This replica's name (`--replica`; by default the host name and process id). */
  replica: string;
  /** How long a check may run before its job is taken over (`--check-expiry`). */
  checkExpiryMs: number;
  /** How long an apply may run before its job is taken over (`--apply-expiry`): longer than the longest apply. */
  applyExpiryMs: number;
  /** Callbacks for one account within this window make one check (`--callback-window`). */
  callbackWindowMs: number;
}

interface OpenQueue {
  replica: string;
  /** Where the queue is, for the log: host, port and database, never a password. */
  where: string;
  scheduler: LookSchedulerFactory;
  view: QueueView;
  /** Stops the fleet view and pg-boss (its maintenance timer and connections). */
  close(): Promise<void>;
}

export async function openQueue(
  settings: QueueSettings,
  context: {
    intervalMs: number;
    jitter: number;
    concurrency: number;
    logger: Logger;
    metrics: ServeMetrics;
    /** The service, once made (the scheduler it is given reads and restores its accounts' memory). */
    service: () => ServeService;
  },
): Promise<OpenQueue> {
  const { default: PgBoss } = await import('pg-boss');
  const where = describeDatabase(settings.url);
  const checkExpirySeconds = Math.max(1, Math.ceil(settings.checkExpiryMs / 1000));
  const boss = new PgBoss({
    connectionString: settings.url,
    application_name: `telform serve ${settings.replica}`.slice(0, 63),
    schema: queueSchema,
    // Few connections: a replica fetches, completes and queues one statement at a time per job.
    max: 4,
    migrate: true,
    supervise: true,
    // Expired jobs are put up for retry by this maintenance: often enough that a dead replica's
    // check is taken over soon after its expiry (one replica of the fleet runs it each time).
    maintenanceIntervalSeconds: Math.min(60, Math.max(1, Math.floor(checkExpirySeconds / 4))),
    // Finished jobs stay an hour (the fleet view counts each replica's), then a day in the archive.
    archiveCompletedAfterSeconds: 3_600,
    archiveFailedAfterSeconds: 3_600,
    deleteAfterDays: 1,
    schedule: false,
  });
  boss.on('error', (error: Error) => context.logger.log('warn', 'queue error', { error: error.message }));
  try {
    await boss.start();
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => undefined);
    throw new TelformError(
      'serve_queue',
      `serve could not open its queue at ${where}: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  const pollMs = Math.min(1_000, Math.max(200, Math.round(context.intervalMs / 10)));
  const view = new QueueView(boss, {
    lateAfterMs: Math.max(5_000, pollMs * 5 + settings.callbackWindowMs),
    recentMs: Math.max(context.intervalMs * 2, 60_000),
    refreshMs: Math.min(15_000, Math.max(1_000, Math.round(context.intervalMs / 2))),
  });
  context.metrics.replicaOf(settings.replica, () => view.snapshot);
  const scheduler: LookSchedulerFactory = (names, work, onScheduled) =>
    new QueueScheduler(
      names,
      {
        boss,
        replica: settings.replica,
        intervalMs: context.intervalMs,
        jitter: context.jitter,
        concurrency: context.concurrency,
        checkExpiryMs: settings.checkExpiryMs,
        applyExpiryMs: settings.applyExpiryMs,
        callbackWindowMs: settings.callbackWindowMs,
        pollMs,
        logger: context.logger,
        onJobDone: (step, result) => context.metrics.jobDone(step, result),
        share: () => view.shareOf(settings.replica),
        memory: {
          of: (name) => context.service().memoryOf(name),
          restore: (name, memory) => context.service().restore(name, memory),
        },
      },
      work,
      onScheduled,
    );
  view.start();
  return {
    replica: settings.replica,
    where,
    scheduler,
    view,
    close: async () => {
      await view.stop();
      await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    },
  };
}

/** `host:port/database` of a PostgreSQL URL: what the log and errors may show of it. */
function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'the --queue database';
  }
}
