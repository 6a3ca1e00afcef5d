import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster for tests, from the machine's own binaries: `initdb` into a
 * temporary folder, `postgres` on 127.0.0.1 and a free port (its unix socket in that folder too),
 * trust authentication for the one superuser. PostgreSQL refuses to run as root, and CI runs as
 * root, so as root every server command runs as the `postgres` user in a folder that user owns.
 */

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgres://telform@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** A URL for a fresh database on this server (created now). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const superuser = 'telform';

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinaries();
  const root = await mkdtemp(join(tmpdir(), 'telform-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) await chown(root, ...(await postgresIds()));
  const data = join(root, 'data');
  const port = await freePort();
  const serverCommand = (program: string, args: string[]) => run(...wrap(asRoot, join(bin, program), args), { timeout: 60_000 });
  try {
    await serverCommand('initdb', ['-D', data, '-U', superuser, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    await serverCommand('pg_ctl', [
      '-D',
      data,
      '-l',
      join(root, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      // fsync off: a test cluster is thrown away, and durability of the machine's disk is not under test.
      `-h 127.0.0.1 -p ${port} -k ${root} -c fsync=off -c max_connections=50 -c shared_buffers=16MB`,
      'start',
    ]);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`could not start a test PostgreSQL from ${bin}: ${(error as Error).message}`);
  }
  const url = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://${superuser}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await serverCommand('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The newest `/usr/lib/postgresql/N/bin` (Debian), else the folder of `initdb` on the PATH. */
export function postgresBinaries(): string {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => existsSync(join(debian, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, 'initdb'))) return folder;
  }
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) were not found: install them (Debian: apt-get install postgresql)');
}

function wrap(asRoot: boolean, program: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
}

async function postgresIds(): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
