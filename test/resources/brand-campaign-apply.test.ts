import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadDesired } from '../../src/manifest/desired.js';
import { applyPlan, type ApplyResult } from '../../src/engine/apply.js';
import { toPlannerKind } from '../../src/engine/kinds.js';
import { SecretFingerprinter } from '../../src/state/ledger.js';
import type { PlannerKind } from '../../src/engine/model.js';
import type { Plan, PlanApprovals } from '../../src/engine/plan-types.js';
import { preparePlan } from '../../src/engine/prepare.js';
import { FileBackend } from '../../src/state/backends/file.js';
import { LedgerStore } from '../../src/state/ledger-store.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { brand } from '../../src/resources/brand.js';
import { campaign } from '../../src/resources/campaign.js';
import { InstantClock } from '../support/clock.js';
import { seeded, startTendlcEmulator, testRegistryDelayMs } from '../emulator/tendlc-client.js';
import { liveAccount, requestLog, setFaults, type LiveAccount } from './brand-campaign-harness.js';

/**
 * Brand and Campaign through the real planner and applier against the emulator: a brand is
 * created, its campaigns wait for the registry, a later apply registers them, and the plan after
 * that is empty (no perpetual diff), also when create answers were lost on the way.
 */

let emulator: RunningEmulator;
let directory: string;

beforeAll(async () => {
  emulator = await startTendlcEmulator();
  directory = await mkdtemp(join(tmpdir(), 'telform-10dlc-apply-'));
});

afterAll(async () => {
  await emulator.close();
  await rm(directory, { recursive: true, force: true });
});

afterEach(async () => {
  await setFaults(emulator, null);
});

const kinds: PlannerKind[] = [brand, campaign].map((kind) => {
  if (!kind.live) throw new Error(`${kind.name} has no live side`);
  return toPlannerKind({ ...kind, live: kind.live });
});
const kindMap = new Map(kinds.map((kind) => [kind.kind, kind]));

const approvals: PlanApprovals = {
  allow_irreversible: ['all'],
  max_cost_usd: 100,
  force_deletes: false,
  allow_empty: false,
  prune_unmanaged: [],
};

const campaignFields = [
  '  vertical: HEALTHCARE',
  '  description: Appointment reminders and confirmations sent to patients of the practice.',
  '  sample1: "Hi Sam, your appointment is on May 3 at 10:00. Reply C to confirm."',
  '  sample2: "Your appointment is confirmed. Reply STOP to opt out, HELP for help."',
  '  subscriber_optin: true',
  '  subscriber_optout: true',
  '  subscriber_help: true',
  '  direct_lending: false',
  '  embedded_link: false',
  '  embedded_phone: false',
  '  age_gated: false',
  '  affiliate_marketing: false',
  '  message_flow: Patients opt in by ticking a box on the signed intake form at their first visit.',
  '  help_message: "Northwind Dental: call 555-0100 for help. Reply STOP to opt out."',
  '  optout_message: You are unsubscribed from Northwind Dental reminders.',
];

function manifests(profileUuid: string, importId: string, description?: string): string {
  const fields =
    description === undefined
      ? campaignFields
      : campaignFields.map((line) => (line.startsWith('  description:') ? `  description: ${description}` : line));
  return (
    [
      [
        'apiVersion: telform/v1',
        'kind: Brand',
        'metadata:',
        '  name: northwind',
        'spec:',
        `  profile_uuid: ${profileUuid}`,
      ].join('\n'),
      [
        'apiVersion: telform/v1',
        'kind: Campaign',
        'metadata:',
        '  name: reminders',
        'spec:',
        '  brand_id: { ref: northwind }',
        '  usecase: ACCOUNT_NOTIFICATION',
        '  optin_keywords: START,YES',
        ...fields,
      ].join('\n'),
      [
        'apiVersion: telform/v1',
        'kind: Campaign',
        'metadata:',
        '  name: mixed',
        'spec:',
        '  brand_id: { ref: northwind }',
        '  usecase: MIXED',
        '  sub_usecases: [MARKETING, 2FA]',
        ...fields,
      ].join('\n'),
      [
        'apiVersion: telform/v1',
        'kind: Campaign',
        'metadata:',
        '  name: shared',
        'spec:',
        '  import: { campaign_id: ' + importId + ' }',
      ].join('\n'),
    ].join('\n---\n') + '\n'
  );
}

interface Run {
  setup: LiveAccount;
  folder: string;
  stateFile: string;
}

async function newRun(name: string, profileUuid: string, importId: string): Promise<Run> {
  const setup = await liveAccount(emulator);
  const folder = join(directory, name);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'manifests.yaml'), manifests(profileUuid, importId));
  return { setup, folder, stateFile: join(folder, 'state.json') };
}

async function plan(run: Run): Promise<Plan> {
  const desired = await loadDesired([run.folder], { cwd: run.folder, env: {}, report: () => undefined });
  const store = await LedgerStore.open(new FileBackend(run.stateFile), {
    binding: { endpoint: 'emulator', account: run.setup.account.authId },
    lock: false,
  });
  const { plan: result } = await preparePlan({
    kinds: kindMap,
    desired: desired.resources,
    live: run.setup.context,
    store,
    fingerprinter: new SecretFingerprinter(run.setup.account.authToken),
    resolveSecrets: desired.resolveSecrets,
    approvals,
    endpoint: 'emulator',
    account: run.setup.account.authId,
    now: new Date('2026-11-25T00:00:00Z'),
  });
  return result;
}

async function apply(run: Run, planned: Plan): Promise<ApplyResult> {
  const desired = await loadDesired([run.folder], { cwd: run.folder, env: {}, report: () => undefined });
  const store = await LedgerStore.open(new FileBackend(run.stateFile), {
    binding: { endpoint: 'emulator', account: run.setup.account.authId },
    lock: true,
  });
  try {
    return await applyPlan(
      {
        plan: planned,
        kinds: kindMap,
        desired: new Map(desired.resources.map((resource) => [resource.address, resource])),
        store,
        live: run.setup.context,
        fingerprinter: new SecretFingerprinter(run.setup.account.authToken),
        resolveSecrets: desired.resolveSecrets,
      },
      { parallelism: 4, waitMs: 0, clock: new InstantClock() },
    );
  } finally {
    await store.close();
  }
}

const actions = (planned: Plan): Record<string, string> =>
  Object.fromEntries(planned.changes.map((change) => [change.address, change.action]));

describe('Brand and Campaign through plan and apply', () => {
  it('creates the brand, waits for the registry, registers the campaigns, then plans nothing', async () => {
    const run = await newRun('happy', seeded.withEin[0], 'CSHRD10');
    const first = await plan(run);
    expect(actions(first)).toEqual({
      'Brand/northwind': 'create',
      'Campaign/reminders': 'wait',
      'Campaign/mixed': 'wait',
      'Campaign/shared': 'create',
    });
    const applied = await apply(run, first);
    expect(applied).toMatchObject({ failed: 0, pending: 2 });

    await run.setup.account.advance(testRegistryDelayMs);
    const second = await plan(run);
    expect(actions(second)).toEqual({
      'Brand/northwind': 'noop',
      'Campaign/reminders': 'create',
      'Campaign/mixed': 'create',
      'Campaign/shared': 'noop',
    });
    expect(await apply(run, second)).toMatchObject({ failed: 0, pending: 0 });

    const third = await plan(run);
    const noop = { action: 'noop', patch: [] };
    expect(
      Object.fromEntries(
        third.changes.map((change) => [change.address, { action: change.action, patch: change.patch }]),
      ),
    ).toEqual({
      'Brand/northwind': noop,
      'Campaign/reminders': noop,
      'Campaign/mixed': noop,
      'Campaign/shared': noop,
    });
    // Only the reads apply makes first to plan again: nothing to write.
    expect(third.summary.api_requests).toBe(third.summary.api_reads);

    // An ACTIVE campaign cannot be updated: the change is blocked with the reason.
    await run.setup.account.advance(testRegistryDelayMs);
    await writeFile(
      join(run.folder, 'manifests.yaml'),
      manifests(seeded.withEin[0], 'CSHRD10', 'Appointment reminders, confirmations and follow-ups for patients.'),
    );
    const blocked = (await plan(run)).changes.find((change) => change.address === 'Campaign/reminders');
    expect(blocked?.action).toBe('blocked');
    expect(blocked?.reasons).toEqual(['campaigns can be updated only while FAILED (now ACTIVE)']);
  });

  it('never duplicates after lost create answers: the plan after the applies is empty', async () => {
    const run = await newRun('lost', seeded.withEin[1], 'CSHRD11');
    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=2' });
    await apply(run, await plan(run));
    await run.setup.account.advance(testRegistryDelayMs);
    await apply(run, await plan(run));
    await setFaults(emulator, null);

    const final = await plan(run);
    expect(Object.values(actions(final))).toEqual(['noop', 'noop', 'noop', 'noop']);
    const posts = (await requestLog(run.setup.account)).filter((entry) => entry.method === 'POST');
    expect(posts.map((entry) => `${entry.path} ${entry.fault ?? ''}`).sort()).toEqual([
      '/10dlc/Brand/ lost_response',
      '/10dlc/Campaign/ lost_response',
      '/10dlc/Campaign/ lost_response',
      '/10dlc/Campaign/Import/ lost_response',
    ]);
  });

  it('replaces a campaign whose use case changed (new one first, also when its create answer is lost), then plans nothing', async () => {
    const run = await newRun('replace', seeded.withEin[2], 'CSHRD12');
    await apply(run, await plan(run));
    await run.setup.account.advance(testRegistryDelayMs);
    await apply(run, await plan(run));
    const before = await campaignIds(run);

    const changed = manifests(seeded.withEin[2], 'CSHRD12').replace(
      'usecase: ACCOUNT_NOTIFICATION',
      'usecase: CUSTOMER_CARE',
    );
    await writeFile(join(run.folder, 'manifests.yaml'), changed);
    const replacing = await plan(run);
    const change = replacing.changes.find((item) => item.address === 'Campaign/reminders');
    expect(change).toMatchObject({
      action: 'replace',
      replace_strategy: 'create_before_delete',
      flags: { irreversible: true },
    });
    expect(change?.reasons).toEqual([
      'usecase cannot be updated in place, so a new Campaign is created and the old one deleted',
    ]);

    await setFaults(emulator, { faults: 'lost=1,methods=POST,seed=2' });
    expect(await apply(run, replacing)).toMatchObject({ failed: 0, pending: 0, blocked: 0 });
    await setFaults(emulator, null);

    const after = await campaignIds(run);
    expect(after.get('mixed')).toBe(before.get('mixed'));
    expect(after.get('reminders')).not.toBe(before.get('reminders'));
    expect(after.size).toBe(3);
    expect(Object.values(actions(await plan(run)))).toEqual(['noop', 'noop', 'noop', 'noop']);
  });
});

/** Live campaign ids by alias (an alias twice would fail the size checks). */
async function campaignIds(run: Run): Promise<Map<string, string>> {
  const listed = await campaign.live?.list(run.setup.context);
  return new Map((listed ?? []).map((item) => [String(item.spec.campaign_alias), item.id]));
}
