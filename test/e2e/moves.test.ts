import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { advanceClock, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { campaignAttributes, profileSpec } from './examples.js';

/**
 * Renames written in the manifests (`metadata.moved_from`): a Campaign, an inbound Trunk with numbers
 * on it and a TrunkCredential are renamed; the plan has no create or delete, the apply keeps every
 * live id, and the next plan is empty (the leftover moves are notes).
 */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) =>
  runCli(args, { cwd: folder, env: { ...harness.env, LOGIN_PASSWORD: 'Tr0ub4dor_and_3' } });
const state = ['--state', 'moves.json'];

function doc(kind: string, name: string, spec: Record<string, unknown>, movedFrom?: string): string {
  return JSON.stringify({
    apiVersion: 'telform/v1',
    kind,
    metadata: { name, ...(movedFrom ? { moved_from: movedFrom } : {}) },
    spec,
  });
}

const campaignSpec = {
  brand_id: { ref: 'moves' },
  vertical: 'RETAIL',
  usecase: 'DELIVERY_NOTIFICATION',
  description: 'Order confirmations and delivery updates for the customers of Moves Inc.',
  sample1: 'Moves: your order 1234 has shipped and arrives Tuesday. Reply STOP to opt out.',
  sample2: 'Moves: your order 1234 was delivered. Questions? Reply HELP. Reply STOP to opt out.',
  message_flow: 'Customers tick an SMS updates box at checkout on moves.example.com and confirm by text.',
  help_message: 'Moves Inc.: order help at moves.example.com/help or 1-800-555-0191.',
  optout_message: 'Moves Inc.: you are unsubscribed and will receive no more messages.',
  ...campaignAttributes,
};

/** The account before (`renamed` false) and after the renames. */
function manifests(renamed: boolean): string {
  const trunk = renamed ? 'pbx-inbound' : 'pbx-in';
  const login = renamed ? 'pbx-login' : 'login';
  return [
    doc('Profile', 'moves', profileSpec('Moves Inc.', '81-0000093')),
    doc('Brand', 'moves', { profile_uuid: { ref: 'moves' } }),
    // The campaign keeps its live alias (an alias change would be a billable update): only telform's name changes.
    renamed
      ? doc('Campaign', 'orders-2026', { ...campaignSpec, campaign_alias: 'orders' }, 'Campaign/orders')
      : doc('Campaign', 'orders', campaignSpec),
    doc(
      'TrunkCredential',
      login,
      { username: 'movespbx01', password: { fromEnv: 'LOGIN_PASSWORD' } },
      renamed ? 'TrunkCredential/login' : undefined,
    ),
    doc('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
    doc('Trunk', 'pbx-out', {
      trunk_direction: 'outbound',
      ipacl_uuid: { ref: 'office' },
      credential_uuid: { ref: login },
    }),
    doc('OriginationUri', 'pbx', { uri: 'sip.moves.example.com:5060' }),
    doc(
      'Trunk',
      trunk,
      { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx' } },
      renamed ? 'Trunk/pbx-in' : undefined,
    ),
    doc('PhoneNumber', 'main-line', { number: '14155550170', app_id: { ref: trunk } }),
    doc('PhoneNumber', 'sales-line', { number: '14155550171', app_id: { ref: trunk } }),
  ].join('\n---\n');
}

async function ids(): Promise<Record<string, string>> {
  const ledger = JSON.parse(await readFile(path.join(folder, 'moves.json'), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return Object.fromEntries(Object.entries(ledger.resources).map(([address, entry]) => [address, entry.id]));
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-moves-'));
  for (const number of ['14155550170', '14155550171']) {
    const response = await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
      method: 'POST',
      body: JSON.stringify({ number }),
    });
    if (response.status >= 300) throw new Error(`seeding ${number}: ${response.status}`);
  }
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('moves in the manifests', () => {
  it('renames a Campaign, a Trunk with numbers on it and a TrunkCredential with no create or delete, keeping every live id', async () => {
    await writeFile(path.join(folder, 'account.yaml'), manifests(false));
    const first = await cli(['apply', '-f', 'account.yaml', ...state, '--auto-approve']);
    expect(first.code).toBe(0);
    await advanceClock(harness.emulator, 61_000);
    expect((await cli(['apply', '-f', 'account.yaml', ...state, '--auto-approve'])).code).toBe(0);
    await advanceClock(harness.emulator, 61_000);
    const settled = await cli(['plan', '-f', 'account.yaml', ...state, '--detailed-exitcode']);
    expect(settled.stdout).toContain('No changes.');
    const before = await ids();

    await writeFile(path.join(folder, 'account.yaml'), manifests(true));
    const plan = await cli(['plan', '-f', 'account.yaml', ...state, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      'Plan: 0 to create, 2 to update, 0 to replace, 0 to delete, 3 to move. Cost: 0 USD. Irreversible: 0.',
    );
    expect(plan.stdout).toContain(
      [
        '  # Campaign/orders-2026 (moved from Campaign/orders) is up to date',
        '  #   moved from Campaign/orders (metadata.moved_from); the state follows it',
      ].join('\n'),
    );
    expect(plan.stdout).toContain(
      [
        '  # Trunk/pbx-inbound (moved from Trunk/pbx-in) will be updated in place',
        '  #   moved from Trunk/pbx-in (metadata.moved_from); the state follows it',
        `  ~ Trunk/pbx-inbound (id ${before['Trunk/pbx-in']})`,
        '      ~ name: "pbx-in" → "pbx-inbound"',
      ].join('\n'),
    );
    // The password is the one recorded under the old address: it is not sent again.
    expect(plan.stdout).toContain(
      [
        `  ~ TrunkCredential/pbx-login (id ${before['TrunkCredential/login']})`,
        '      ~ name: "login" → "pbx-login"',
        '',
      ].join('\n'),
    );

    const apply = await cli(['apply', '-f', 'account.yaml', ...state, '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 0 created, 2 updated, 0 replaced, 0 deleted, 0 adopted.');
    const after = await ids();
    const renamed: Record<string, string> = {
      'Campaign/orders': 'Campaign/orders-2026',
      'Trunk/pbx-in': 'Trunk/pbx-inbound',
      'TrunkCredential/login': 'TrunkCredential/pbx-login',
    };
    expect(after).toEqual(
      Object.fromEntries(Object.entries(before).map(([address, id]) => [renamed[address] ?? address, id])),
    );

    const next = await cli(['plan', '-f', 'account.yaml', ...state, '--detailed-exitcode']);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('No changes. The account matches the manifests.');
    expect(next.stdout).toContain(
      'warning: Trunk/pbx-inbound: the move from Trunk/pbx-in is recorded in the state; metadata.moved_from can be removed',
    );
  });
});
