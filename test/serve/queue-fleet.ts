// A fleet of `telform serve --queue` replicas for tests and the bench: one throwaway PostgreSQL
// (the state and the queue), one emulator with many accounts, an accounts file, and replicas of the
// built CLI started and stopped (or killed) one by one. What each account was sent comes from the
// emulator's request log; which replica did what, from the replicas' logs and the queue's tables.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RequestLogEntry } from '../../src/emulator/request-log.js';
import { startPostgres, type PostgresServer } from '../state/postgres-server.js';
import { cleanEnv } from '../e2e/cli.js';
import { startServeCli, type ServeProcess } from '../e2e/serve-harness.js';

export interface QueueFleet {
  accounts: string[];
  /** The emulator's account id (auth id) of each account name. */
  authIds: Map<string, string>;
  emulator: RunningEmulator;
  databaseUrl: string;
  folder: string;
  replicas: Map<string, ServeProcess>;
  startReplica(name: string, args?: readonly string[]): Promise<ServeProcess>;
  /** Every request the emulator served, per account name, each with when it began and ended (ms). */
  requestsByAccount(): Map<string, Array<RequestLogEntry & { startMs: number; endMs: number }>>;
  query<Row>(text: string, values?: unknown[]): Promise<Row[]>;
  /** GET of the account's API (as the account), parsed. */
  api(account: string, pathname: string): Promise<{ objects?: Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

export interface QueueFleetOptions {
  accounts: number;
  /** Flags every replica gets (the interval, jitter, expiries…). */
  replicaArgs: readonly string[];
  /** Emulator latency per request, e.g. `5-15`. */
  latency?: string;
}

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

export async function startQueueFleet(options: QueueFleetOptions): Promise<QueueFleet> {
  const postgres: PostgresServer = await startPostgres();
  const databaseUrl = await postgres.createDatabase('serve_queue');
  const accounts = Array.from({ length: options.accounts }, (_, index) => `acct${String(index).padStart(4, '0')}`);
  const credentials = accounts.map((name, index) => ({
    authId: `MAQUEUE${String(index).padStart(13, '0')}`,
    authToken: `token-of-${name}-queue-fleet`,
  }));
  const emulator = await startEmulator({
    accounts: credentials,
    shapes: 'ideal',
    ...(options.latency === undefined ? {} : { latency: options.latency }),
  });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-serve-queue-'));
  const env = cleanEnv({ TELFORM_ENDPOINT: emulator.url });
  const entries: string[] = [];
  const authIds = new Map<string, string>();
  for (const [index, name] of accounts.entries()) {
    const credential = credentials[index] as { authId: string; authToken: string };
    authIds.set(name, credential.authId);
    await mkdir(path.join(folder, name));
    await writeFile(
      path.join(folder, name, 'acl.yaml'),
      document('TrunkIpAcl', 'office', { ip_addresses: [`192.0.2.${(index % 250) + 1}`] }),
    );
    const variable = name.toUpperCase();
    entries.push(
      `  - name: ${name}\n    manifests: [${name}/]\n    credentials: { auth_id_env: ${variable}_ID, auth_token_env: ${variable}_TOKEN }`,
    );
    env[`${variable}_ID`] = credential.authId;
    env[`${variable}_TOKEN`] = credential.authToken;
  }
  await writeFile(
    path.join(folder, 'accounts.yaml'),
    `defaults:\n  state: ${databaseUrl}\naccounts:\n${entries.join('\n')}\n`,
  );
  const replicas = new Map<string, ServeProcess>();
  const byAuthId = new Map([...authIds].map(([name, id]) => [id, name]));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    accounts,
    authIds,
    emulator,
    databaseUrl,
    folder,
    replicas,
    async startReplica(name, args = []) {
      const replica = await startServeCli(
        [
          '--accounts',
          'accounts.yaml',
          '--queue',
          databaseUrl,
          '--replica',
          name,
          '--listen',
          '127.0.0.1:0',
          ...options.replicaArgs,
          ...args,
        ],
        { cwd: folder, env },
      );
      replicas.set(name, replica);
      return replica;
    },
    requestsByAccount() {
      const grouped = new Map<string, Array<RequestLogEntry & { startMs: number; endMs: number }>>();
      for (const entry of emulator.runtime.log.list({ type: 'request' })) {
        const name = entry.account === null ? undefined : byAuthId.get(entry.account);
        if (name === undefined) continue;
        const endMs = Date.parse(entry.at);
        const list = grouped.get(name) ?? [];
        list.push({ ...entry, startMs: endMs - entry.duration_ms, endMs });
        grouped.set(name, list);
      }
      return grouped;
    },
    async api(account, pathname) {
      const index = accounts.indexOf(account);
      const { authId, authToken } = credentials[index] as { authId: string; authToken: string };
      const response = await fetch(`${emulator.url}/v1/Account/${authId}${pathname}`, {
        headers: { authorization: `Basic ${Buffer.from(`${authId}:${authToken}`).toString('base64')}` },
      });
      return (await response.json()) as { objects?: Array<Record<string, unknown>> };
    },
    async query<Row>(text: string, values: unknown[] = []) {
      return (await pool.query(text, values)).rows as Row[];
    },
    async close() {
      await Promise.all([...replicas.values()].map((replica) => replica.stop('SIGKILL')));
      await pool.end();
      await emulator.close();
      await postgres.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/**
 * The checks an account's request log shows. Every check of the fleet's accounts reads the same few
 * lists, so the account's reads, in the order they began, fall into consecutive groups of that many,
 * one group per check. Two checks at once would show as a group reading one list twice (the second
 * began before the first ended its reads) or as a group beginning before the one before it ended.
 */
export function checksOf(requests: ReadonlyArray<{ method: string; path: string; startMs: number; endMs: number }>): {
  spans: Array<{ startMs: number; endMs: number }>;
  overlaps: string[];
} {
  const reads = requests.filter((entry) => entry.method === 'GET').sort((a, b) => a.startMs - b.startMs);
  const size = new Set(reads.map((entry) => entry.path)).size;
  const spans: Array<{ startMs: number; endMs: number }> = [];
  const overlaps: string[] = [];
  for (let index = 0; index < reads.length; index += size) {
    const group = reads.slice(index, index + size);
    const paths = new Set(group.map((entry) => entry.path));
    const span = {
      startMs: Math.min(...group.map((entry) => entry.startMs)),
      endMs: Math.max(...group.map((entry) => entry.endMs)),
    };
    if (paths.size !== group.length) overlaps.push(`check ${spans.length + 1} read a list twice`);
    const previous = spans.at(-1);
    if (previous && span.startMs < previous.endMs)
      overlaps.push(`check ${spans.length + 1} began before the one before ended`);
    spans.push(span);
  }
  return { spans, overlaps };
}
