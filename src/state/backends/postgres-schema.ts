import type pg from 'pg';
import { TelformError } from '../../util/errors.js';

/**
 * The tables of the PostgreSQL state backend, created and migrated on first use. Migrations only
 * go forward: each runs once, in order, in one transaction with the version bump, under a
 * transaction-scoped advisory lock so two first runs at once do not both migrate. A database whose
 * schema is newer than this telform knows is refused rather than misread.
 */

const migrations: readonly string[] = [
  // 1: one ledger per workspace (its serial beside it, for compare-and-swap writes), its journal,
  // copies kept before `telform state` edits, and who holds each workspace's lock (the lock itself is an advisory lock of the holder's session).
  `CREATE TABLE telform_ledgers (
     workspace text PRIMARY KEY,
     serial bigint NOT NULL,
     body text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE telform_journal (
     id bigserial PRIMARY KEY,
     workspace text NOT NULL,
     record text NOT NULL
   );
   CREATE INDEX telform_journal_workspace ON telform_journal (workspace, id);
   CREATE TABLE telform_backups (
     id bigserial PRIMARY KEY,
     workspace text NOT NULL,
     body text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE telform_lock_holders (
     workspace text PRIMARY KEY,
     host text NOT NULL,
     pid integer NOT NULL,
     started_at timestamptz NOT NULL,
     backend_pid integer NOT NULL
   );`,
  // 2: the history of each workspace (records appended in id order, never updated; retention deletes the oldest).
  `CREATE TABLE telform_history (
     id bigserial PRIMARY KEY,
     workspace text NOT NULL,
     record text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX telform_history_workspace ON telform_history (workspace, id);`,
];

export const schemaVersion = migrations.length;

/** Any fixed number works: it only has to differ from the keys of the workspaces' locks. */
const migrationLockKey = 7_346_372_100_001;

export async function migrate(client: pg.Client, location: string): Promise<void> {
  // Up to date (every run but the first after an upgrade): nothing to create, so a user who may only
  // read and write the tables is enough.
  if ((await currentVersion(client, location)) === schemaVersion) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
    await client.query('CREATE TABLE IF NOT EXISTS telform_schema (version integer NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM telform_schema');
    const current = found.rows[0]?.version ?? 0;
    refuseNewer(current, location);
    for (let version = current + 1; version <= schemaVersion; version += 1)
      await client.query(migrations[version - 1] as string);
    if (found.rows.length === 0)
      await client.query('INSERT INTO telform_schema (version) VALUES ($1)', [schemaVersion]);
    else if (current < schemaVersion) await client.query('UPDATE telform_schema SET version = $1', [schemaVersion]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function currentVersion(client: pg.Client, location: string): Promise<number> {
  const present = await client.query<{ present: boolean }>(
    "SELECT to_regclass('telform_schema') IS NOT NULL AS present",
  );
  if (!present.rows[0]?.present) return 0;
  const version = (await client.query<{ version: number }>('SELECT version FROM telform_schema')).rows[0]?.version ?? 0;
  refuseNewer(version, location);
  return version;
}

function refuseNewer(version: number, location: string): void {
  if (version > schemaVersion) {
    throw new TelformError(
      'state_schema',
      `the state database ${location} has schema version ${version}, newer than this telform understands (${schemaVersion}); upgrade telform`,
    );
  }
}
