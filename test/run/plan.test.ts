import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/run/context.js';
import { planManifests, type PlanRequest } from '../../src/run/plan.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { showSavedPlan } from '../../src/run/show-plan.js';
import { documentOf, startHarness, type Harness } from './harness.js';

// `telform plan -f` as an operation, in process: values, the saved plan, the notes and the exit code.

let harness: Harness;
let globals: GlobalOptions;

beforeAll(async () => {
  harness = await startHarness();
  await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: [{ value: 'pbx_ip' }] }));
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'plan.state.json') };
});
afterAll(async () => {
  await harness.close();
});

function request(changes: Partial<PlanRequest> = {}): PlanRequest {
  return {
    paths: ['acl.yaml'],
    values: { value: ['pbx_ip=203.0.113.10'] },
    approvals: approvalsFrom({}),
    options: {},
    detailedExitcode: false,
    ...changes,
  };
}

describe('planManifests (run/plan.ts)', () => {
  it('plans the manifests with the values given, and exits 2 with --detailed-exitcode only', async () => {
    const context = harness.context(harness.envOf(2));
    const planned = await planManifests(request(), globals, context);
    expect(planned.plan.changes.map((change) => [change.action, change.address])).toEqual([
      ['create', 'TrunkIpAcl/office'],
    ]);
    expect(planned.exitCode).toBe(0);
    expect((await planManifests(request({ detailedExitcode: true }), globals, context)).exitCode).toBe(2);
  });

  it('notes an approval that approves nothing, and saves the plan to --out', async () => {
    const planned = await planManifests(
      request({ approvals: approvalsFrom({ allowIrreversible: ['Trunk/pbx'] }), out: 'plan.json' }),
      globals,
      harness.context(harness.envOf(2)),
    );
    expect(planned.notes).toEqual([
      '--allow-irreversible Trunk/pbx approves nothing: the plan has no irreversible change of Trunk/pbx (it has no irreversible change at all)',
    ]);
    const saved = JSON.parse(await readFile(path.join(harness.folder, 'plan.json'), 'utf8')) as {
      changes: Array<{ address: string }>;
    };
    expect(saved.changes.map((change) => change.address)).toEqual(['TrunkIpAcl/office']);
  });

  it('show verifies the saved plan with the credentials apply would use, and warns without them', async () => {
    await planManifests(request({ out: 'shown.json' }), globals, harness.context(harness.envOf(2)));
    const file = path.join(harness.folder, 'shown.json');
    const noEmulator = () =>
      Promise.reject(new Error('a plan made against an endpoint is never checked with the emulator token'));
    const verified = await showSavedPlan(file, globals, harness.envOf(2), noEmulator);
    expect(verified.plan.changes.map((change) => change.address)).toEqual(['TrunkIpAcl/office']);
    expect(verified.seal.verified).toBe(true);
    const unverified = await showSavedPlan(file, globals, {}, noEmulator);
    expect(unverified.seal).toMatchObject({ verified: false, message: expect.stringContaining(file) });
  });

  it('refuses an --out that is one of the manifests before reading anything', async () => {
    await expect(
      planManifests(request({ out: 'acl.yaml', values: { value: [] } }), globals, harness.context(harness.envOf(2))),
    ).rejects.toMatchObject({
      code: 'output_file',
      message: '-o acl.yaml is acl.yaml, a file this run reads; write to a file of its own',
    });
  });
});
