// An emergency through the whole apply, on the emulator with generated keys and a clock the test sets
// (issue "Approvals bound to people", Done when): a trunk change outside its window is refused before
// any request; signed with --emergency by the role the rule names, it is applied, and the history
// records the reason, who gave it and their role (and `telform history` shows it).
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHistoryText } from '../../src/render/history.js';
import { applyManifests, type ApplyRequest } from '../../src/run/apply-run.js';
import { approvePlan } from '../../src/run/approve.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { planManifests } from '../../src/run/plan.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { openState } from '../../src/run/state-location.js';
import { parseHistory } from '../../src/state/history.js';
import { TelformError } from '../../src/util/errors.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { ManualClock } from '../support/clock.js';
import { documentOf, startHarness, type Harness } from './harness.js';

let harness: Harness;
let globals: GlobalOptions;
const dave = generateKeyPairSync('ed25519').privateKey;
const bob = generateKeyPairSync('ed25519').privateKey;
// Saturday 2026-11-28 16:00 UTC is 10:00 in Chicago: outside the trunk's weekday window.
const saturday = Date.UTC(2026, 10, 28, 16, 0, 0);

beforeAll(async () => {
  harness = await startHarness();
  for (const [name, key] of [
    ['dave.pem', dave],
    ['bob.pem', bob],
  ] as const)
    await writeFile(path.join(harness.folder, name), key.export({ format: 'pem', type: 'pkcs8' }).toString());
  await harness.write(
    'people.yaml',
    [
      'apiVersion: telform/v1',
      'kind: People',
      'people:',
      `  dave: { keys: ["${sshPublicKeyLine(dave)}"], roles: [voice] }`,
      `  bob: { keys: ["${sshPublicKeyLine(bob)}"], roles: [sre] }`,
    ].join('\n'),
  );
  await harness.write(
    'approvals.yaml',
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'people: people.yaml',
      'approvals:',
      '  - id: trunk-hours',
      '    match: change.kind == "Trunk"',
      '    needs: 1 of voice',
      '    windows:',
      '      - { days: [mon, tue, wed, thu, fri], from: "09:00", to: "17:00", zone: America/Chicago }',
      '    emergency: { role: sre }',
      '  - { id: acl-self-heal, match: change.kind == "TrunkIpAcl", needs: none }',
    ].join('\n'),
  );
  await harness.write(
    'voice.yaml',
    [
      documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      documentOf('Trunk', 'pbx-out', { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'voice.state.json') };
});
afterAll(async () => {
  await harness.close();
});

describe('apply --emergency (run/apply-run.ts, run/approval-gate.ts)', () => {
  it('refuses a trunk change outside its window, then applies it with the emergency of the allowed role, recorded in the history', async () => {
    const clock = new ManualClock(saturday);
    const context = harness.context(harness.envOf(0));
    const planFile = path.join(harness.folder, 'voice.plan.json');
    const policies = ['approvals.yaml'];
    await planManifests(
      {
        paths: ['voice.yaml'],
        values: { value: [] },
        approvals: approvalsFrom({}),
        options: { policies },
        out: 'voice.plan.json',
        detailedExitcode: false,
      },
      globals,
      context,
    );
    const sign = (person: string, emergency?: string) =>
      approvePlan({
        planFile,
        policies,
        person,
        keyFile: `${person}.pem`,
        rules: emergency ? [] : ['trunk-hours'],
        ...(emergency ? { emergency } : {}),
        clock,
        cwd: harness.folder,
      });
    await sign('dave');
    const request = (emergency?: string): ApplyRequest => ({
      source: { savedPlan: planFile },
      approvals: approvalsFrom({}),
      options: { policies },
      parallelism: 4,
      waitMs: 0,
      approvalGate: { clock, ...(emergency ? { emergency } : {}) },
    });
    const writes = async () =>
      (
        (await (await fetch(`${harness.emulator.url}/__emulator/requests/?type=request`)).json()) as {
          requests: Array<{ method: string }>;
        }
      ).requests.filter((entry) => entry.method !== 'GET').length;
    const before = await writes();
    const refused = await applyManifests(request(), globals, context, { planned: () => ({}) }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TelformError);
    expect((refused as TelformError).message).toBe(
      'apply refused by the approval rules, nothing was sent: Trunk/pbx-out: rule trunk-hours allows it only within mon,tue,wed,thu,fri 09:00-17:00 America/Chicago, and it is sat 10:00 America/Chicago; an emergency apply needs --emergency REASON and an approval by sre signed with the same reason (telform approve --emergency REASON)',
    );
    // Refused before any write.
    expect(await writes()).toBe(before);

    await sign('bob', 'carrier outage INC-7');
    const applied = await applyManifests(request('carrier outage INC-7'), globals, context, { planned: () => ({}) });
    expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied', failed: false } });

    const store = await openState(globals, {}, { lock: false });
    const records = parseHistory(await store.readHistory());
    await store.close();
    const record = records.at(-1);
    if (record?.type !== 'apply') throw new Error('no apply record');
    expect(record.signoff?.emergency).toEqual({ reason: 'carrier outage INC-7', by: 'bob', role: 'sre' });
    expect(record.signoff?.approvals.map((approval) => approval.person).sort()).toEqual(['bob', 'dave']);
    const text = renderHistoryText({ location: 'voice.state.json', records: [record] });
    expect(text.split('\n').slice(2)).toEqual([
      expect.stringMatching(/^#\d+ {2}2026-\d\d-\d\d \d\d:\d\d UTC {2}apply/),
      '    + TrunkIpAcl/office  create',
      '        rule acl-self-heal (needs none)',
      '    + Trunk/pbx-out  create',
      '        rule trunk-hours (1 of voice): dave [voice]',
      '    emergency by bob (sre): carrier outage INC-7',
      expect.stringMatching(
        /^ {4}applied · 2 changes · \d+ requests · 0\.00 USD · plan [0-9a-f]{12} \(saved, sealed\)$/,
      ),
      '',
    ]);
  });
});
