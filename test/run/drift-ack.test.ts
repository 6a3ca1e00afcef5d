// Drift acknowledged by a person for a while, in process on the emulator with a clock the test sets:
// `drift` exits 0 listing it, and 2 again at TTL + 1 s or once the live object drifts further.
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgeDrift } from '../../src/run/acknowledge.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { checkDrift } from '../../src/run/drift-check.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { openState } from '../../src/run/state-location.js';
import { parseHistory } from '../../src/state/history.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { ManualClock } from '../support/clock.js';
import { accounts, startHarness, type Harness } from './harness.js';

let harness: Harness;
let globals: GlobalOptions;
const account = accounts[2];
const alice = generateKeyPairSync('ed25519').privateKey;

async function setAddresses(addresses: string[]): Promise<void> {
  const ledger = JSON.parse(await readFile(globals.state as string, 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  const response = await fetch(
    `${harness.emulator.url}/v1/Account/${account.authId}/Zentrunk/IPAccessControlList/${ledger.resources['TrunkIpAcl/office']?.id}/`,
    {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${account.authId}:${account.authToken}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ ip_addresses: addresses }),
    },
  );
  expect(response.status).toBeLessThan(300);
}

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'ack.state.json') };
  await harness.write(
    'acl.yaml',
    'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses:\n    - 203.0.113.10\n',
  );
  await writeFile(path.join(harness.folder, 'alice.pem'), alice.export({ format: 'pem', type: 'pkcs8' }).toString());
  await harness.write(
    'people.yaml',
    `apiVersion: telform/v1\nkind: People\npeople:\n  alice: { keys: ["${sshPublicKeyLine(alice)}"], roles: [sre] }\n`,
  );
  await harness.write('policy.yaml', 'apiVersion: telform/v1\nkind: Policy\npeople: people.yaml\napprovals: []\n');
  const run = await reconcile({ paths: ['acl.yaml'] }, globals, approvalsFrom({}), harness.context(harness.envOf(2)), {
    lock: true,
  });
  await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
  // Someone adds an address in the console, for a carrier test.
  await setAddresses(['203.0.113.10', '192.0.2.44']);
});
afterAll(async () => {
  await harness.close();
});

describe('drift acknowledged by a person (run/acknowledge.ts, run/drift-acks.ts)', () => {
  it('exits 0 listing acknowledged drift until its TTL, and 2 again at TTL + 1 s', async () => {
    const context = harness.context(harness.envOf(2));
    const clock = new ManualClock(Date.now());
    const request = { paths: ['acl.yaml'], values: { value: [] }, clock };
    expect(await checkDrift(request, globals, context)).toMatchObject({ exitCode: 2 });
    const acknowledged = await acknowledgeDrift(
      {
        paths: ['acl.yaml'],
        address: 'TrunkIpAcl/office',
        reason: 'carrier test until 11:00, CHG-118',
        ttlMs: 3_600_000,
        person: 'alice',
        keyFile: 'alice.pem',
        policies: ['policy.yaml'],
        clock,
      },
      globals,
      context,
    );
    const until = new Date(clock.now() + 3_600_000).toISOString();
    expect(acknowledged.until).toBe(until);
    const quiet = await checkDrift(request, globals, context);
    expect(quiet).toMatchObject({
      mode: 'report',
      exitCode: 0,
      report: {
        status: 'in_sync',
        drifted: [],
        acknowledged: [
          {
            address: 'TrunkIpAcl/office',
            by: 'alice',
            reason: 'carrier test until 11:00, CHG-118',
            until,
            seq: acknowledged.seq,
          },
        ],
      },
    });
    // Recorded in the history, signed.
    const store = await openState(globals, {}, { lock: false });
    const record = parseHistory(await store.readHistory()).at(-1);
    await store.close();
    expect(record).toMatchObject({ type: 'drift_ack', ack: { address: 'TrunkIpAcl/office', person: 'alice' } });
    expect(record?.type === 'drift_ack' ? record.ack.signature : '').toMatch(/^-----BEGIN SSH SIGNATURE-----/);

    // It holds until its end (exclusive): a second before, acknowledged; a second after, drift again.
    await clock.advance(3_599_000);
    expect(await checkDrift(request, globals, context)).toMatchObject({ exitCode: 0 });
    await clock.advance(2_000);
    expect(await checkDrift(request, globals, context)).toMatchObject({
      exitCode: 2,
      report: { status: 'drifted', drifted: ['TrunkIpAcl/office'] },
    });
  });

  it('exits 2 again once the live object drifts further', async () => {
    const context = harness.context(harness.envOf(2));
    const clock = new ManualClock(Date.now());
    const request = { paths: ['acl.yaml'], values: { value: [] }, clock };
    await acknowledgeDrift(
      {
        paths: ['acl.yaml'],
        address: 'TrunkIpAcl/office',
        reason: 'carrier test',
        ttlMs: 3_600_000,
        person: 'alice',
        keyFile: 'alice.pem',
        policies: ['policy.yaml'],
        clock,
      },
      globals,
      context,
    );
    expect(await checkDrift(request, globals, context)).toMatchObject({ exitCode: 0 });
    await setAddresses(['203.0.113.10', '192.0.2.44', '192.0.2.45']);
    expect(await checkDrift(request, globals, context)).toMatchObject({
      exitCode: 2,
      report: { status: 'drifted', drifted: ['TrunkIpAcl/office'] },
    });
  });
});
