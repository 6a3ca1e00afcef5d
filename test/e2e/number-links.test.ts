import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, callApi, emulatorForCli, runCli, type EmulatorForCli, ownerOf } from './cli.js';
import { campaignAttributes, profileSpec } from './examples.js';

/**
 * PhoneNumber on 10DLC campaigns end to end: numbers linked to a campaign still waiting for its
 * brand (pending, completed by later applies), a failed link reported and retried by a later apply,
 * an unlink, a link removed outside telform found by drift and restored, and import of it all.
 * The registry takes a minute; the tests move the emulator's clock instead of waiting.
 */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const api = (method: string, pathname: string, body?: unknown) => callApi(harness.emulator, method, pathname, body);
const registryDelay = 60_000;
const afterRegistry = () => advanceClock(harness.emulator, registryDelay + 1_000);

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

const profile = doc('Profile', 'links', profileSpec('Links Inc.', '81-0000091'));
const brand = doc('Brand', 'links', { profile_uuid: { ref: 'links' } });
const campaign = doc('Campaign', 'links-orders', {
  brand_id: { ref: 'links' },
  vertical: 'RETAIL',
  usecase: 'DELIVERY_NOTIFICATION',
  description: 'Order confirmations and delivery updates for the customers of Links Inc.',
  sample1: 'Links: your order 1234 has shipped and arrives Tuesday. Reply STOP to opt out.',
  sample2: 'Links: your order 1234 was delivered. Questions? Reply HELP. Reply STOP to opt out.',
  message_flow: 'Customers tick an SMS updates box at checkout on links.example.com and confirm by text.',
  help_message: 'Links Inc.: order help at links.example.com/help or 1-800-555-0191.',
  optout_message: 'Links Inc.: you are unsubscribed and will receive no more messages.',
  ...campaignAttributes,
});
const number = (
  name: string,
  digits: string,
  spec: Record<string, unknown> = { campaign_id: { ref: 'links-orders' } },
) => doc('PhoneNumber', name, { number: digits, ...spec });

async function write(documents: string[]): Promise<void> {
  await writeFile(path.join(folder, 'links.yaml'), documents.join('\n---\n'));
}

async function linkOf(digits: string): Promise<{ campaign: unknown; status: unknown }> {
  const answer = await api('GET', `/Number/${digits}/`);
  return { campaign: answer.body.tendlc_campaign_id, status: answer.body.tendlc_registration_status };
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: registryDelay });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-links-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('phone numbers linked to a campaign', () => {
  const state = ['--state', 'links.json'];

  it('waits for the brand and the campaign, then links and follows the link to COMPLETED over later applies', async () => {
    await write([profile, brand, campaign, number('first', '+15125550101'), number('second', '15125550102')]);
    const first = await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'Apply complete: 2 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 3. Blocked: 0. Failed: 0.',
    );
    expect(first.stderr).toContain('pending  PhoneNumber/first: waits for Campaign/links-orders');

    await afterRegistry();
    const plan = await cli(['plan', '-f', 'links.yaml', ...state]);
    expect(plan.stdout).toContain(
      [
        '  # PhoneNumber/first waits for the registry',
        '  #   exists in the account with the same number; telform takes it over',
        '  #   waits for Campaign/links-orders, which is created in this apply and must be approved by the registry first',
      ].join('\n'),
    );
    const second = await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve']);
    expect(second.stdout).toContain(
      'Apply complete: 1 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 2.',
    );

    await afterRegistry();
    const third = await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve']);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('updated  PhoneNumber/first (id 15125550101)');
    const campaignId = JSON.parse(await readFile(path.join(folder, 'links.json'), 'utf8')).resources[
      'Campaign/links-orders'
    ].id as string;
    expect(await linkOf('15125550101')).toEqual({ campaign: campaignId, status: 'PROCESSING' });
    const processing = await cli(['plan', '-f', 'links.yaml', ...state, '--detailed-exitcode']);
    expect(processing.stdout).toContain('note: PhoneNumber/first is still being reviewed by the registry');
    expect(processing.code).toBe(0);
    // Unlinking (or linking elsewhere) a number whose link is still PROCESSING is refused by the API: the
    // plan says so, before apply meets it.
    await writeFile(
      path.join(folder, 'relink.yaml'),
      [profile, brand, campaign, number('first', '+15125550101', {}), number('second', '15125550102')].join('\n---\n'),
    );
    const relink = await cli(['plan', '-f', 'relink.yaml', ...state]);
    expect(relink.stdout).toContain(
      [
        '  # PhoneNumber/first cannot be changed',
        `  #   its link to campaign ${campaignId} is still PROCESSING: the API unlinks a number only once its link is COMPLETED or FAILED; apply again then`,
      ].join('\n'),
    );

    await afterRegistry();
    expect(await linkOf('15125550101')).toEqual({ campaign: campaignId, status: 'COMPLETED' });
    const links = await api('GET', `/10dlc/Campaign/${campaignId}/Number/`);
    expect(links.body.phone_numbers).toEqual([
      { number: '15125550101', status: 'COMPLETED' },
      { number: '15125550102', status: 'COMPLETED' },
    ]);
    const done = await cli(['plan', '-f', 'links.yaml', ...state, '--detailed-exitcode']);
    expect(done.stdout).toContain('No changes.');
    expect(done.code).toBe(0);
  });

  it('reports a failed link with its reason, and links it again only on a later apply', async () => {
    await write([
      profile,
      brand,
      campaign,
      number('first', '+15125550101'),
      number('second', '15125550102'),
      number('refused', '15125550000'),
    ]);
    expect((await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve'])).code).toBe(0);
    await afterRegistry();
    const plan = await cli(['plan', '-f', 'links.yaml', ...state]);
    expect(plan.stdout).toMatch(
      /warning: PhoneNumber\/refused was declined by the registry \(linking to campaign C[A-Z0-9]{6} failed: NUMBER_LINK_REJECTED: The carriers refused to register the number with the campaign/,
    );
    expect(plan.stdout).toContain('  # PhoneNumber/refused will be updated in place');
    const retry = await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve']);
    expect(retry.stderr).toContain('updated  PhoneNumber/refused (id 15125550000)');
    expect((await linkOf('15125550000')).status).toBe('PROCESSING');
  });

  it('unlinks a number whose campaign_id leaves the manifest, and relinks one unlinked outside telform', async () => {
    await afterRegistry();
    await write([profile, brand, campaign, number('first', '+15125550101'), number('second', '15125550102', {})]);
    const unlink = await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve']);
    // The linked number loses its campaign link (the other's link had failed): apply asks for that count first.
    expect(unlink.stderr).toContain(
      'refused: the plan breaks messages of 1 number and the approved maximum is 0; approve it with --max-numbers-affected 1',
    );
    expect(unlink.code).toBe(1);
    const approved = await cli([
      'apply',
      '-f',
      'links.yaml',
      ...state,
      '--auto-approve',
      '--max-numbers-affected',
      '1',
    ]);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain('updated  PhoneNumber/second (id 15125550102)');
    expect(approved.stderr).toContain('deleted  PhoneNumber/refused');
    expect(await linkOf('15125550102')).toEqual({ campaign: null, status: 'UNREGISTERED' });
    expect(await linkOf('15125550000')).toEqual({ campaign: null, status: 'UNREGISTERED' });

    const { campaign: campaignId } = await linkOf('15125550101');
    expect((await api('DELETE', `/10dlc/Campaign/${String(campaignId)}/Number/15125550101/`)).status).toBe(200);
    const drift = await cli(['drift', '-f', 'links.yaml', ...state]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('PhoneNumber/first');
    expect((await cli(['apply', '-f', 'links.yaml', ...state, '--auto-approve'])).code).toBe(0);
    await afterRegistry();
    expect(await linkOf('15125550101')).toEqual({ campaign: campaignId, status: 'COMPLETED' });
    expect((await cli(['drift', '-f', 'links.yaml', ...state])).code).toBe(0);
  });

  it('imports the profile, brand, campaign and linked number with refs, and plans nothing after', async () => {
    // The states of the tests above are treated as lost: this one takes the account over from their owner, then imports.
    expect(
      (await cli(['--state', 'imported.json', 'state', 'claim', '--take-over', await ownerOf(harness.emulator)])).code,
    ).toBe(0);
    const run = await cli(['import', '--out', 'imported', '--state', 'imported.json']);
    expect(run.code).toBe(0);
    const numbers = await readFile(path.join(folder, 'imported/phone-number.yaml'), 'utf8');
    expect(numbers).toContain('number: "15125550101"\n  campaign_id: { ref: links-orders }');
    expect(numbers).not.toContain('15125550102');
    const brands = await readFile(path.join(folder, 'imported/brand.yaml'), 'utf8');
    expect(brands).toContain('profile_uuid: { ref: links }');
    const plan = await cli(['plan', '-f', 'imported', '--state', 'imported.json', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });
});
