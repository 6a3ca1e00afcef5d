import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { FileBackend } from '../../src/state/backends/file.js';
import { LedgerStore } from '../../src/state/ledger-store.js';
import type { PlannerKind } from '../../src/engine/model.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { applyRun, clientFor, coreKinds, desiredFrom, planRun } from '../support/emulator.js';
import { emulatorClock } from '../support/clock.js';

/**
 * A create the API refused outright (422) made nothing: its intent is closed with the refusal, so
 * the next run has nothing to settle and never says "an earlier apply stopped while creating it"
 * (issue 33 item 29). A write with no answer still leaves its intent open.
 */
let emulator: RunningEmulator;
let client: ApiClient;
let folder: string;

beforeAll(async () => {
  emulator = await startEmulator();
  client = clientFor(emulator);
  folder = await mkdtemp(path.join(tmpdir(), 'telform-refused-create-'));
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('a create the API refused', () => {
  it('leaves no open intent behind, so the next run settles nothing', async () => {
    // The ACL kind drops its addresses on the way out: the emulator answers 422 "ip_addresses is required".
    const kinds: PlannerKind[] = coreKinds().map((kind) =>
      kind.kind !== 'TrunkIpAcl'
        ? kind
        : {
            ...kind,
            live: { ...kind.live, create: (context, spec) => kind.live.create(context, { name: spec.name }) },
          },
    );
    const desired = await desiredFrom(
      [{ kind: 'TrunkIpAcl', name: 'office', spec: { ip_addresses: ['192.0.2.1'] } }],
      {},
    );
    const backend = new FileBackend(path.join(folder, 'state.json'));
    const store = await LedgerStore.open(backend, {
      binding: { endpoint: 'test', account: defaultAccount.authId },
      lock: true,
    });
    try {
      const run = { client, store, desired, kinds };
      const result = await applyRun(run, await planRun(run), { parallelism: 1, clock: emulatorClock(emulator) });
      expect(result.failed).toBe(1);
    } finally {
      await store.close();
    }
    const again = await LedgerStore.open(new FileBackend(path.join(folder, 'state.json')), {
      binding: { endpoint: 'test', account: defaultAccount.authId },
      lock: false,
    });
    try {
      expect(again.uncertain).toEqual([]);
      expect(again.ledger.resources['TrunkIpAcl/office']).toBeUndefined();
    } finally {
      await again.close();
    }
  });
});
