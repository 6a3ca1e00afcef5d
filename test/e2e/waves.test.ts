import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cleanEnv, runCli } from './cli.js';

/**
 * A rollout in waves over 20 emulator accounts from one shared folder with per-account values:
 * waves 1, 25%, 100% are cust-01; cust-02..05; cust-06..20. One account of the second wave
 * (cust-04) names an application its account does not have, so its write fails: the rollout stops
 * before the third wave and the report names it. Once the application exists, `--resume` applies
 * exactly the accounts not yet done, counted from the emulator's request log.
 */

const count = 20;
const failing = 'cust-04';
const missingApp = '77700000000000042';
const names = Array.from({ length: count }, (_, index) => `cust-${String(index + 1).padStart(2, '0')}`);
const authId = (index: number) => `MAWAVES${String(index + 1).padStart(13, '0')}`;
const token = (index: number) => `waves-token-${index + 1}-000000000000000000000`;
const variable = (name: string) => name.toUpperCase().replace('-', '_');
const wave1 = names.slice(0, 1);
const wave2 = names.slice(1, 5);
const wave3 = names.slice(5);

let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;

const shared = `apiVersion: telform/v1
kind: SipIpAcl
metadata:
  name: office
spec:
  entries:
    - ip: { value: office_ip }
      description: Office
---
apiVersion: telform/v1
kind: ApplicationSipAuth
metadata:
  name: inbound-app
spec:
  app_id: { value: app_id }
  sip_auth_type: ip_acl
  ip_acl_uuid: { ref: office }
`;

beforeAll(async () => {
  emulator = await startEmulator({
    accounts: names.map((_, index) => ({ authId: authId(index), authToken: token(index) })),
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-waves-'));
  await mkdir(path.join(folder, 'shared'));
  await writeFile(path.join(folder, 'shared', 'auth.yaml'), shared);
  const lines = [
    'defaults:',
    '  state: states/{account}.json',
    `  endpoint: ${emulator.url}`,
    '  values:',
    '    app_id: "77700000000000001"',
    'accounts:',
  ];
  names.forEach((name, index) => {
    lines.push(
      `  - name: ${name}`,
      '    manifests: shared/',
      `    credentials: { auth_id_env: ${variable(name)}_ID, auth_token_env: ${variable(name)}_TOKEN }`,
    );
    lines.push(`    values: { office_ip: 192.0.2.${index + 1}${name === failing ? `, app_id: "${missingApp}"` : ''} }`);
  });
  await writeFile(path.join(folder, 'accounts.yaml'), `${lines.join('\n')}\n`);
  const credentials: Record<string, string> = {};
  names.forEach((name, index) => {
    credentials[`${variable(name)}_ID`] = authId(index);
    credentials[`${variable(name)}_TOKEN`] = token(index);
  });
  env = cleanEnv(credentials);
});

afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { cwd: folder, env });

/** The API requests each account received since the log was last cleared, as `METHOD` strings. */
async function requestsByAccount(): Promise<Map<string, string[]>> {
  const byAccount = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const [index, name] of names.entries()) {
    const response = await fetch(`${emulator.url}/__emulator/requests/?account=${authId(index)}&type=request`);
    const body = (await response.json()) as { requests: Array<{ method: string }> };
    byAccount.set(
      name,
      body.requests.map((request) => request.method),
    );
  }
  return byAccount;
}

async function clearRequests(): Promise<void> {
  await fetch(`${emulator.url}/__emulator/requests/`, { method: 'DELETE' });
}

interface Report {
  exit_code: number;
  rollout: {
    resumed: boolean;
    stopped_at?: number;
    waves: Array<{
      wave: number;
      accounts: string[];
      status: string;
      failures?: Array<{ account: string; reason: string }>;
    }>;
  };
  accounts: Array<{ name: string; status: string }>;
}

describe('apply --accounts --waves', () => {
  it('stops before the third wave when an account of the second fails a write, and names it', async () => {
    await clearRequests();
    const run = await cli([
      'apply',
      '--accounts',
      'accounts.yaml',
      '--auto-approve',
      '--waves',
      '1,25%,100%',
      '--format',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.exit_code).toBe(1);
    expect(report.rollout.stopped_at).toBe(2);
    expect(report.rollout.waves.map((wave) => [wave.wave, wave.accounts, wave.status])).toEqual([
      [1, wave1, 'passed'],
      [2, wave2, 'failed'],
      [3, wave3, 'not_started'],
    ]);
    expect(report.rollout.waves[1]?.failures?.map((failure) => failure.account)).toEqual([failing]);
    // The failed change and the API's message, not only the counts (issue 33 item 24).
    const reason =
      'apply failed: ApplicationSipAuth/inbound-app: the API answered 404 to POST /Application/77700000000000042/: application 77700000000000042 not found';
    expect(report.rollout.waves[1]?.failures?.[0]?.reason).toBe(reason);
    expect(report.accounts.map((account) => [account.name, account.status])).toEqual(
      [...wave1, ...wave2].map((name) => [name, name === failing ? 'error' : 'applied']),
    );
    expect(run.stderr).toContain(`[wave 2/3] gate failed: ${failing} (${reason}); the rollout stops here`);

    const requests = await requestsByAccount();
    for (const name of wave3) expect(requests.get(name), name).toEqual([]);
    for (const name of [...wave1, ...wave2])
      expect(requests.get(name)?.filter((method) => method === 'POST').length, name).toBeGreaterThan(0);
    await access(path.join(folder, 'states', '_rollout.json'));
  });

  it('refuses to start another rollout over a stopped one', async () => {
    const run = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--waves', '100%']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('stopped at wave 2 of 3: continue it with --resume, or start over with --restart');
  });

  it('refuses a plain apply of every account while the rollout is stopped, and takes --ignore-rollout only without --resume (issue 33 item 18)', async () => {
    await clearRequests();
    const plain = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(`stopped at wave 2 of 3, and ${failing}, ${wave3.slice(0, 4).join(', ')}`);
    expect(plain.stderr).toContain(
      'have not passed it: continue it with --resume, start over with --waves STEPS --restart, or apply anyway with --ignore-rollout',
    );
    const requests = await requestsByAccount();
    for (const name of names) expect(requests.get(name), name).toEqual([]);
    const both = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--resume', '--ignore-rollout']);
    expect([both.code, both.stderr.trim()]).toEqual([
      1,
      'error: --ignore-rollout is for an apply of every account at once: give it without --waves or --resume',
    ]);
  });

  it('--resume after the fix applies exactly the accounts not yet done', async () => {
    const index = names.indexOf(failing);
    const created = await fetch(`${emulator.url}/__emulator/accounts/${authId(index)}/applications/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        app_id: missingApp,
        app_name: 'pbx-inbound-2',
        answer_url: 'https://pbx.example.com/answer',
      }),
    });
    expect(created.status).toBe(201);
    await clearRequests();

    const run = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--resume']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n').slice(0, 7).join('\n')).toBe(
      [
        'telform apply: 16 accounts: 16 applied. Rollout of 3 waves complete. Exit code 0.',
        '',
        '  Waves (resumed):',
        '     1   1 account   passed in an earlier run',
        '     2   4 accounts  passed its gate',
        '     3  15 accounts  passed its gate',
        '',
      ].join('\n'),
    );

    const requests = await requestsByAccount();
    // The first wave is not touched; the second wave's done accounts are only read (its gate's drift check).
    for (const name of wave1) expect(requests.get(name), name).toEqual([]);
    for (const name of wave2.filter((name) => name !== failing)) {
      expect(requests.get(name)?.length, name).toBeGreaterThan(0);
      expect(
        requests.get(name)?.every((method) => method === 'GET'),
        name,
      ).toBe(true);
    }
    // Applied: the failed account and every account of the third wave, each binding its application once.
    const writers = names.filter((name) => requests.get(name)?.some((method) => method !== 'GET'));
    expect(writers).toEqual([failing, ...wave3]);
    expect(requests.get(failing)?.filter((method) => method === 'POST')).toHaveLength(1);

    const again = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--resume']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--resume: the rollout recorded in');
    expect(again.stderr).toContain('completed; start one with --waves');
  });
});
