// Puts serve together: one worker per account, the service loop, the event sinks (stdout, and
// `--notify`), the metrics and the HTTP server; and takes it apart again within a bound. The CLI
// parses flags and handles signals; tests call this directly.
import type { Clock } from '../util/clock.js';
import type { TelformError } from '../util/errors.js';
import type { ValueSet } from '../manifest/values.js';
import type { Connect, GlobalOptions, RunIo } from '../run/context.js';
import { jsonLine, jsonLogger, type Logger } from './logger.js';
import { ServeMetrics } from './metrics.js';
import type { ServeEvent } from './model.js';
import { WebhookNotifier } from './notifier.js';
import { startServer } from './server.js';
import { ServeService } from './service.js';
import { createWorker } from './worker.js';
import { openQueue, type QueueSettings } from './queue-open.js';

export interface ServeAccount {
  name: string;
  manifests: readonly string[];
  values?: ValueSet | undefined;
  globals: GlobalOptions;
  io: RunIo;
  /** Policy files judged for every plan of the account (the accounts file's, then `--policy`). */
  policies?: readonly string[] | undefined;
  /** Why the account cannot be looked at (its credential variables are missing); the others still are. */
  unavailable?: TelformError | undefined;
}

export interface ServeOptions {
  accounts: readonly ServeAccount[];
  connect: Connect;
  intervalMs: number;
  jitter: number;
  /** Accounts looked at at once. */
  accountParallelism: number;
  /** Requests in flight at once within an apply. */
  parallelism: number;
  apply: 'never' | 'safe';
  listen: { host: string; port: number };
  publicUrl?: string;
  notifyUrl?: string;
  /** How long a stop waits for what is under way before abandoning it. */
  drainMs: number;
  /** Replicas share the accounts through this queue; none: this process watches every account alone. */
  queue?: QueueSettings;
  version: string;
  clock: Clock;
  /** Events, one JSON line each. */
  stdout(text: string): void;
  /** The JSON log. */
  stderr(text: string): void;
}

export interface RunningServe {
  url: string;
  service: ServeService;
  metrics: ServeMetrics;
  logger: Logger;
  /** Drains and stops; resolves once every lock is released and the server is closed. */
  stop(reason: string): Promise<void>;
}

/**
 * Sockets per endpoint for every account together (`EndpointPools`): as many as can be in flight at
 * once (accounts checked at once × requests each), and well under the common limit of 1,024 open files.
 */
export function serveConnections(accountParallelism: number, parallelism: number): number {
  return Math.min(256, accountParallelism * parallelism);
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { clock } = options;
  const logger = jsonLogger(
    options.stderr,
    () => clock.now(),
    'info',
    options.queue ? { replica: options.queue.replica } : {},
  );
  const metrics = new ServeMetrics();
  const sinks: Array<(event: ServeEvent) => void> = [(event) => options.stdout(jsonLine(event))];
  let notifier: WebhookNotifier | undefined;
  if (options.notifyUrl !== undefined) {
    notifier = new WebhookNotifier(
      { url: options.notifyUrl, clock },
      {
        delivered: () => metrics.notification('delivered'),
        failed: (event, attempts, reason) => {
          metrics.notification('failed');
          logger.log('warn', 'notification not delivered', { event: event.id, attempts, reason });
        },
        dropped: (event) => {
          metrics.notification('dropped');
          logger.log('warn', 'notification dropped: too many waiting', { event: event.id });
        },
      },
    );
    const sender = notifier;
    sinks.push((event) => sender.publish(event));
  }
  const workers = options.accounts.map((account) =>
    createWorker({
      name: account.name,
      manifests: account.manifests,
      values: account.values,
      globals: account.globals,
      io: account.io,
      connect: options.connect,
      parallelism: options.parallelism,
      policies: account.policies,
      unavailable: account.unavailable,
    }),
  );
  const queue = options.queue
    ? await openQueue(options.queue, {
        intervalMs: options.intervalMs,
        jitter: options.jitter,
        concurrency: options.accountParallelism,
        logger,
        metrics,
        service: () => service,
      })
    : undefined;
  const service: ServeService = new ServeService(workers, {
    intervalMs: options.intervalMs,
    jitter: options.jitter,
    concurrency: options.accountParallelism,
    apply: options.apply,
    clock,
    logger,
    metrics,
    sinks,
    ...(queue ? { scheduler: queue.scheduler, replica: queue.replica } : {}),
  });
  const server = await startServer(
    {
      service,
      metrics,
      logger,
      now: () => clock.now(),
      version: options.version,
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      ...(queue ? { replica: queue.replica, queue: () => queue.view.snapshot } : {}),
    },
    options.listen,
  );
  try {
    await service.start();
  } catch (error) {
    await server.close();
    await queue?.close();
    throw error;
  }
  logger.log('info', 'listening', {
    url: server.url,
    callbacks: `${(options.publicUrl ?? server.url).replace(/\/$/, '')}/callbacks`,
    accounts: options.accounts.length,
    apply: options.apply,
    interval_ms: options.intervalMs,
    ...(queue ? { queue: queue.where } : {}),
  });
  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    service,
    metrics,
    logger,
    stop: (reason) =>
      (stopping ??= (async () => {
        logger.log('info', 'stopping', {
          reason,
          in_flight: [...service.fleet.accounts.values()].filter((view) => view.running).map((view) => view.name),
        });
        const { finished } = await service.stop(options.drainMs);
        await queue?.close();
        await notifier?.close(Math.min(5_000, options.drainMs));
        await server.close();
        logger.log('info', 'stopped', { drained: finished });
      })()),
  };
}
