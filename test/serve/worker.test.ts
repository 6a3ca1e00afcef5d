import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Connect } from '../../src/run/context.js';
import { createWorker } from '../../src/serve/worker.js';
import type { AccountWorker } from '../../src/serve/service.js';

/**
 * One account as serve drives it, in process, through the real operations against the emulator:
 * an apply of a plan that needs no approval, a check in sync whose request count is the emulator's
 * own, 429s counted, one object's registry status re-read, and a plan held for a person.
 */

const account = { authId: 'WORKERTEST01', authToken: 'token-of-worker-test-01' };
let emulator: RunningEmulator;
let folder: string;
let worker: AccountWorker;

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

async function admin(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}/__emulator/${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function requestsLogged(): Promise<number> {
  const log = (await admin('GET', `requests/?account=${account.authId}&type=request`)) as { requests: unknown[] };
  return log.requests.length;
}

beforeAll(async () => {
  emulator = await startEmulator({ accounts: [account], registryDelayMs: 600_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-serve-worker-'));
  await writeFile(
    path.join(folder, 'account.yaml'),
    [
      document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.7'] }),
      document('Brand', 'bluebird', {
        profile_uuid: '5eed0000-0000-4000-8000-000000000002',
        brand_alias: 'Bluebird Logistics',
        brand_type: 'STANDARD',
      }),
    ].join('\n---\n'),
  );
  const connect: Connect = async (_globals, io) => {
    const client = new ApiClient({
      baseUrl: emulator.url,
      credentials: { authId: io.env.TELFORM_AUTH_ID as string, authToken: io.env.TELFORM_AUTH_TOKEN as string },
    });
    return {
      client,
      endpointLabel: emulator.url,
      account: account.authId,
      authToken: account.authToken,
      close: () => client.close(),
    };
  };
  worker = createWorker({
    name: 'acme',
    manifests: [path.join(folder, 'account.yaml')],
    globals: { state: path.join(folder, 'acme.state.json') },
    io: {
      cwd: folder,
      env: { TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken },
      stderr: () => undefined,
    },
    connect,
    parallelism: 4,
  });
});

afterAll(async () => {
  await worker?.close();
  await emulator?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the serve worker', () => {
  it('applies a plan that needs no approval, then checks in sync, counting exactly the requests the API received', async () => {
    expect(worker.authToken).toBe(account.authToken);
    const applied = await worker.applySafe();
    expect(applied).toMatchObject({
      result: 'applied',
      changes: ['TrunkIpAcl/office', 'Brand/bluebird'],
      failed: false,
    });
    await admin('DELETE', 'requests/');
    const check = await worker.check();
    expect(check).toMatchObject({ status: 'in_sync', drifted: [], pending: [], plan: [], rateLimited: 0 });
    expect(check.registry).toEqual([
      { address: 'Brand/bluebird', kind: 'Brand', id: expect.stringMatching(/^B/), status: 'PROCESSING' },
    ]);
    expect(check.requests).toBe(await requestsLogged());
    expect(await worker.applySafe()).toEqual({ result: 'nothing' });
  });

  it("re-reads one object's registry status with the kind's read (a brand's: the brand and its campaigns)", async () => {
    const brand = (await worker.check()).registry[0];
    await admin('POST', 'clock/', { advance_ms: 600_000 });
    await admin('DELETE', 'requests/');
    const read = await worker.readRegistry('Brand', brand?.id as string);
    expect(read).toEqual({ entry: { status: 'COMPLETED' }, requests: 2, rateLimited: 0 });
    expect(await requestsLogged()).toBe(2);
    expect(await worker.readRegistry('Campaign', 'CNOSUCH')).toMatchObject({ requests: 1 });
  });

  it('counts the 429s of a rate-limited check, and still finishes it', async () => {
    await admin('POST', 'faults/', { rate_limit: '3/1s' });
    try {
      const check = await worker.check();
      expect(check.status).toBe('in_sync');
      expect(check.rateLimited).toBeGreaterThan(0);
    } finally {
      await admin('DELETE', 'faults/');
    }
  }, 30_000);

  it('holds a plan with an irreversible change for a person, and applies nothing', async () => {
    await writeFile(
      path.join(folder, 'account.yaml'),
      document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.7'] }),
    );
    await admin('DELETE', 'requests/');
    const held = await worker.applySafe();
    expect(held).toMatchObject({ result: 'held', changes: ['Brand/bluebird'] });
    expect((held as { reasons: string[] }).reasons.join('\n')).toContain('--allow-irreversible Brand/bluebird');
    const log = (await admin('GET', `requests/?account=${account.authId}&type=request`)) as {
      requests: Array<{ method: string }>;
    };
    expect(log.requests.filter((entry) => entry.method !== 'GET')).toEqual([]);
  });
});
