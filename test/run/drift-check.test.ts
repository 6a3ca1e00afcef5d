import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { checkDrift } from '../../src/run/drift-check.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { accounts, startHarness, type Harness } from './harness.js';

// `telform drift -f` as an operation, in process: the report with its exit code and windows, and --write.

let harness: Harness;
let globals: GlobalOptions;
const account = accounts[2];

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'drift.state.json') };
  await harness.write(
    'acl.yaml',
    'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses:\n    - 203.0.113.10\n',
  );
  const run = await reconcile({ paths: ['acl.yaml'] }, globals, approvalsFrom({}), harness.context(harness.envOf(2)), {
    lock: true,
  });
  await withReconciliation(run, () => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
  const ledger = JSON.parse(await readFile(globals.state as string, 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  // Someone adds an address in the console.
  const response = await fetch(
    `${harness.emulator.url}/v1/Account/${account.authId}/Zentrunk/IPAccessControlList/${ledger.resources['TrunkIpAcl/office']?.id}/`,
    {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${account.authId}:${account.authToken}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ ip_addresses: ['203.0.113.10', '192.0.2.44'] }),
    },
  );
  expect(response.status).toBeLessThan(300);
});
afterAll(async () => {
  await harness.close();
});

describe('checkDrift (run/drift-check.ts)', () => {
  it('reports the change made outside telform with exit code 2, and its window from the history when asked', async () => {
    const context = harness.context(harness.envOf(2));
    const request = { paths: ['acl.yaml'], values: { value: [] } };
    const plain = await checkDrift(request, globals, context);
    expect(plain).toMatchObject({
      mode: 'report',
      exitCode: 2,
      report: { status: 'drifted', drifted: ['TrunkIpAcl/office'] },
    });
    expect(plain).not.toHaveProperty('windows');
    const checkedAt = new Date().toISOString();
    const windowed = await checkDrift({ ...request, windows: { checkedAt } }, globals, context);
    if (windowed.mode !== 'report') throw new Error('expected a report');
    expect(windowed.windows).toMatchObject({
      state: globals.state,
      windows: [{ address: 'TrunkIpAcl/office', checkedAt, apply: { type: 'apply' } }],
    });
  });

  it('--write puts what the account holds into the manifest, keeping its layout', async () => {
    const written = await checkDrift(
      { paths: ['acl.yaml'], values: { value: [] }, write: { accept: [] } },
      globals,
      harness.context(harness.envOf(2)),
    );
    expect(written).toEqual({
      mode: 'write',
      result: { written: [expect.stringMatching(/^acl\.yaml: TrunkIpAcl\/office /)], notes: [], unwritten: [] },
    });
    expect(await readFile(path.join(harness.folder, 'acl.yaml'), 'utf8')).toContain(
      '    - 203.0.113.10\n    - 192.0.2.44\n',
    );
  });
});
