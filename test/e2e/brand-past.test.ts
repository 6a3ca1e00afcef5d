// A profile registers one brand only, even after that brand is deleted (issue 46 item 4): the plan refuses
// a second brand from it before any write when the state's history knows the first, the snapshot records
// which profiles registered a brand, and a replica loaded from it refuses the brand as the API would.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { profileSpec } from './examples.js';

let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
const profile = doc('Profile', 'once', profileSpec('Once Inc.', '81-0000461'));
const write = (documents: string[]) => writeFile(path.join(folder, 'brand.yaml'), documents.join('\n---\n'));

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 0 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-brand-past-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('a profile that registered a brand once', () => {
  it('is refused a second brand by the plan, the snapshot and the replica', async () => {
    await write([profile, doc('Brand', 'first', { profile_uuid: { ref: 'once' } })]);
    expect((await cli(['apply', '-f', 'brand.yaml', '--auto-approve'])).code).toBe(0);
    const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const profileId = ledger.resources['Profile/once']?.id ?? '';
    const brandId = ledger.resources['Brand/first']?.id ?? '';
    await write([profile]);
    const deleted = await cli([
      'apply',
      '-f',
      'brand.yaml',
      '--auto-approve',
      '--allow-irreversible',
      'Brand/first',
      '--force-deletes',
    ]);
    expect(deleted.code).toBe(0);
    expect((await callApi(harness.emulator, 'GET', `/10dlc/Brand/${brandId}/`)).status).toBe(404);

    // The plan refuses the second brand before any write, naming the first and the apply that deleted it.
    await write([profile, doc('Brand', 'second', { profile_uuid: { ref: 'once' } })]);
    const writesBefore = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET').length;
    const plan = await cli(['plan', '-f', 'brand.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `refused: brand.yaml:3:95: Brand/second would be created, which must meet the create rules: spec.profile_uuid names profile ${profileId}, which registered brand ${brandId} (deleted by apply #2); the API lets a profile register one brand only, even after that brand is deleted: name another profile`,
    );
    const apply = await cli(['apply', '-f', 'brand.yaml', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(
      harness.emulator.runtime.log.list({ type: 'request' }).filter((entry) => entry.method !== 'GET').length,
    ).toBe(writesBefore);

    // The snapshot records it (the deleted brand is known to the state only), and the replica refuses.
    expect((await cli(['snapshot', '--out', 'account.snapshot.json'])).code).toBe(0);
    const snapshot = JSON.parse(await readFile(path.join(folder, 'account.snapshot.json'), 'utf8')) as {
      existing: { profiles: Array<Record<string, unknown>> };
    };
    expect(snapshot.existing.profiles.find((row) => row['profile_uuid'] === profileId)).toMatchObject({
      used_by_brand_id: brandId,
    });
    const replica = await startEmulator({ dataFile: path.join(folder, 'account.snapshot.json') });
    try {
      const refused = await callApi(replica, 'POST', '/10dlc/Brand/', {
        profile_uuid: profileId,
        brand_alias: 'second',
        brand_type: 'STANDARD',
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(
        `profile_uuid ${profileId} was already used to create brand ${brandId}; a profile makes one brand only`,
      );
    } finally {
      await replica.close();
    }
  }, 120_000);
});
