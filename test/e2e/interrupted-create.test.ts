import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * A create whose answer died with the process (SIGKILL between the request and the journal's
 * result), then manifests that no longer hold the resource: the next run claims the object the
 * create made — told apart from a namesake made by hand by the fields it sent — and deletes it.
 */
let harness: EmulatorForCli;
let folder: string;

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-interrupted-create-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

async function createAcl(name: string, address: string): Promise<string> {
  const { body } = await callApi(harness.emulator, 'POST', '/Zentrunk/IPAccessControlList/', {
    name,
    ip_addresses: [address],
  });
  return String(body['ipacl_uuid']);
}

describe('a create an apply was killed in', () => {
  it('is claimed and deleted by the next run when the manifests dropped it; a namesake made by hand stays unmanaged', async () => {
    const manifests = path.join(folder, 'kept.yaml');
    await writeFile(
      manifests,
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'TrunkIpAcl',
        metadata: { name: 'kept' },
        spec: { ip_addresses: ['192.0.2.1'] },
      }),
    );
    expect((await runCli(['apply', '-f', manifests, '--auto-approve'], { cwd: folder, env: harness.env })).code).toBe(
      0,
    );

    // What the killed apply had journaled before its request, and what that request made.
    const at = new Date().toISOString();
    const spec = { name: 'dropped', ip_addresses: ['192.0.2.20'] };
    const intent = {
      type: 'intent',
      address: 'TrunkIpAcl/dropped',
      kind: 'TrunkIpAcl',
      action: 'create',
      fields: spec,
      spec,
      seq: 1,
      at,
    };
    await appendFile(path.join(folder, 'telform.state.json.journal'), `${JSON.stringify(intent)}\n`);
    const made = await createAcl('dropped', '192.0.2.20');
    const byHand = await createAcl('dropped', '192.0.2.99');

    const logged = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const plan = await runCli(['plan', '-f', manifests, '--show-unmanaged'], { cwd: folder, env: harness.env });
    // What the plan read, apply reads again before its one delete.
    const reads = harness.emulator.runtime.log.list({ type: 'request' }).length - logged;
    expect(plan.code).toBe(0);
    // The emulator's seeded business profiles are unmanaged too; they are not what this test is about.
    const shown = plan.stdout.replace(/^ {4}Profile .*\n/gm, '');
    expect(shown).toBe(
      [
        '  # TrunkIpAcl/dropped will be deleted',
        '  #   removed from the manifests',
        `  #   an earlier apply stopped while creating it (${at}): claimed TrunkIpAcl ${made}, the only object nobody owns named "dropped" with every field that create sent`,
        `  - TrunkIpAcl/dropped (id ${made})`,
        '',
        'Unmanaged objects (neither in the manifests nor in the state):',
        `    TrunkIpAcl ${byHand} (dropped)`,
        '',
        'Plan: 0 to create, 0 to update, 0 to replace, 1 to delete. Cost: 0 USD. Irreversible: 0.',
        `API requests to apply: about ${reads + 1} (${reads} to read the account, 1 to change it).`,
        '',
      ].join('\n'),
    );

    const apply = await runCli(['apply', '-f', manifests, '--auto-approve'], { cwd: folder, env: harness.env });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 0 created, 0 updated, 0 replaced, 1 deleted, 0 adopted.');
    expect((await callApi(harness.emulator, 'GET', `/Zentrunk/IPAccessControlList/${made}/`)).status).toBe(404);
    expect((await callApi(harness.emulator, 'GET', `/Zentrunk/IPAccessControlList/${byHand}/`)).status).toBe(200);
    expect(existsSync(path.join(folder, 'telform.state.json.journal'))).toBe(false);

    const again = await runCli(['plan', '-f', manifests, '--detailed-exitcode'], { cwd: folder, env: harness.env });
    expect(again.code).toBe(0);
  });
});
