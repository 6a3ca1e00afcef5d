import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load.js';
import type { GlobalOptions, RunContext } from '../../src/run/context.js';
import { importAccount } from '../../src/run/import.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { accounts, connect } from './harness.js';

// `import` never writes a manifest `validate` rejects: an object it cannot express is said per object,
// neither written nor recorded (so no plan deletes it), and the rest is written.

let emulator: RunningEmulator;
let folder: string;
const account = accounts[0];

beforeAll(async () => {
  emulator = await startEmulator({
    shapes: 'production',
    registryDelayMs: 0,
    accounts: [{ ...account }],
    seedData: {
      existing: {
        brands: [{ brand_alias: 'legacy', brand_type: 'STARTER', brand_id: 'BLEG000' }],
        campaigns: [
          {
            campaign_alias: 'old',
            usecase: 'STARTER',
            registration_status: 'ACTIVE',
            campaign_id: 'CLEG000',
            brand_id: 'BLEG000',
          },
        ],
      },
    },
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-import-expressible-'));
});
afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('import of objects it cannot express', () => {
  it('says so per object, writes the rest, and the folder validates and plans no delete', async () => {
    const env = { TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken };
    const context: RunContext = { io: { cwd: folder, env, stderr: () => undefined }, connect };
    const globals: GlobalOptions = { endpoint: emulator.url, state: path.join(folder, 'telform.state.json') };
    const result = await importAccount(
      { kinds: ['Brand', 'Campaign'], out: 'imported', layout: 'per-kind' },
      globals,
      context,
    );
    // Legacy objects the account holds are written: their values are held (warnings), not errors.
    expect(result.refused.map((item) => item.id)).not.toContain('BLEG000');
    expect(result.refused.map((item) => item.id)).not.toContain('CLEG000');
    expect(result.imported.map((resource) => resource.id)).toEqual(expect.arrayContaining(['BLEG000', 'CLEG000']));
    const loaded = await loadManifests(['imported'], { cwd: folder });
    expect(loaded.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(
      loaded.problems
        .filter((problem) => problem.code === 'held_value' && problem.address === 'Brand/legacy')
        .map((problem) => problem.field),
    ).toContain('spec.profile_uuid');
    const run = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), context, { lock: false });
    await withReconciliation(run, async () => {
      expect(run.plan.changes.filter((change) => ['create', 'delete', 'replace'].includes(change.action))).toEqual([]);
    });
  });
});
