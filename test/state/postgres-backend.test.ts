import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/state/backends/postgres.js';
import { schemaVersion } from '../../src/state/backends/postgres-schema.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/** The PostgreSQL backend against a real server: schema, lock, compare-and-swap, journal, secrets. */

let server: PostgresServer;
let url: string;
const open = (workspace = 'default') => PostgresBackend.open(url, workspace, {});

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('backend');
});
afterAll(async () => {
  await server?.stop();
});

describe('PostgreSQL state backend', () => {
  it('creates its tables on first use, once, and refuses a schema newer than it knows', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await Promise.all([a.close(), b.close()]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT version FROM telform_schema')).rows).toEqual([{ version: schemaVersion }]);
      await client.query('UPDATE telform_schema SET version = version + 1');
      await expect(open()).rejects.toThrow(
        `the state database ${url} (workspace default) has schema version ${schemaVersion + 1}, newer than this telform understands (${schemaVersion}); upgrade telform`,
      );
      await client.query('UPDATE telform_schema SET version = version - 1');
    } finally {
      await client.end();
    }
  });

  it('lets one run hold a workspace: another refuses at once naming the holder, or waits for it', async () => {
    const first = await open('locks');
    await first.lock(0);
    const second = await open('locks');
    const other = await open('another-workspace');
    try {
      await other.lock(0);
      await expect(second.lock(0)).rejects.toThrow(
        new RegExp(
          `^the state ${escape(url)} \\(workspace locks\\) is locked by process ${process.pid} on ${escape(hostname())} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; wait for it to finish, or pass --lock-timeout`,
        ),
      );
      const waited = second.lock(30_000);
      setTimeout(() => void first.close(), 300);
      await waited;
    } finally {
      await Promise.all([first.close(), second.close(), other.close()]);
    }
  });

  // The holder runs the built module (`npm run build`), as a separate process with its own connection.
  it('loses the lock with the holder: a SIGKILLed holder frees the workspace', async () => {
    const script = `
      const { PostgresBackend } = await import(${JSON.stringify(resolve('dist/state/backends/postgres.js'))});
      const backend = await PostgresBackend.open(process.argv[1], 'killed', {});
      await backend.lock(0);
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && done());
      child.on('exit', (code) => fail(new Error(`holder exited ${code}`)));
    });
    const waiting = await open('killed');
    try {
      await expect(waiting.lock(0)).rejects.toThrow(`is locked by process ${child.pid} on`);
      child.kill('SIGKILL');
      await waiting.lock(10_000);
    } finally {
      await waiting.close();
    }
  });

  // A holder killed under a parent that never reaps it (PID 1 of a container) stays a zombie, but the
  // kernel closed its connection when it exited: the server ends the session and its advisory lock.
  it.runIf(process.platform === 'linux')('loses the lock with a SIGKILLed holder nobody reaps (a zombie)', async () => {
    const script = `
      const { PostgresBackend } = await import(${JSON.stringify(resolve('dist/state/backends/postgres.js'))});
      const backend = await PostgresBackend.open(process.argv[1], 'zombie', {});
      await backend.lock(0);
      process.stdout.write('locked ' + process.pid + '\\n');
      setInterval(() => {}, 1000);`;
    const parent = spawn(
      'sh',
      ['-c', `"$0" --input-type=module -e "$1" "$2" & exec sleep 600`, process.execPath, script, url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const holder = Number(
        await new Promise<string>((done) =>
          parent.stdout.on('data', (chunk: Buffer) => {
            const found = /locked (\d+)/.exec(chunk.toString());
            if (found) done(found[1] as string);
          }),
        ),
      );
      const waiting = await open('zombie');
      try {
        await expect(waiting.lock(0)).rejects.toThrow(`is locked by process ${holder} on`);
        process.kill(holder, 'SIGKILL');
        await waiting.lock(10_000);
        const stat = await readFile(`/proc/${holder}/stat`, 'utf8');
        expect(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)).toBe('Z');
      } finally {
        await waiting.close();
      }
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('writes only over the serial it read (compare-and-swap), replacing the journal in the same transaction', async () => {
    const backend = await open('cas');
    try {
      expect(await backend.read()).toEqual({ ledger: undefined, journal: [] });
      await backend.append(['{"type":"intent"}']);
      // Several records in one append keep their order.
      await backend.append(['{"type":"result"}', '{"type":"intent","seq":3}', '{"type":"result","seq":4}']);
      expect((await backend.read()).journal).toEqual([
        '{"type":"intent"}',
        '{"type":"result"}',
        '{"type":"intent","seq":3}',
        '{"type":"result","seq":4}',
      ]);
      await backend.commit({ ledger: '{"serial":1}', serial: 1, expectedSerial: undefined, journal: ['{"open":1}'] });
      expect(await backend.read()).toEqual({ ledger: '{"serial":1}', journal: ['{"open":1}'] });
      await expect(
        backend.commit({ ledger: '{"serial":1}', serial: 1, expectedSerial: undefined, journal: [] }),
      ).rejects.toThrow(
        `the state ${url} (workspace cas) was none when read and is serial 1 now: another run changed it since it was read; nothing was overwritten, run the command again`,
      );
      await backend.commit({ ledger: '{"serial":2}', serial: 2, expectedSerial: 1, journal: [] });
      await expect(
        backend.commit({ ledger: '{"serial":2}', serial: 2, expectedSerial: 1, journal: [] }),
      ).rejects.toThrow('was serial 1 when read and is serial 2 now');
      expect(await backend.read()).toEqual({ ledger: '{"serial":2}', journal: [] });
    } finally {
      await backend.close();
    }
  });

  it('needs no right to create tables once they exist: a role that may only read and write them works', async () => {
    await (await open()).close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('CREATE ROLE worker LOGIN');
      await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO worker');
      await admin.query('GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO worker');
    } finally {
      await admin.end();
    }
    const backend = await PostgresBackend.open(url.replace('//telform@', '//worker@'), 'worker', {});
    try {
      await backend.lock(0);
      await backend.append(['{"type":"intent"}']);
      await backend.commit({ ledger: '{"serial":1}', serial: 1, expectedSerial: undefined, journal: [] });
      expect(await backend.read()).toEqual({ ledger: '{"serial":1}', journal: [] });
    } finally {
      await backend.close();
    }
  });

  it('never shows the password of the URL', async () => {
    const secretUrl = `postgres://telform:pa55-w0rd-secret@127.0.0.1:1/nowhere`;
    const failure = await PostgresBackend.open(secretUrl, 'default', {}).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^cannot use the state database postgres:\/\/telform:\*\*\*@127\.0\.0\.1:1\/nowhere \(workspace default\): /,
    );
    expect((failure as Error).message).not.toContain('pa55');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('PostgreSQL state backend: the history', () => {
  it('appends records in order, keeps the newest `keep`, and reads them back for every session', async () => {
    const writer = await open('history');
    const reader = await open('history');
    const other = await open('history-other');
    try {
      await writer.lock(0);
      for (const n of [1, 2, 3, 4]) await writer.appendHistory(`{"n":${n}}`, 3);
      await other.appendHistory('{"n":"other"}', 3);
      expect(await reader.readHistory()).toEqual(['{"n":2}', '{"n":3}', '{"n":4}']);
      expect(await other.readHistory()).toEqual(['{"n":"other"}']);
    } finally {
      await Promise.all([writer.close(), reader.close(), other.close()]);
    }
  });
});
