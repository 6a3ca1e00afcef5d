import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { systemClock, type Clock } from '../../util/clock.js';
import { TelformError } from '../../util/errors.js';
import { describeDatabaseState, scrub, urlPassword } from '../../util/database-url.js';
import { migrate } from './postgres-schema.js';
import {
  stateConflictAdvice,
  type LedgerCommit,
  type LockHolder,
  type StateBackend,
  type StoredState,
} from '../backend.js';

/**
 * The ledger of one workspace in PostgreSQL (`--state postgres://…`, `--workspace NAME`).
 *
 * - The lock is a session-level advisory lock on the run's one connection: it lasts for the whole
 *   run and goes with the connection, so a killed holder cannot leave a stale lock. Who holds it
 *   (host, pid, start time) is kept in a row, for the message of a run that finds it taken.
 * - Every ledger write is one transaction that checks the serial read before (compare-and-swap) and
 *   replaces the journal in the same commit.
 * - Journal records are appended by committed inserts (those of operations running at once in one
 *   statement), each durable before the request it announces.
 * The password comes from the URL or PGPASSWORD and appears in no message.
 */
export class PostgresBackend implements StateBackend {
  readonly location: string;
  private closed = false;
  private locked = false;

  private constructor(
    private readonly client: pg.Client,
    private readonly workspace: string,
    location: string,
    private readonly password: string | undefined,
  ) {
    this.location = location;
  }

  static async open(
    url: string,
    workspace: string,
    env: Readonly<Record<string, string | undefined>>,
  ): Promise<PostgresBackend> {
    const location = describeDatabaseState(url, workspace);
    const password = urlPassword(url) ?? env.PGPASSWORD;
    const client = new pg.Client({
      connectionString: url,
      application_name: 'telform',
      ...(urlPassword(url) === undefined && env.PGPASSWORD !== undefined ? { password: env.PGPASSWORD } : {}),
    });
    // A connection lost mid-run surfaces on the next query; without a listener it would crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await migrate(client, location);
    } catch (error) {
      await client.end().catch(() => undefined);
      if (error instanceof TelformError) throw error;
      const reason = (error as Error).message;
      // The driver's words for "the server asked for a password and it has none" name neither.
      if (!password && /\bSASL\b|password/i.test(reason)) {
        const user = databaseUser(url, env);
        throw new TelformError(
          'state_database',
          `the state database ${location} asks for the password${user ? ` of user ${user}` : ''}, and none was given: set PGPASSWORD (telform reads the database password from it, or from the URL as postgres://USER:PASSWORD@HOST/DB)`,
        );
      }
      throw new TelformError('state_database', `cannot use the state database ${location}: ${scrub(reason, password)}`);
    }
    return new PostgresBackend(client, workspace, location, password);
  }

  async lock(waitMs: number, clock: Clock = systemClock): Promise<void> {
    const key = lockKey(this.workspace);
    const deadline = clock.now() + waitMs;
    for (;;) {
      const taken = await this.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
      if (taken.rows[0]?.locked) break;
      if (clock.now() >= deadline) {
        const holder = await this.holder();
        const who = holder ? `process ${holder.pid} on ${holder.host} since ${holder.started_at}` : 'another session';
        throw new TelformError(
          'state_locked',
          `the state ${this.location} is locked by ${who}; wait for it to finish, or pass --lock-timeout (e.g. 5m) to wait for it`,
        );
      }
      await clock.sleep(Math.min(250, Math.max(10, deadline - clock.now())));
    }
    this.locked = true;
    const me: LockHolder = { host: hostname(), pid: process.pid, started_at: new Date(clock.now()).toISOString() };
    await this.query(
      `INSERT INTO telform_lock_holders (workspace, host, pid, started_at, backend_pid) VALUES ($1, $2, $3, $4, pg_backend_pid())
       ON CONFLICT (workspace) DO UPDATE SET host = $2, pid = $3, started_at = $4, backend_pid = pg_backend_pid()`,
      [this.workspace, me.host, me.pid, me.started_at],
    );
  }

  /** The recorded holder, if the session that recorded it still holds an advisory lock. */
  private async holder(): Promise<LockHolder | undefined> {
    const found = await this.query<{ host: string; pid: number; started_at: Date }>(
      `SELECT h.host, h.pid, h.started_at FROM telform_lock_holders h
       WHERE h.workspace = $1 AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid)`,
      [this.workspace],
    );
    const row = found.rows[0];
    return row ? { host: row.host, pid: row.pid, started_at: row.started_at.toISOString() } : undefined;
  }

  async read(): Promise<StoredState> {
    // One snapshot for both, so a commit between them cannot pair a new ledger with an old journal.
    await this.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const ledger = await this.query<{ body: string }>('SELECT body FROM telform_ledgers WHERE workspace = $1', [
        this.workspace,
      ]);
      const journal = await this.query<{ record: string }>(
        'SELECT record FROM telform_journal WHERE workspace = $1 ORDER BY id',
        [this.workspace],
      );
      await this.query('COMMIT');
      return { ledger: ledger.rows[0]?.body, journal: journal.rows.map((row) => row.record) };
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async append(records: readonly string[]): Promise<void> {
    if (records.length === 0) return;
    // One statement, one commit: the rows take their ids (the journal's order) in the array's order.
    await this.query(
      'INSERT INTO telform_journal (workspace, record) SELECT $1, record FROM unnest($2::text[]) WITH ORDINALITY AS appended (record, position) ORDER BY position',
      [this.workspace, records],
    );
  }

  async commit(change: LedgerCommit): Promise<void> {
    await this.query('BEGIN');
    try {
      const written =
        change.expectedSerial === undefined
          ? await this.query(
              'INSERT INTO telform_ledgers (workspace, serial, body) VALUES ($1, $2, $3) ON CONFLICT (workspace) DO NOTHING',
              [this.workspace, change.serial, change.ledger],
            )
          : await this.query(
              'UPDATE telform_ledgers SET serial = $2, body = $3, updated_at = now() WHERE workspace = $1 AND serial = $4',
              [this.workspace, change.serial, change.ledger, change.expectedSerial],
            );
      if (written.rowCount !== 1) {
        const now = await this.query<{ serial: string }>('SELECT serial FROM telform_ledgers WHERE workspace = $1', [
          this.workspace,
        ]);
        const found = now.rows[0] ? `serial ${now.rows[0].serial}` : 'no ledger';
        const read = change.expectedSerial === undefined ? 'none' : `serial ${change.expectedSerial}`;
        throw new TelformError(
          'state_conflict',
          `the state ${this.location} was ${read} when read and is ${found} now: ${stateConflictAdvice}`,
        );
      }
      await this.query('DELETE FROM telform_journal WHERE workspace = $1', [this.workspace]);
      for (const record of change.journal)
        await this.query('INSERT INTO telform_journal (workspace, record) VALUES ($1, $2)', [this.workspace, record]);
      await this.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async backup(ledger: string): Promise<string> {
    const saved = await this.query<{ id: string }>(
      'INSERT INTO telform_backups (workspace, body) VALUES ($1, $2) RETURNING id',
      [this.workspace, ledger],
    );
    return `${this.location}, backup ${saved.rows[0]?.id ?? '?'} in table telform_backups`;
  }

  async readHistory(): Promise<string[]> {
    const found = await this.query<{ record: string }>(
      'SELECT record FROM telform_history WHERE workspace = $1 ORDER BY id',
      [this.workspace],
    );
    return found.rows.map((row) => row.record);
  }

  async appendHistory(record: string, keep: number): Promise<void> {
    await this.query('BEGIN');
    try {
      await this.query('INSERT INTO telform_history (workspace, record) VALUES ($1, $2)', [this.workspace, record]);
      await this.query(
        `DELETE FROM telform_history WHERE workspace = $1 AND id < (
           SELECT min(id) FROM (SELECT id FROM telform_history WHERE workspace = $1 ORDER BY id DESC LIMIT $2) AS kept)`,
        [this.workspace, keep],
      );
      await this.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.locked) {
        await this.client.query(
          'DELETE FROM telform_lock_holders WHERE workspace = $1 AND backend_pid = pg_backend_pid()',
          [this.workspace],
        );
        await this.client.query('SELECT pg_advisory_unlock($1)', [lockKey(this.workspace)]);
      }
    } catch {
      // The connection is gone: so is its lock.
    } finally {
      await this.client.end().catch(() => undefined);
    }
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.client.query<R>(text, values);
    } catch (error) {
      if (error instanceof TelformError) throw error;
      throw new TelformError(
        'state_database',
        `the state database ${this.location} failed: ${scrub((error as Error).message, this.password)}`,
      );
    }
  }
}

/** The advisory lock key of a workspace: 64 bits of a hash of its name (signed, as PostgreSQL's bigint). */
/** Who the driver connects as: the URL's user, else PGUSER, else the login name (empty when none is known). */
function databaseUser(url: string, env: Readonly<Record<string, string | undefined>>): string {
  let fromUrl = '';
  try {
    fromUrl = decodeURIComponent(new URL(url).username);
  } catch {
    // Not a URL the WHATWG parser reads: the driver's own parser may still; name no user from it.
  }
  return fromUrl || env.PGUSER || env.USER || '';
}

export function lockKey(workspace: string): string {
  return createHash('sha256').update(`telform workspace\u0000${workspace}`).digest().readBigInt64BE(0).toString();
}
