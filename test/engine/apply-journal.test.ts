import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { FileBackend } from '../../src/state/backends/file.js';
import { LedgerStore } from '../../src/state/ledger-store.js';
import type { PlannerKind } from '../../src/engine/model.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { Limiter } from '../../src/api/limiter.js';
import { applyRun, clientFor, coreKinds, desiredFrom, planRun } from '../support/emulator.js';
import { emulatorClock } from '../support/clock.js';
import { withAppend } from './observed-backend.js';

/**
 * How apply journals against a real emulator: every request is sent only once its intent is
 * durable, and the next operation's intent is made durable while a request is in flight, so a
 * freed request slot never waits for a sync.
 */
let emulator: RunningEmulator;
let client: ApiClient;
let folder: string;

beforeAll(async () => {
  emulator = await startEmulator();
  // One request in flight at a time, as `--parallelism 1` gives the CLI's client.
  client = clientFor(emulator, {
    limiter: new Limiter({ concurrency: 1, requests: 300, periodMs: 5_000 }, emulatorClock(emulator)),
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-apply-journal-'));
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('apply and its journal', () => {
  it('sends each request after its intent is durable, and has the next intent durable before the answer', async () => {
    const events: string[] = [];
    const file = new FileBackend(path.join(folder, 'state.json'));
    const backend = withAppend(file, async (records) => {
      await file.append(records);
      const parsed = records.map((record) => JSON.parse(record) as { type: string; address: string });
      events.push(`durable ${parsed.map((record) => `${record.type} ${record.address}`).join(', ')}`);
    });
    // The ACL kind tells when each create is sent and answered.
    const kinds: PlannerKind[] = coreKinds().map((kind) =>
      kind.kind !== 'TrunkIpAcl'
        ? kind
        : {
            ...kind,
            live: {
              ...kind.live,
              create: async (context, spec) => {
                events.push(`send TrunkIpAcl/${String(spec.name)}`);
                const created = await kind.live.create(context, spec);
                events.push(`answered TrunkIpAcl/${String(spec.name)}`);
                return created;
              },
            },
          },
    );
    const names = ['a', 'b', 'c'];
    const desired = await desiredFrom(
      names.map((name) => ({ kind: 'TrunkIpAcl', name, spec: { ip_addresses: ['192.0.2.1'] } })),
      {},
    );
    const store = await LedgerStore.open(backend, {
      binding: { endpoint: 'test', account: defaultAccount.authId },
      lock: true,
    });
    try {
      const run = { client, store, desired, kinds };
      const result = await applyRun(run, await planRun(run), { parallelism: 1, clock: emulatorClock(emulator) });
      expect(result.failed).toBe(0);
    } finally {
      await store.close();
    }
    const at = (prefix: string, address: string): number =>
      events.findIndex(
        (event) => event.startsWith(prefix) && (event.endsWith(` ${address}`) || event.includes(` ${address},`)),
      );
    for (const name of names) {
      const address = `TrunkIpAcl/${name}`;
      expect(at('durable', `intent ${address}`)).toBeGreaterThanOrEqual(0);
      expect(at('durable', `intent ${address}`)).toBeLessThan(at('send', address));
      expect(at('durable', `result ${address}`)).toBeGreaterThan(at('answered', address));
    }
    // The second create's intent was durable before the first one's answer came back.
    expect(at('durable', 'intent TrunkIpAcl/b')).toBeLessThan(at('answered', 'TrunkIpAcl/a'));
  });
});
