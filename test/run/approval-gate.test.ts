// The approval rules as apply's gate, on built plans with generated keys and a clock the test sets:
// who must approve, distinct people with the role, the TTL counted at the moment of apply, windows in
// a time zone with emergencies, freezes, and approvals that do not count (another plan, an unknown key,
// a person without the role).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SafetyViolation } from '../../src/engine/safety.js';
import { approvalDigest, approvalMessage, writeApproval, type ApprovalPayload } from '../../src/run/approval-files.js';
import { passApprovalGate, type ApprovalGateInput } from '../../src/run/approval-gate.js';
import { TelformError } from '../../src/util/errors.js';
import { parseSshPublicKey, signSsh, sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { ManualClock } from '../support/clock.js';
import { change, noFlags, plan } from '../support/plan.js';

const people = ['alice', 'bob', 'carol', 'dave'] as const;
const keys = Object.fromEntries(people.map((name) => [name, generateKeyPairSync('ed25519').privateKey])) as Record<
  (typeof people)[number],
  KeyObject
>;
const stranger = generateKeyPairSync('ed25519').privateKey;

// Monday 2026-11-30 15:00 UTC is 09:00 in Chicago: the trunk window opens.
const mondayNineChicago = Date.UTC(2026, 10, 30, 15, 0, 0);
const saturday = Date.UTC(2026, 10, 28, 16, 0, 0);

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-approvals-'));
  await writeFile(
    path.join(folder, 'people.yaml'),
    [
      'apiVersion: telform/v1',
      'kind: People',
      'people:',
      `  alice: { keys: ["${sshPublicKeyLine(keys.alice, 'alice@laptop')}"], roles: [messaging-leads] }`,
      `  bob: { keys: ["${sshPublicKeyLine(keys.bob)}"], roles: [messaging-leads, sre] }`,
      `  carol: { keys: ["${sshPublicKeyLine(keys.carol)}"], roles: [messaging-leads] }`,
      `  dave: { keys: ["${sshPublicKeyLine(keys.dave)}"], roles: [voice] }`,
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'approvals.yaml'),
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'people: people.yaml',
      'approvals:',
      '  - id: billable-campaigns',
      '    match: change.billable_usd > 0',
      '    needs: 2 of messaging-leads',
      '    ttl: 72h',
      '  - id: trunk-hours',
      '    match: change.kind == "Trunk"',
      '    needs: 1 of voice',
      '    ttl: 24h',
      '    windows:',
      '      - { days: [mon, tue, wed, thu, fri], from: "09:00", to: "17:00", zone: America/Chicago }',
      '    emergency: { role: sre }',
      '  - id: acl-self-heal',
      '    match: change.kind == "TrunkIpAcl"',
      '    needs: none',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'freeze.yaml'),
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'freeze:',
      '  reason: year-end change freeze',
      '  from: 2026-12-20T00:00:00Z',
      '  until: 2027-01-04T00:00:00Z',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const campaignUpdate = plan([
  change({
    address: 'Campaign/spring-promo',
    action: 'update',
    flags: { ...noFlags, billable_usd: 15 },
    patch: [{ op: 'replace', path: '/description', value: 'x' }],
  } as Parameters<typeof change>[0]),
]);
const trunkUpdate = plan([
  change({
    address: 'Trunk/pbx-out',
    action: 'update',
    patch: [{ op: 'replace', path: '/trunk_status', value: 'disabled' }],
  } as Parameters<typeof change>[0]),
]);
const costViolation: SafetyViolation = { code: 'cost', message: 'costs 15 USD; approve with --max-cost 15' };

let approvalsUsed = 0;
/** A fresh folder with the approvals given, each signed at `signedAt` (by `key`, default the person's own). */
async function approvalsOf(
  signed: Array<{ person: string; key?: KeyObject; rules: string[]; digest?: string; emergency?: string; at: number }>,
  forPlan: typeof campaignUpdate,
): Promise<string> {
  approvalsUsed += 1;
  const dir = `approvals-${approvalsUsed}`;
  for (const item of signed) {
    const payload: ApprovalPayload = {
      format: 'telform-approval/v1',
      plan_digest: item.digest ?? approvalDigest(forPlan),
      account: forPlan.account,
      person: item.person,
      rules: item.rules,
      signed_at: new Date(item.at).toISOString(),
      ...(item.emergency ? { emergency: item.emergency } : {}),
    };
    const key = item.key ?? keys[item.person as (typeof people)[number]];
    await writeApproval(
      dir,
      { ...payload, signature: signSsh(approvalMessage(payload), 'telform-approval', key) },
      folder,
    );
  }
  return dir;
}

function gate(clock: ManualClock, approvalsFolder: string, more: Partial<ApprovalGateInput> = {}): ApprovalGateInput {
  return { policies: ['approvals.yaml'], approvalsFolder, planFile: 'plan.json', clock, cwd: folder, ...more };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TelformError);
  expect((error as TelformError).code).toBe('approval_refused');
  return (error as TelformError).message;
}

describe('approval rules at apply (run/approval-gate.ts)', () => {
  it('refuses a billable change without approval, then with one of the two it needs, naming who is missing', async () => {
    const clock = new ManualClock(mondayNineChicago);
    const none = await approvalsOf([], campaignUpdate);
    expect(await refusal(passApprovalGate(campaignUpdate, [costViolation], gate(clock, none)))).toBe(
      'apply refused by the approval rules, nothing was sent: Campaign/spring-promo: rule billable-campaigns needs 2 of messaging-leads; no valid approval; 2 more missing (of alice, bob, carol)',
    );
    const one = await approvalsOf(
      [{ person: 'alice', rules: ['billable-campaigns'], at: clock.now() }],
      campaignUpdate,
    );
    expect(await refusal(passApprovalGate(campaignUpdate, [costViolation], gate(clock, one)))).toBe(
      'apply refused by the approval rules, nothing was sent: Campaign/spring-promo: rule billable-campaigns needs 2 of messaging-leads; approved by alice; 1 more missing (of bob, carol)',
    );
    // The same person twice is one person.
    const twice = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: clock.now() },
        { person: 'alice', rules: ['billable-campaigns'], at: clock.now() - 1000 },
      ],
      campaignUpdate,
    );
    expect(await refusal(passApprovalGate(campaignUpdate, [costViolation], gate(clock, twice)))).toContain(
      'approved by alice; 1 more missing (of bob, carol)',
    );
  });

  it('applies with two approvals (the --max-cost gate waived for what they approved), and records them', async () => {
    const clock = new ManualClock(mondayNineChicago);
    const two = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: clock.now() - 3_600_000 },
        { person: 'carol', rules: ['billable-campaigns'], at: clock.now() },
      ],
      campaignUpdate,
    );
    const passed = await passApprovalGate(campaignUpdate, [costViolation], gate(clock, two));
    expect(passed.violations).toEqual([]);
    expect(passed.signoff?.changes).toEqual([
      {
        address: 'Campaign/spring-promo',
        rules: [
          {
            rule: 'billable-campaigns',
            needs: '2 of messaging-leads',
            approvers: [
              { person: 'alice', roles: ['messaging-leads'], key: expect.stringMatching(/^SHA256:/) },
              { person: 'carol', roles: ['messaging-leads'], key: expect.stringMatching(/^SHA256:/) },
            ],
          },
        ],
      },
    ]);
    expect(passed.signoff?.approvals.map((approval) => approval.person)).toEqual(['alice', 'carol']);
    expect(passed.signoff?.approvals[0]?.signature).toMatch(/^-----BEGIN SSH SIGNATURE-----/);
  });

  it('refuses at TTL + 1 s, naming the approval that expired', async () => {
    const signedAt = mondayNineChicago - 72 * 3_600_000;
    const clock = new ManualClock(mondayNineChicago);
    const folderName = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: signedAt },
        { person: 'bob', rules: ['billable-campaigns'], at: mondayNineChicago },
      ],
      campaignUpdate,
    );
    await passApprovalGate(campaignUpdate, [costViolation], gate(clock, folderName));
    await clock.advance(1000);
    expect(await refusal(passApprovalGate(campaignUpdate, [costViolation], gate(clock, folderName)))).toBe(
      `apply refused by the approval rules, nothing was sent: Campaign/spring-promo: rule billable-campaigns needs 2 of messaging-leads; approved by bob; 1 more missing (of alice, carol); alice's approval (${folderName}/alice-${approvalDigest(campaignUpdate).slice(0, 12)}.json, signed 2026-11-27T15:00:00.000Z) expired at 2026-11-30T15:00:00.000Z (ttl 72h)`,
    );
  });

  it('does not count an approval over another plan, by a key not in the people file, or by a person without the role', async () => {
    const clock = new ManualClock(mondayNineChicago);
    const bad = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: clock.now(), digest: approvalDigest(trunkUpdate) },
        { person: 'bob', key: stranger, rules: ['billable-campaigns'], at: clock.now() },
        { person: 'dave', rules: ['billable-campaigns'], at: clock.now() },
      ],
      campaignUpdate,
    );
    const message = await refusal(passApprovalGate(campaignUpdate, [costViolation], gate(clock, bad)));
    const suffix = approvalDigest(campaignUpdate).slice(0, 12);
    expect(message.split('. ')).toEqual([
      `apply refused by the approval rules, nothing was sent: Campaign/spring-promo: rule billable-campaigns needs 2 of messaging-leads; no valid approval; 2 more missing (of alice, bob, carol); dave (${bad}/dave-${suffix}.json) does not hold the role messaging-leads`,
      `${bad}/alice-${approvalDigest(trunkUpdate).slice(0, 12)}.json does not count: it was signed over another plan (digest ${approvalDigest(trunkUpdate).slice(0, 12)}…), not this one`,
      `${bad}/bob-${suffix}.json does not count: it was signed by the key ${parseSshPublicKey(sshPublicKeyLine(stranger)).fingerprint}, which is not in people.yaml`,
    ]);
  });

  it('refuses a trunk change outside its window, then applies it with --emergency by the role the rule names', async () => {
    const clock = new ManualClock(saturday);
    const approved = await approvalsOf([{ person: 'dave', rules: ['trunk-hours'], at: clock.now() }], trunkUpdate);
    expect(await refusal(passApprovalGate(trunkUpdate, [], gate(clock, approved)))).toBe(
      'apply refused by the approval rules, nothing was sent: Trunk/pbx-out: rule trunk-hours allows it only within mon,tue,wed,thu,fri 09:00-17:00 America/Chicago, and it is sat 10:00 America/Chicago; an emergency apply needs --emergency REASON and an approval by sre signed with the same reason (telform approve --emergency REASON)',
    );
    // An emergency reason alone, with no approval by the role: still refused.
    expect(
      await refusal(passApprovalGate(trunkUpdate, [], gate(clock, approved, { emergency: 'carrier outage INC-7' }))),
    ).toContain('--emergency needs an approval by sre signed with the same reason, and none is here');
    const emergency = await approvalsOf(
      [
        { person: 'dave', rules: ['trunk-hours'], at: clock.now() },
        { person: 'bob', rules: [], emergency: 'carrier outage INC-7', at: clock.now() },
      ],
      trunkUpdate,
    );
    const passed = await passApprovalGate(
      trunkUpdate,
      [],
      gate(clock, emergency, { emergency: 'carrier outage INC-7' }),
    );
    expect(passed.signoff?.emergency).toEqual({ reason: 'carrier outage INC-7', by: 'bob', role: 'sre' });
    expect(passed.signoff?.approvals.map((approval) => approval.person).sort()).toEqual(['bob', 'dave']);
    // Inside the window the same approval applies with no emergency.
    const monday = new ManualClock(mondayNineChicago);
    const inWindow = await approvalsOf([{ person: 'dave', rules: ['trunk-hours'], at: monday.now() }], trunkUpdate);
    expect((await passApprovalGate(trunkUpdate, [], gate(monday, inWindow))).signoff?.emergency).toBeUndefined();
  });

  it('refuses every change a freeze covers while it lasts, approved or not', async () => {
    const during = new ManualClock(Date.UTC(2026, 11, 22, 15, 0, 0));
    const approved = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: during.now() },
        { person: 'bob', rules: ['billable-campaigns'], at: during.now() },
      ],
      campaignUpdate,
    );
    const policies = ['approvals.yaml', 'freeze.yaml'];
    expect(await refusal(passApprovalGate(campaignUpdate, [], gate(during, approved, { policies })))).toBe(
      'apply refused by the approval rules, nothing was sent: Campaign/spring-promo: the fleet is frozen (year-end change freeze, until 2027-01-04T00:00:00.000Z; freeze.yaml:4); no emergency is allowed for it',
    );
    const acl = plan([change({ address: 'TrunkIpAcl/office', action: 'create' })]);
    expect(await refusal(passApprovalGate(acl, [], gate(during, approved, { policies })))).toContain(
      'TrunkIpAcl/office: the fleet is frozen',
    );
    const after = new ManualClock(Date.UTC(2027, 0, 4, 15, 0, 0));
    const fresh = await approvalsOf(
      [
        { person: 'alice', rules: ['billable-campaigns'], at: after.now() },
        { person: 'bob', rules: ['billable-campaigns'], at: after.now() },
      ],
      campaignUpdate,
    );
    expect((await passApprovalGate(campaignUpdate, [], gate(after, fresh, { policies }))).violations).toEqual([]);
  });
});
