import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Connect } from '../../src/run/context.js';
import type { ServeEvent } from '../../src/serve/model.js';
import { startServe, type RunningServe } from '../../src/serve/start.js';
import { systemClock } from '../../src/util/clock.js';
import { ownPackageVersion } from '../../src/manifest/schema-reference.js';
import { advanceClock, cleanEnv, repository, runCli } from './cli.js';
import { browserAvailable, chromiumArgs, chromiumPath } from '../support/chromium.js';

/**
 * The status page in a real browser (Debian's Chromium, driven by playwright-core) with scripts
 * off: the fleet table is read from the rendered page, an account's page is followed by its link,
 * and a screenshot is taken (into docs/images/ with UPDATE_SCREENSHOTS=1, else a temporary folder).
 * It needs Debian's chromium package (`apt-get install -y chromium`, or CHROMIUM_PATH): without a
 * browser it is skipped with a warning, and fails under CI=true (test/support/chromium.ts).
 */

const haveChromium = browserAvailable('serve-page');
const accounts = {
  'acme-retail': { authId: 'PAGEACME01', authToken: 'token-of-acme-retail-01' },
  'bluebird-pbx': { authId: 'PAGEBLUEBIRD01', authToken: 'token-of-bluebird-pbx-01' },
  'cedar-voice': { authId: 'PAGECEDAR01', authToken: 'token-of-cedar-voice-01' },
};
type Name = keyof typeof accounts;

let emulator: RunningEmulator;
let folder: string;
let serve: RunningServe | undefined;
let browser: Browser | undefined;
const events: ServeEvent[] = [];

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
const manifests: Record<Name, string[]> = {
  'acme-retail': [
    document('Brand', 'acme', {
      profile_uuid: '5eed0000-0000-4000-8000-000000000004',
      brand_alias: 'Lumen Fitness',
      brand_type: 'STANDARD',
    }),
    document('Campaign', 'members', {
      brand_id: { ref: 'acme' },
      vertical: 'ENTERTAINMENT',
      usecase: 'ACCOUNT_NOTIFICATION',
      description: 'Class bookings and membership notices for Lumen Fitness members.',
      sample1: 'Lumen: your 6pm spin class is booked. Reply STOP to opt out.',
      sample2: 'Lumen: your membership renews on the 1st. Reply STOP to opt out.',
      subscriber_optin: true,
      subscriber_optout: true,
      subscriber_help: true,
      direct_lending: false,
      embedded_link: false,
      embedded_phone: false,
      age_gated: false,
      affiliate_marketing: false,
      message_flow: 'Customers opt in with a checkbox on the website and confirm by text.',
      help_message: 'Lumen Fitness: reply HELP for help, or visit our website for support.',
      optout_message: 'Lumen Fitness: you are unsubscribed and will receive no more messages.',
    }),
  ],
  'bluebird-pbx': [
    document('TrunkIpAcl', 'depot', { ip_addresses: ['198.51.100.20', '198.51.100.21'] }),
    document('Trunk', 'depot-out', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'depot' } }),
  ],
  'cedar-voice': [document('SipCredential', 'front-desk', { password: { fromEnv: 'CEDAR_SIP_PASSWORD' } })],
};

async function api(name: Name, method: string, pathname: string, body?: unknown): Promise<Record<string, unknown>> {
  const { authId, authToken } = accounts[name];
  const response = await fetch(`${emulator.url}/v1/Account/${authId}${pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${authId}:${authToken}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  if (!haveChromium) return;
  emulator = await startEmulator({ accounts: Object.values(accounts), registryDelayMs: 600_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-serve-page-'));
  const env: Record<string, string> = cleanEnv({
    TELFORM_ENDPOINT: emulator.url,
    CEDAR_SIP_PASSWORD: 'Front-desk-pass-2026',
  });
  for (const [name, account] of Object.entries(accounts) as Array<[Name, { authId: string; authToken: string }]>) {
    await mkdir(path.join(folder, name));
    await writeFile(path.join(folder, name, 'manifest.yaml'), manifests[name].join('\n---\n'));
    const run = await runCli(['apply', '-f', `${name}/`, '--state', `${name}.state.json`, '--auto-approve'], {
      cwd: folder,
      env: { ...env, TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken },
    });
    expect(run.code, run.stderr).toBe(0);
  }
  await advanceClock(emulator, 600_000);
  const campaign = await runCli(
    ['apply', '-f', 'acme-retail/', '--state', 'acme-retail.state.json', '--auto-approve'],
    {
      cwd: folder,
      env: {
        ...env,
        TELFORM_AUTH_ID: accounts['acme-retail'].authId,
        TELFORM_AUTH_TOKEN: accounts['acme-retail'].authToken,
      },
    },
  );
  expect(campaign.code, campaign.stderr).toBe(0);
  // The depot trunk is disabled by hand: that account shows as drifted.
  const trunks = (await api('bluebird-pbx', 'GET', '/Zentrunk/Trunk/')).objects as Array<{ trunk_id: string }>;
  await api('bluebird-pbx', 'POST', `/Zentrunk/Trunk/${trunks[0]?.trunk_id}/`, { trunk_status: 'disabled' });

  const connect: Connect = async (_globals, io) => {
    const authId = io.env.TELFORM_AUTH_ID as string;
    const authToken = io.env.TELFORM_AUTH_TOKEN as string;
    const client = new ApiClient({ baseUrl: emulator.url, credentials: { authId, authToken } });
    return { client, endpointLabel: emulator.url, account: authId, authToken, close: () => client.close() };
  };
  serve = await startServe({
    accounts: (Object.keys(accounts) as Name[]).map((name) => ({
      name,
      manifests: [path.join(folder, name)],
      globals: { state: path.join(folder, `${name}.state.json`), endpoint: emulator.url },
      io: {
        cwd: folder,
        env: { ...env, TELFORM_AUTH_ID: accounts[name].authId, TELFORM_AUTH_TOKEN: accounts[name].authToken },
        stderr: () => undefined,
      },
    })),
    connect,
    intervalMs: 600_000,
    jitter: 0,
    accountParallelism: 3,
    parallelism: 4,
    apply: 'never',
    listen: { host: '127.0.0.1', port: 0 },
    drainMs: 5_000,
    version: ownPackageVersion(),
    clock: systemClock,
    stdout: (text) => events.push(JSON.parse(text) as ServeEvent),
    stderr: () => undefined,
  });
  for (
    let waited = 0;
    events.filter((event) => event.type === 'account_status').length < 3 && waited < 30_000;
    waited += 50
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop('test over');
  await emulator?.close();
  await rm(folder, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('status page in Chromium', () => {
  it('shows the fleet table without scripts, links each account to its page, and is captured for the docs', async () => {
    const context = await (browser as Browser).newContext({
      javaScriptEnabled: false,
      viewport: { width: 1180, height: 640 },
    });
    const page = await context.newPage();
    const response = await page.goto((serve as RunningServe).url);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('telform serve');
    const rows: string[][] = [];
    for (const row of await page.locator('#fleet tbody tr').all()) {
      rows.push((await row.locator('td').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()));
    }
    expect(rows.map((cells) => [cells[0], cells[1], cells[4], cells[5]])).toEqual([
      ['acme-retail', 'in sync', '—', '1 × Brand COMPLETED1 × Campaign PROCESSING'],
      ['bluebird-pbx', 'drifted', 'Trunk/depot-out', '—'],
      ['cedar-voice', 'in sync', '—', '—'],
    ]);
    expect(await page.locator('script').count()).toBe(0);
    const shot = process.env.UPDATE_SCREENSHOTS
      ? path.join(repository, 'docs/images/serve-status-page.png')
      : path.join(folder, 'fleet.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);

    await page.click('text=bluebird-pbx');
    expect(new URL(page.url()).pathname).toBe('/accounts/bluebird-pbx');
    const plan = await page.locator('#plan tbody tr td:first-child').allTextContents();
    expect(plan).toEqual(['Trunk/depot-out']);
    await context.close();
  });
});
