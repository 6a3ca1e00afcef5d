import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPostgres } from './postgres-server.js';

describe('the test PostgreSQL server', () => {
  it('starts on 127.0.0.1 from the machine binaries, serves a fresh database, and is gone after stop', async () => {
    const server = await startPostgres();
    let dataFolder = '';
    try {
      const url = await server.createDatabase('probe');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const answer = await client.query<{ db: string; addr: string; data: string }>(
          "select current_database() as db, inet_server_addr()::text as addr, current_setting('data_directory') as data",
        );
        expect(answer.rows[0]).toMatchObject({ db: 'probe', addr: '127.0.0.1/32' });
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
