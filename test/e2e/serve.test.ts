import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { advanceClock, cleanEnv, runCli } from './cli.js';
import { freePort, startServeCli, type Line, type ServeProcess } from './serve-harness.js';

/**
 * `telform serve` end to end: three emulator accounts watched by the built CLI. A campaign that
 * expires at the registry is announced through its callback within seconds, and without a callback
 * at the next interval; a trunk changed by hand is drift, healed by `--apply safe`; an irreversible
 * change is left for a person; a forged callback is refused and logged; SIGTERM drains.
 */

const accounts = {
  pbx: { authId: 'SERVEPBX01', authToken: 'token-of-pbx-account-0001' },
  hooked: { authId: 'SERVEHOOKED01', authToken: 'token-of-hooked-account-01' },
  polled: { authId: 'SERVEPOLLED01', authToken: 'token-of-polled-account-01' },
};
type AccountName = keyof typeof accounts;

let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;
let port: number;
let serve: ServeProcess | undefined;
/** What the --notify receiver got: the parsed body of each POST, in order. */
const notified: Array<Record<string, unknown>> = [];
let receiver: Server;
let notifyUrl: string;

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

function tenDlc(profile: string, callbacks: boolean): string[] {
  // One setting for every account: the accounts file's defaults.values.callback_url.
  const url = callbacks ? { url: { value: 'callback_url' } } : {};
  return [
    document('Brand', 'bluebird', {
      profile_uuid: profile,
      brand_alias: 'Bluebird Logistics',
      brand_type: 'STANDARD',
      ...url,
    }),
    document('Campaign', 'spring', {
      brand_id: { ref: 'bluebird' },
      vertical: 'TRANSPORTATION',
      usecase: 'MARKETING',
      description: 'Spring offers for Bluebird customers; this registration will expire at the registry.',
      sample1: 'Bluebird: 10% off spring shipping this week. Reply STOP to opt out.',
      sample2: 'Bluebird: your spring coupon is SPRING10. Reply STOP to opt out.',
      subscriber_optin: true,
      subscriber_optout: true,
      subscriber_help: true,
      direct_lending: false,
      embedded_link: false,
      embedded_phone: false,
      age_gated: false,
      affiliate_marketing: false,
      message_flow: 'Customers opt in with a checkbox on the website and confirm by text.',
      help_message: 'Bluebird Logistics: reply HELP for help, or visit our website for support.',
      optout_message: 'Bluebird Logistics: you are unsubscribed and will receive no more messages.',
      ...url,
    }),
  ];
}

async function api(
  account: AccountName,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const { authId, authToken } = accounts[account];
  const response = await fetch(`${emulator.url}/v1/Account/${authId}${pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${authId}:${authToken}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

beforeAll(async () => {
  // The first POST is answered 503: the notifier retries it.
  let refusedOnce = false;
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (!refusedOnce) {
        refusedOnce = true;
        response.statusCode = 503;
        return response.end();
      }
      notified.push(JSON.parse(body) as Record<string, unknown>);
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  emulator = await startEmulator({ accounts: Object.values(accounts), registryDelayMs: 600_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-serve-'));
  port = await freePort();
  await mkdir(path.join(folder, 'pbx'));
  await mkdir(path.join(folder, 'hooked'));
  await mkdir(path.join(folder, 'polled'));
  await writeFile(
    path.join(folder, 'pbx/pbx.yaml'),
    [
      document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      document('Trunk', 'pbx-out', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  await writeFile(
    path.join(folder, 'hooked/10dlc.yaml'),
    tenDlc('5eed0000-0000-4000-8000-000000000002', true).join('\n---\n'),
  );
  await writeFile(
    path.join(folder, 'polled/10dlc.yaml'),
    tenDlc('5eed0000-0000-4000-8000-000000000003', false).join('\n---\n'),
  );
  const entries = (Object.keys(accounts) as AccountName[]).map(
    (name) =>
      `  - name: ${name}\n    manifests: [${name}/]\n    credentials: { auth_id_env: ${name.toUpperCase()}_ID, auth_token_env: ${name.toUpperCase()}_TOKEN }`,
  );
  await writeFile(
    path.join(folder, 'accounts.yaml'),
    `defaults:\n  state: states/{account}.state.json\n  values:\n    callback_url: http://127.0.0.1:${port}/callbacks\naccounts:\n${entries.join('\n')}\n`,
  );
  await mkdir(path.join(folder, 'states'));
  env = cleanEnv({ TELFORM_ENDPOINT: emulator.url });
  for (const [name, account] of Object.entries(accounts)) {
    env[`${name.toUpperCase()}_ID`] = account.authId;
    env[`${name.toUpperCase()}_TOKEN`] = account.authToken;
  }
  // Brands first; campaigns once the brands are registered; then the campaigns turn ACTIVE (and
  // expire one registry delay later, when the test moves the clock).
  const apply = () => runCli(['apply', '--accounts', 'accounts.yaml', '--auto-approve'], { cwd: folder, env });
  const first = await apply();
  expect(first.code, first.stdout + first.stderr).toBe(0);
  await advanceClock(emulator, 600_000);
  const second = await apply();
  expect(second.code, second.stderr).toBe(0);
  await advanceClock(emulator, 600_000);
}, 120_000);

afterAll(async () => {
  await serve?.stop('SIGKILL');
  await new Promise((resolve) => receiver?.close(resolve));
  await emulator?.close();
  await rm(folder, { recursive: true, force: true });
});

const of =
  (account: AccountName, type: string, extra: (event: Line) => boolean = () => true) =>
  (event: Line) =>
    event.account === account && event.type === type && extra(event);

describe('telform serve', () => {
  it('refuses bad input with one line naming the flag', async () => {
    const serveCli = (args: string[]) => runCli(['serve', ...args], { cwd: folder, env });
    const cases: Array<[string[], string]> = [
      [[], 'error: no manifests given: pass -f PATH (repeatable) or --accounts FILE'],
      [['-f', 'pbx/', '--accounts', 'accounts.yaml'], 'error: give either --accounts FILE or -f manifests, not both'],
      [
        ['-f', 'pbx/', '--listen', 'nope'],
        "error: option '--listen <host:port>' argument 'nope' is invalid. expected HOST:PORT, e.g. 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080 (port 0: any free port)",
      ],
      [
        ['-f', 'pbx/', '--apply', 'always'],
        "error: option '--apply <mode>' argument 'always' is invalid. Allowed choices are never, safe.",
      ],
      [
        ['--accounts', 'accounts.yaml', '--values', 'v.yaml'],
        "error: --values and --value are for a single-account run; with --accounts, give values in the accounts file (defaults.values, or an account's values)",
      ],
    ];
    for (const [args, message] of cases) {
      const run = await serveCli(args);
      expect([run.code, run.stderr.trim()], args.join(' ')).toEqual([1, message]);
    }
  });

  it('watches three accounts: callback within seconds, the rest at the next interval, safe healing, held irreversible changes, refused forgeries, a drained stop', async () => {
    serve = await startServeCli(
      [
        '--accounts',
        'accounts.yaml',
        '--listen',
        `127.0.0.1:${port}`,
        '--interval',
        '5s',
        '--jitter',
        '0',
        '--account-parallelism',
        '3',
        '--apply',
        'safe',
        '--drain-timeout',
        '10s',
        '--notify',
        notifyUrl,
      ],
      { cwd: folder, env },
    );
    const running = serve;
    expect(running.url).toBe(`http://127.0.0.1:${port}`);
    for (const account of Object.keys(accounts) as AccountName[]) {
      const first = await running.waitForEvent(of(account, 'account_status'));
      expect(first).toMatchObject({ cause: 'start', from: 'unknown', to: 'in_sync', drifted: [], pending: [] });
    }

    // A forged callback (signed with the wrong token) is refused, logged and read nothing.
    const forged = await fetch(`${running.url}/callbacks/hooked`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-plivo-signature-v2': 'Zm9yZ2Vk',
        'x-plivo-signature-v2-nonce': '12345',
      },
      body: JSON.stringify({ type: 'campaign', campaign_id: 'CFORGED', status: 'expired' }),
    });
    expect(forged.status).toBe(403);
    const refused = await running.waitForLog((line) => line.msg === 'callback refused');
    expect(refused).toMatchObject({
      level: 'warn',
      account: 'hooked',
      result: 'bad_signature',
      reason: 'the signature does not match (wrong token, altered URL, or forged)',
    });
    const asked = (await (await fetch(`${emulator.url}/__emulator/requests/?type=request`)).json()) as {
      requests: Array<{ path: string }>;
    };
    expect(asked.requests.filter((entry) => entry.path.includes('CFORGED'))).toEqual([]);

    // The registry expires both campaigns; the trunk is disabled by hand.
    const trunks = (await api('pbx', 'GET', '/Zentrunk/Trunk/')).objects as Array<{ trunk_id: string }>;
    const trunkId = trunks[0]?.trunk_id as string;
    const mark = running.events.length;
    const movedAt = Date.now();
    await advanceClock(emulator, 600_000);
    await api('pbx', 'POST', `/Zentrunk/Trunk/${trunkId}/`, { trunk_status: 'disabled' });

    const hooked = await running.waitForEvent(of('hooked', 'registry_status'), { from: mark, timeoutMs: 10_000 });
    expect(hooked).toMatchObject({
      cause: 'callback',
      address: 'Campaign/spring',
      kind: 'Campaign',
      from: 'ACTIVE',
      to: 'EXPIRED',
    });
    // The issue's bound: the event follows the registry's change within 2 s through the callback.
    expect(hooked.receivedAt - movedAt).toBeLessThan(2_000);

    const polled = await running.waitForEvent(of('polled', 'registry_status'), { from: mark, timeoutMs: 15_000 });
    expect(polled).toMatchObject({ cause: 'interval', address: 'Campaign/spring', from: 'ACTIVE', to: 'EXPIRED' });

    const drifted = await running.waitForEvent(of('pbx', 'account_status'), { from: mark, timeoutMs: 15_000 });
    expect(drifted).toMatchObject({ cause: 'interval', from: 'in_sync', to: 'drifted', drifted: ['Trunk/pbx-out'] });
    const applied = await running.waitForEvent(of('pbx', 'applied'), { from: mark });
    expect(applied).toMatchObject({ cause: 'apply', changes: ['Trunk/pbx-out'], failed: false });
    expect(applied.summary).toMatch(/^Apply complete: 0 created, 1 updated/);
    const healed = await running.waitForEvent(
      of('pbx', 'account_status', (event) => event.to === 'in_sync'),
      { from: mark },
    );
    expect(healed).toMatchObject({ cause: 'apply', from: 'drifted' });
    const trunk = await api('pbx', 'GET', `/Zentrunk/Trunk/${trunkId}/`);
    expect((trunk.object as Record<string, unknown>).trunk_status).toBe('enabled');

    // An irreversible change (the campaign left the manifests) is held for a person, not applied.
    await writeFile(
      path.join(folder, 'polled/10dlc.yaml'),
      tenDlc('5eed0000-0000-4000-8000-000000000003', false)[0] as string,
    );
    const held = await running.waitForEvent(of('polled', 'apply_held'), { from: mark, timeoutMs: 15_000 });
    expect(held.changes).toEqual(['Campaign/spring']);
    expect((held.reasons as string[]).join('\n')).toContain('--allow-irreversible Campaign/spring');
    const campaigns = (await api('polled', 'GET', '/10dlc/Campaign/')).campaigns as unknown[];
    expect(campaigns).toHaveLength(1);

    // Each event once: ids unique, and no registry move announced twice.
    const ids = running.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const moves = running.events
      .filter((event) => event.type === 'registry_status')
      .map((event) => `${event.account} ${event.address} ${event.to}`);
    expect(new Set(moves).size).toBe(moves.length);

    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain('telform_callbacks_total{result="bad_signature"} 1');
    expect(metrics).toMatch(/telform_callbacks_total\{result="accepted"\} [1-9]/);
    expect(metrics).toContain('telform_account_status{account="pbx",status="in_sync"} 1');
    expect(metrics).toContain('telform_applies_total{result="applied"} 1');
    expect(metrics).toMatch(/telform_api_requests_total\{account="hooked"\} \d+/);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);

    const stopped = await running.stop('SIGTERM');
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(running.logs.at(-1)).toMatchObject({ msg: 'stopped', drained: true });
    // --notify got every event of stdout, in order, once (the first after a retry).
    expect(notified.map((event) => event.id)).toEqual(running.events.map((event) => event.id));
    expect(notified[0]).toEqual(
      Object.fromEntries(Object.entries(running.events[0] ?? {}).filter(([key]) => key !== 'receivedAt')),
    );
    // Every lock was released: an apply that must take it runs at once.
    const after = await runCli(['apply', '--accounts', 'accounts.yaml', '--only', 'pbx', '--auto-approve'], {
      cwd: folder,
      env,
    });
    expect(after.code, after.stderr).toBe(0);
  }, 120_000);

  it('on SIGTERM during an apply, gives up what is in flight after --drain-timeout and releases the state lock', async () => {
    const trunks = (await api('pbx', 'GET', '/Zentrunk/Trunk/')).objects as Array<{ trunk_id: string }>;
    await api('pbx', 'POST', `/Zentrunk/Trunk/${trunks[0]?.trunk_id}/`, { trunk_status: 'disabled' });
    // Every request now takes 1.5 s: the apply that follows the check is still under way at SIGTERM.
    await fetch(`${emulator.url}/__emulator/faults/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency: 1_500 }),
    });
    try {
      const slow = await startServeCli(
        [
          '--accounts',
          'accounts.yaml',
          '--only',
          'pbx',
          '--listen',
          '127.0.0.1:0',
          '--interval',
          '1h',
          '--apply',
          'safe',
          '--drain-timeout',
          '1s',
        ],
        { cwd: folder, env },
      );
      serve = slow;
      await slow.waitForEvent(
        of('pbx', 'account_status', (event) => event.to === 'drifted'),
        { timeoutMs: 60_000 },
      );
      expect(await slow.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(slow.logs.find((line) => line.msg === 'stopping')).toMatchObject({
        reason: 'SIGTERM',
        in_flight: ['pbx'],
      });
      expect(slow.logs.find((line) => line.msg === 'apply abandoned: serve is stopping')).toMatchObject({
        level: 'warn',
        account: 'pbx',
      });
      expect(slow.logs.at(-1)).toMatchObject({ msg: 'stopped', drained: false });
      expect(slow.events.map((event) => event.type)).toEqual(['account_status']);
      // Each manifest warning is logged once, not at every check.
      expect(slow.logs.filter((line) => String(line.msg).includes('no manifest uses it'))).toHaveLength(1);
    } finally {
      await fetch(`${emulator.url}/__emulator/faults/`, { method: 'DELETE' });
    }
    // The lock was released: an apply takes it at once and heals the trunk.
    const after = await runCli(['apply', '--accounts', 'accounts.yaml', '--only', 'pbx', '--auto-approve'], {
      cwd: folder,
      env,
    });
    expect(after.code, after.stderr).toBe(0);
    const trunk = await api('pbx', 'GET', `/Zentrunk/Trunk/${trunks[0]?.trunk_id}/`);
    expect((trunk.object as Record<string, unknown>).trunk_status).toBe('enabled');
  }, 120_000);
});
