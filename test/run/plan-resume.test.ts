// A reviewed plan that partly failed is finished, not planned again (run/plan-resume.ts), on the
// emulator with its fault injection: the trunk's create is answered 500 as it starts, so the rest of
// the plan is done and the trunk is not. `apply plan.json` again applies only the trunk (the request
// log shows one write), recorded as the rest of the first attempt; a third time says it was applied.
// When the account moved under what is left, the resume is refused naming it; a signed plan is
// finished under the same approvals while they hold, and refused naming the expired ones after.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/engine/apply.js';
import { applyManifests, type ApplyRequest } from '../../src/run/apply-run.js';
import { approvePlan } from '../../src/run/approve.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { planManifests } from '../../src/run/plan.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { openState } from '../../src/run/state-location.js';
import { parseHistory, type HistoryRecord } from '../../src/state/history.js';
import { TelformError } from '../../src/util/errors.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { ManualClock } from '../support/clock.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let globals: GlobalOptions;
const alice = generateKeyPairSync('ed25519').privateKey;
const bob = generateKeyPairSync('ed25519').privateKey;
const acl = (name: string, ...ips: string[]) => documentOf('TrunkIpAcl', name, { ip_addresses: ips });
const trunk = (name: string, aclName: string) =>
  documentOf('Trunk', name, { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: aclName } });

beforeAll(async () => {
  harness = await startHarness();
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
      '  - { id: trunk-changes, match: change.kind == "Trunk", needs: 2 of voice-leads, ttl: 1h }',
      '  - { id: acl-self-heal, match: change.kind == "TrunkIpAcl", needs: none }',
    ].join('\n'),
  );
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'voice.state.json') };
});
afterAll(async () => {
  await harness.close();
});

const at = (file: string) => path.join(harness.folder, file);
const context = () => harness.context(harness.envOf(0));

function request(source: ApplyRequest['source'], policies: string[] = [], clock?: ManualClock): ApplyRequest {
  return {
    source,
    approvals: approvalsFrom({}),
    options: { policies },
    parallelism: 4,
    waitMs: 0,
    ...(clock ? { approvalGate: { clock } } : {}),
  };
}

async function plan(manifest: string, out: string, policies: string[] = []): Promise<void> {
  await planManifests(
    {
      paths: [manifest],
      values: { value: [] },
      approvals: approvalsFrom({}),
      options: { policies },
      out,
      detailedExitcode: false,
    },
    globals,
    context(),
  );
}

/** Applies, the API answering 500 to every write from the moment `failing` starts. */
async function applyFailing(
  source: ApplyRequest['source'],
  failing: string,
  policies: string[] = [],
  clock?: ManualClock,
) {
  try {
    return await applyManifests(request(source, policies, clock), globals, context(), {
      planned: () => ({
        onEvent: (event: ApplyEvent) => {
          if (event.type === 'started' && event.change.address === failing)
            harness.emulator.controls.update({ faults: '500=1,methods=POST+DELETE' });
        },
      }),
    });
  } finally {
    harness.emulator.controls.clear();
  }
}

async function writesSince(mark: number): Promise<string[]> {
  const response = await fetch(`${harness.emulator.url}/__emulator/requests/?type=request`);
  const { requests } = (await response.json()) as {
    requests: Array<{ method: string; path: string; account?: string }>;
  };
  return requests
    .slice(mark)
    .filter((entry) => entry.method !== 'GET' && entry.path.includes(accounts[0].authId))
    .map((entry) => `${entry.method} ${entry.path.replace(/^\/v1\/Account\/[^/]+/, '')}`);
}

async function requestCount(): Promise<number> {
  const response = await fetch(`${harness.emulator.url}/__emulator/requests/?type=request`);
  return ((await response.json()) as { requests: unknown[] }).requests.length;
}

async function history(): Promise<Array<Extract<HistoryRecord, { type: 'apply' }>>> {
  const store = await openState(globals, {}, { lock: false });
  try {
    return parseHistory(await store.readHistory()).filter(
      (record): record is Extract<HistoryRecord, { type: 'apply' }> => record.type === 'apply',
    );
  } finally {
    await store.close();
  }
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof TelformError ? `${error.code}: ${error.message}` : String(error)),
  );

describe('apply plan.json after a failure finishes it (run/plan-resume.ts)', () => {
  it('applies only the changes the failed attempt left, records it as their rest, and is stale once nothing is left', async () => {
    await harness.write('v1.yaml', acl('branch', '203.0.113.20'));
    expect(
      await applyManifests(request({ paths: ['v1.yaml'], values: { value: [] } }), globals, context(), {
        planned: () => ({}),
      }),
    ).toMatchObject({ outcome: { status: 'applied', failed: false } });
    await harness.write(
      'v2.yaml',
      [acl('branch', '203.0.113.20', '203.0.113.21'), acl('office', '203.0.113.10'), trunk('pbx-out', 'office')].join(
        '\n---\n',
      ),
    );
    await plan('v2.yaml', 'v2.plan.json');
    const failed = await applyFailing({ savedPlan: at('v2.plan.json') }, 'Trunk/pbx-out');
    expect(failed).toMatchObject({ outcome: { status: 'applied', failed: true } });
    const first = (await history()).at(-1);
    expect(first?.result).toBe('partial');
    expect(first?.changes.map((change) => [change.address, change.result])).toEqual([
      ['TrunkIpAcl/branch', 'done'],
      ['TrunkIpAcl/office', 'done'],
      ['Trunk/pbx-out', 'failed'],
    ]);

    const mark = await requestCount();
    const finished = await applyManifests(request({ savedPlan: at('v2.plan.json') }), globals, context(), {
      planned: () => ({}),
    });
    expect(finished).toMatchObject({ outcome: { status: 'applied', failed: false } });
    expect(await writesSince(mark)).toEqual(['POST /Zentrunk/Trunk/']);
    const rest = (await history()).at(-1);
    expect(rest).toMatchObject({ finishes: first?.seq, result: 'applied' });
    expect(rest?.changes.map((change) => [change.address, change.result])).toEqual([['Trunk/pbx-out', 'done']]);

    expect(
      await refusal(
        applyManifests(request({ savedPlan: at('v2.plan.json') }), globals, context(), { planned: () => ({}) }),
      ),
    ).toBe(
      `plan_stale: ${at('v2.plan.json')} is stale: the state changed since it was made (serial 2 then, 5 now); make a new plan`,
    );
    // Converged: the manifests plan nothing more.
    const again = await planManifests(
      { paths: ['v2.yaml'], values: { value: [] }, approvals: approvalsFrom({}), options: {}, detailedExitcode: false },
      globals,
      context(),
    );
    expect(again.plan.changes.filter((change) => change.action !== 'noop')).toEqual([]);
  });

  it('refuses to finish it, naming what changed, when the account moved under the rest', async () => {
    await harness.write(
      'v3.yaml',
      [
        acl('branch', '203.0.113.20', '203.0.113.21'),
        acl('office', '203.0.113.10'),
        trunk('pbx-out', 'office'),
        acl('lab', '203.0.113.30'),
        trunk('lab-out', 'lab'),
      ].join('\n---\n'),
    );
    await plan('v3.yaml', 'v3.plan.json');
    expect(await applyFailing({ savedPlan: at('v3.plan.json') }, 'Trunk/lab-out')).toMatchObject({
      outcome: { failed: true },
    });
    const attempt = (await history()).at(-1);
    // Someone made a trunk of that name in the console meanwhile.
    const made = await fetch(`${harness.emulator.url}/v1/Account/${accounts[0].authId}/Zentrunk/Trunk/`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${accounts[0].authId}:${accounts[0].authToken}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        name: 'lab-out',
        trunk_direction: 'outbound',
        ipacl_uuid: (await harness.entry('voice.state.json', 'TrunkIpAcl/lab'))?.id,
      }),
    });
    expect(made.status).toBeLessThan(300);
    const mark = await requestCount();
    expect(
      await refusal(
        applyManifests(request({ savedPlan: at('v3.plan.json') }), globals, context(), { planned: () => ({}) }),
      ),
    ).toBe(
      `plan_stale: ${at('v3.plan.json')} was partly applied (history #${attempt?.seq}), and the account changed under what is left of it since: Trunk/lab-out changed; make a new plan`,
    );
    expect(await writesSince(mark)).toEqual([]);
  });

  it('finishes a signed plan under the same approvals while they hold, and refuses naming those that expired', async () => {
    const policies = ['approvals.yaml'];
    await harness.write('v4.yaml', [acl('dock', '203.0.113.40'), trunk('dock-out', 'dock')].join('\n---\n'));
    // A state of its own (the account's second), so the console trunk of the test before is none of its business.
    const signedAt = Date.UTC(2026, 10, 30, 15, 0, 0);
    const clock = new ManualClock(signedAt);
    const own = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'dock.state.json') };
    const ctx = harness.context(harness.envOf(1));
    await planManifests(
      {
        paths: ['v4.yaml'],
        values: { value: [] },
        approvals: approvalsFrom({}),
        options: { policies },
        out: 'v4.plan.json',
        detailedExitcode: false,
      },
      own,
      ctx,
    );
    for (const person of ['alice', 'bob'])
      await approvePlan({
        planFile: at('v4.plan.json'),
        policies,
        person,
        keyFile: `${person}.pem`,
        rules: [],
        clock,
        cwd: harness.folder,
      });
    const failing = async () => {
      try {
        return await applyManifests(request({ savedPlan: at('v4.plan.json') }, policies, clock), own, ctx, {
          planned: () => ({
            onEvent: (event: ApplyEvent) => {
              if (event.type === 'started' && event.change.address === 'Trunk/dock-out')
                harness.emulator.controls.update({ faults: '500=1,methods=POST' });
            },
          }),
        });
      } finally {
        harness.emulator.controls.clear();
      }
    };
    expect(await failing()).toMatchObject({ outcome: { status: 'applied', failed: true } });

    const late = new ManualClock(signedAt + 3_600_000 + 1_000);
    const expired = await refusal(
      applyManifests(request({ savedPlan: at('v4.plan.json') }, policies, late), own, ctx, { planned: () => ({}) }),
    );
    expect(expired).toMatch(
      /^approval_refused: apply refused by the approval rules, nothing was sent: Trunk\/dock-out: rule trunk-changes needs 2 of voice-leads; no valid approval; 2 more missing \(of alice, bob\); alice's approval \(.*\) expired at 2026-11-30T16:00:00.000Z \(ttl 1h\)/,
    );

    const inTime = new ManualClock(signedAt + 1_800_000);
    const finished = await applyManifests(request({ savedPlan: at('v4.plan.json') }, policies, inTime), own, ctx, {
      planned: () => ({}),
    });
    expect(finished).toMatchObject({ outcome: { status: 'applied', failed: false } });
    const store = await openState(own, {}, { lock: false });
    const records = parseHistory(await store.readHistory());
    await store.close();
    const rest = records.at(-1);
    if (rest?.type !== 'apply') throw new Error('no apply record');
    expect(rest.finishes).toBe((records.at(-2) as HistoryRecord).seq);
    expect(rest.signoff?.changes).toEqual([
      {
        address: 'Trunk/dock-out',
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
  });
});
