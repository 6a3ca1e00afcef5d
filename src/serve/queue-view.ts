// The fleet as the queue sees it, for every replica's status page and metrics: how many accounts
// wait (due, not yet taken), run, or are late (due for longer than a replica should take to notice),
// and how many looks each replica finished lately. Read from pg-boss's tables on a timer, so a page
// or a scrape never waits on the database.
import type PgBoss from 'pg-boss';
import { queueSchema, serveQueueName } from './queue.js';

export interface QueueSnapshot {
  /** When it was read (ms). */
  at: number;
  /** Jobs queued for later (the next interval's checks). */
  scheduled: number;
  /** Due now, not yet taken by a replica. */
  waiting: number;
  running: number;
  /** Due for longer than `lateAfterMs`. */
  late: number;
  /** The accounts running now, oldest first, with when each began (ms); at most 50. */
  runningAccounts: Array<{ account: string; since: number; step: string }>;
  /** The accounts late now, most overdue first; at most 50. */
  lateAccounts: Array<{ account: string; dueAt: number }>;
  /** Looks each replica finished within `recentMs`, by replica name. */
  doneByReplica: Array<{ replica: string; checks: number; applies: number }>;
  recentMs: number;
}

export class QueueView {
  private current: QueueSnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly boss: PgBoss,
    private readonly options: { lateAfterMs: number; recentMs: number; refreshMs: number },
  ) {}

  /** The latest reading; undefined before the first one. */
  get snapshot(): QueueSnapshot | undefined {
    return this.current;
  }

  /**
   * `replica`'s finished jobs lately over the mean of every replica that finished any (itself
   * counted, even with none yet); undefined before the first reading or when nobody finished one.
   */
  shareOf(replica: string): number | undefined {
    const rows = this.current?.doneByReplica;
    if (!rows) return undefined;
    const counts = new Map(rows.map((row) => [row.replica, row.checks + row.applies]));
    if (!counts.has(replica)) counts.set(replica, 0);
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    if (total === 0) return undefined;
    return ((counts.get(replica) ?? 0) * counts.size) / total;
  }

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    return this.reading ?? Promise.resolve();
  }

  /** Reads the queue now (the timer does it on its own; tests call it to wait for a fresh figure). */
  refresh(): Promise<void> {
    this.reading ??= this.read()
      .then((snapshot) => {
        this.current = snapshot;
      })
      .catch(() => undefined)
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  private async read(): Promise<QueueSnapshot> {
    const db = this.boss.getDb();
    const late = this.options.lateAfterMs / 1000;
    const recent = this.options.recentMs / 1000;
    const query = async <Row>(text: string, values: unknown[]) =>
      ((await db.executeSql(text, values)) as { rows: Row[] }).rows;
    const [counts] = await query<{ scheduled: string; waiting: string; running: string; late: string }>(
      `SELECT
         count(*) FILTER (WHERE state < 'active' AND start_after > now()) AS scheduled,
         count(*) FILTER (WHERE state < 'active' AND start_after <= now()) AS waiting,
         count(*) FILTER (WHERE state = 'active') AS running,
         count(*) FILTER (WHERE state < 'active' AND start_after <= now() - $2 * interval '1 second') AS late
       FROM ${queueSchema}.job WHERE name = $1 AND state < 'completed'`,
      [serveQueueName, late],
    );
    const running = await query<{ account: string; since: Date; step: string }>(
      `SELECT singleton_key AS account, started_on AS since, data->>'step' AS step FROM ${queueSchema}.job
        WHERE name = $1 AND state = 'active' ORDER BY started_on LIMIT 50`,
      [serveQueueName],
    );
    const lateRows = await query<{ account: string; due: Date }>(
      `SELECT singleton_key AS account, start_after AS due FROM ${queueSchema}.job
        WHERE name = $1 AND state < 'active' AND start_after <= now() - $2 * interval '1 second'
        ORDER BY start_after LIMIT 50`,
      [serveQueueName, late],
    );
    const done = await query<{ replica: string; checks: string; applies: string }>(
      `SELECT output->>'replica' AS replica,
              count(*) FILTER (WHERE output->>'step' = 'check') AS checks,
              count(*) FILTER (WHERE output->>'step' = 'apply') AS applies
         FROM ${queueSchema}.job
        WHERE name = $1 AND state = 'completed' AND completed_on > now() - $2 * interval '1 second'
          AND output ? 'replica'
        GROUP BY 1 ORDER BY 1`,
      [serveQueueName, recent],
    );
    return {
      at: Date.now(),
      scheduled: Number(counts?.scheduled ?? 0),
      waiting: Number(counts?.waiting ?? 0),
      running: Number(counts?.running ?? 0),
      late: Number(counts?.late ?? 0),
      runningAccounts: running.map((row) => ({ account: row.account, since: row.since.getTime(), step: row.step })),
      lateAccounts: lateRows.map((row) => ({ account: row.account, dueAt: row.due.getTime() })),
      doneByReplica: done.map((row) => ({
        replica: row.replica,
        checks: Number(row.checks),
        applies: Number(row.applies),
      })),
      recentMs: this.options.recentMs,
    };
  }
}
