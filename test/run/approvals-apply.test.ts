// The approval gate inside `apply` (run/apply-run.ts), on the emulator: a saved plan whose trunk a rule
// gives to two people is refused before any request until both signed (with `telform approve`'s
// operation), then applied and recorded with its rule, approvers and signatures; `apply -f` of such a
// change is refused, and a `needs: none` change goes through with no one.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests, type ApplyRequest } from '../../src/run/apply-run.js';
import { approvePlan, listApprovals } from '../../src/run/approve.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { planManifests } from '../../src/run/plan.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { openState } from '../../src/run/state-location.js';
import { parseHistory } from '../../src/state/history.js';
import { TelformError } from '../../src/util/errors.js';
import { sshPublicKeyLine, verifySshSignature } from '../../src/util/ssh-signature.js';
import { approvalMessage, type ApprovalFile } from '../../src/run/approval-files.js';
import { ManualClock } from '../support/clock.js';
import { documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let globals: GlobalOptions;
const alice = generateKeyPairSync('ed25519').privateKey;
const bob = generateKeyPairSync('ed25519').privateKey;

beforeAll(async () => {
  harness = await startHarness();
  await harness.write(
    'voice.yaml',
    [
      documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      documentOf('Trunk', 'pbx-out', { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  await harness.write('acl.yaml', documentOf('TrunkIpAcl', 'branch', { ip_addresses: ['203.0.113.20'] }));
  for (const [name, key] of [
    ['alice.pem', alice],
    ['bob.pem', bob],
  ] as const)
    await writeFile(path.join(harness.folder, name), key.export({ format: 'pem', type: 'pkcs8' }).toString());
  await harness.write(
    'people.yaml',
    [
      'apiVersion: telform/v1',
      'kind: People',
      'people:',
      `  alice: { keys: ["${sshPublicKeyLine(alice)}"], roles: [voice-leads] }`,
      `  bob: { keys: ["${sshPublicKeyLine(bob)}"], roles: [voice-leads] }`,
    ].join('\n'),
  );
  await harness.write(
    'approvals.yaml',
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'people: people.yaml',
      'approvals:',
      '  - { id: trunk-changes, match: change.kind == "Trunk", needs: 2 of voice-leads, ttl: 24h }',
      '  - { id: acl-self-heal, match: change.kind == "TrunkIpAcl", needs: none }',
    ].join('\n'),
  );
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'voice.state.json') };
});
afterAll(async () => {
  await harness.close();
});

function request(source: ApplyRequest['source'], clock: ManualClock): ApplyRequest {
  return {
    source,
    approvals: approvalsFrom({}),
    options: { policies: ['approvals.yaml'] },
    parallelism: 4,
    waitMs: 0,
    approvalGate: { clock },
  };
}

describe('apply with approval rules (run/apply-run.ts)', () => {
  it('refuses apply -f of a change people must approve, and applies what needs none', async () => {
    const context = harness.context(harness.envOf(0));
    const clock = new ManualClock(Date.now());
    const refused = await applyManifests(
      request({ paths: ['voice.yaml'], values: { value: [] } }, clock),
      globals,
      context,
      {
        planned: () => ({}),
      },
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TelformError);
    expect((refused as TelformError).message).toBe(
      'apply refused by the approval rules, nothing was sent: Trunk/pbx-out: rule trunk-changes needs 2 of voice-leads; no valid approval; 2 more missing (of alice, bob); a change people must approve is applied from a saved plan: telform plan -o plan.json --policy …, telform approve plan.json by each approver, then telform apply plan.json',
    );
    const other = { ...globals, state: path.join(harness.folder, 'acl.state.json') };
    const applied = await applyManifests(
      request({ paths: ['acl.yaml'], values: { value: [] } }, clock),
      other,
      harness.context(harness.envOf(1)),
      { planned: () => ({}) },
    );
    expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied', failed: false } });
  });

  it('applies a saved plan once two people signed it, and records the rule, approvers and signatures', async () => {
    const context = harness.context(harness.envOf(0));
    const clock = new ManualClock(Date.now());
    const planFile = path.join(harness.folder, 'voice.plan.json');
    const planned = await planManifests(
      {
        paths: ['voice.yaml'],
        values: { value: [] },
        approvals: approvalsFrom({}),
        options: { policies: ['approvals.yaml'] },
        out: 'voice.plan.json',
        detailedExitcode: false,
      },
      globals,
      context,
    );
    expect(planned.plan.approval_rules?.refusals).toHaveLength(1);
    const sign = (person: string) =>
      approvePlan({
        planFile,
        policies: ['approvals.yaml'],
        person,
        keyFile: `${person}.pem`,
        rules: [],
        clock,
        cwd: harness.folder,
      });
    const first = await sign('alice');
    expect(first.rules).toEqual(['trunk-changes']);
    const refused = await applyManifests(request({ savedPlan: planFile }, clock), globals, context, {
      planned: () => ({}),
    }).catch((error: unknown) => error);
    expect((refused as TelformError).message).toBe(
      'apply refused by the approval rules, nothing was sent: Trunk/pbx-out: rule trunk-changes needs 2 of voice-leads; approved by alice; 1 more missing (of bob)',
    );
    await sign('bob');
    const listed = await listApprovals({ planFile, policies: ['approvals.yaml'], clock, cwd: harness.folder });
    expect(listed.table?.refusals).toEqual([]);
    const applied = await applyManifests(request({ savedPlan: planFile }, clock), globals, context, {
      planned: () => ({}),
    });
    expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied', failed: false } });

    const store = await openState(globals, {}, { lock: false });
    const records = parseHistory(await store.readHistory());
    await store.close();
    const record = records.at(-1);
    if (record?.type !== 'apply') throw new Error('no apply record');
    expect(record.signoff?.changes).toEqual([
      { address: 'TrunkIpAcl/office', rules: [{ rule: 'acl-self-heal', needs: 'none', approvers: [] }] },
      {
        address: 'Trunk/pbx-out',
        rules: [
          {
            rule: 'trunk-changes',
            needs: '2 of voice-leads',
            approvers: [
              { person: 'alice', roles: ['voice-leads'], key: expect.stringMatching(/^SHA256:/) },
              { person: 'bob', roles: ['voice-leads'], key: expect.stringMatching(/^SHA256:/) },
            ],
          },
        ],
      },
    ]);
    // The recorded signatures verify later, from the record alone.
    for (const approval of record.signoff?.approvals ?? []) {
      const signed = approval as unknown as ApprovalFile;
      expect(verifySshSignature(signed.signature, approvalMessage(signed), 'telform-approval').ok).toBe(true);
    }
  });
});
