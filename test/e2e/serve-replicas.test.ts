import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startPostgres, type PostgresServer } from '../state/postgres-server.js';
import { cleanEnv, runCli } from './cli.js';
import { startServeCli, type ServeProcess } from './serve-harness.js';

/**
 * Two `telform serve --apply safe` replicas on one PostgreSQL state: every trunk of four accounts is
 * disabled by hand before they start, so both find the same drift at once and both try to heal it.
 * The state lock lets one apply an account at a time: each trunk is updated exactly once (the
 * emulator's request log), each account is applied by one replica, and both end in sync.
 */

const names = ['north', 'south', 'east', 'west'] as const;
const accounts = Object.fromEntries(
  names.map((name) => [name, { authId: `REPLICA${name.toUpperCase()}`, authToken: `token-of-${name}-replica-test` }]),
) as Record<(typeof names)[number], { authId: string; authToken: string }>;

let postgres: PostgresServer;
let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;
const replicas: ServeProcess[] = [];

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

async function api(
  name: (typeof names)[number],
  method: string,
  pathname: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const { authId, authToken } = accounts[name];
  const response = await fetch(`${emulator.url}/v1/Account/${authId}${pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${authId}:${authToken}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

beforeAll(async () => {
  postgres = await startPostgres();
  const url = await postgres.createDatabase('serve_replicas');
  emulator = await startEmulator({ accounts: Object.values(accounts) });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-serve-replicas-'));
  env = cleanEnv({ TELFORM_ENDPOINT: emulator.url });
  const entries: string[] = [];
  for (const [index, name] of names.entries()) {
    await mkdir(path.join(folder, name));
    await writeFile(
      path.join(folder, name, 'pbx.yaml'),
      [
        document('TrunkIpAcl', 'office', { ip_addresses: [`192.0.2.${index + 1}`] }),
        document('Trunk', 'pbx-out', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'office' } }),
      ].join('\n---\n'),
    );
    entries.push(
      `  - name: ${name}\n    manifests: [${name}/]\n    credentials: { auth_id_env: ${name.toUpperCase()}_ID, auth_token_env: ${name.toUpperCase()}_TOKEN }`,
    );
    env[`${name.toUpperCase()}_ID`] = accounts[name].authId;
    env[`${name.toUpperCase()}_TOKEN`] = accounts[name].authToken;
  }
  await writeFile(path.join(folder, 'accounts.yaml'), `defaults:\n  state: ${url}\naccounts:\n${entries.join('\n')}\n`);
  const apply = await runCli(['apply', '--accounts', 'accounts.yaml', '--auto-approve'], { cwd: folder, env });
  expect(apply.code, apply.stdout + apply.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop('SIGKILL')));
  await emulator?.close();
  await postgres?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe('telform serve replicas on one PostgreSQL state', () => {
  it('apply each account one replica at a time: every drifted trunk is healed exactly once', async () => {
    const trunkOf = new Map<string, string>();
    for (const name of names) {
      const trunk = ((await api(name, 'GET', '/Zentrunk/Trunk/')).objects as Array<{ trunk_id: string }>)[0]
        ?.trunk_id as string;
      trunkOf.set(name, trunk);
      await api(name, 'POST', `/Zentrunk/Trunk/${trunk}/`, { trunk_status: 'disabled' });
    }
    await fetch(`${emulator.url}/__emulator/requests/`, { method: 'DELETE' });
    // Every request takes a while, so the two replicas' checks and applies overlap.
    await fetch(`${emulator.url}/__emulator/faults/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency: 250 }),
    });
    const args = [
      '--accounts',
      'accounts.yaml',
      '--listen',
      '127.0.0.1:0',
      '--interval',
      '2s',
      '--jitter',
      '0',
      '--account-parallelism',
      '4',
      '--apply',
      'safe',
    ];
    replicas.push(
      ...(await Promise.all([startServeCli(args, { cwd: folder, env }), startServeCli(args, { cwd: folder, env })])),
    );

    for (const name of names) {
      // Both replicas see the account in sync again, after the one apply.
      for (const replica of replicas) {
        await replica.waitForEvent(
          (event) => event.account === name && event.type === 'account_status' && event.to === 'in_sync',
          { timeoutMs: 30_000 },
        );
      }
    }
    const applied = replicas.flatMap((replica) => replica.events.filter((event) => event.type === 'applied'));
    expect(applied.map((event) => event.account).sort()).toEqual([...names].sort());
    expect(applied.every((event) => event.failed === false)).toBe(true);

    const log = (await (await fetch(`${emulator.url}/__emulator/requests/?type=request`)).json()) as {
      requests: Array<{ account: string; method: string; path: string }>;
    };
    for (const name of names) {
      const updates = log.requests.filter(
        (entry) =>
          entry.account === accounts[name].authId &&
          entry.method === 'POST' &&
          entry.path.endsWith(`/Trunk/${trunkOf.get(name)}/`),
      );
      expect(updates, name).toHaveLength(1);
      const trunk = await api(name, 'GET', `/Zentrunk/Trunk/${trunkOf.get(name)}/`);
      expect((trunk.object as Record<string, unknown>).trunk_status).toBe('enabled');
    }
    const skipped = replicas.flatMap((replica) =>
      replica.logs.filter((line) => line.msg === 'apply skipped: another run holds the state lock'),
    );
    console.log(`replicas: ${applied.length} applies, ${skipped.length} skipped for the other replica's lock`);
    for (const replica of replicas) expect(await replica.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 120_000);
});
