import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cleanEnv, runCli } from './cli.js';
import { startServeCli, type Line, type ServeProcess } from './serve-harness.js';

/**
 * `telform serve --accounts --apply safe` keeps the guardrails `apply --accounts` has (issue 33):
 * the accounts file's policies hold a plan that violates them (item 1), and an account whose
 * credential variables are missing is that account's error while the others are watched (item 14).
 */

const pbx = { authId: 'SERVEGUARD01', authToken: 'token-of-serve-guard-0001' };
let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;
let serve: ServeProcess | undefined;

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

beforeAll(async () => {
  emulator = await startEmulator({ accounts: [pbx] });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-serve-guards-'));
  await mkdir(path.join(folder, 'pbx'));
  await mkdir(path.join(folder, 'lost'));
  await writeFile(
    path.join(folder, 'pbx/pbx.yaml'),
    [
      document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }),
      document('Trunk', 'pbx-out', { trunk_direction: 'outbound', secure: false, ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  await writeFile(
    path.join(folder, 'lost/acl.yaml'),
    document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.11'] }),
  );
  await writeFile(
    path.join(folder, 'secure.yaml'),
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'metadata: { name: telecom }',
      'rules:',
      '  - id: outbound-trunks-secure',
      '    message: an outbound trunk carries SRTP media and TLS signalling (secure true)',
      '    match: change.kind == "Trunk" && change.action != "delete"',
      '    expression: resource.trunk_direction != "outbound" || resource.secure == true',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'accounts.yaml'),
    [
      'defaults:',
      '  state: states/{account}.state.json',
      'accounts:',
      '  - name: pbx',
      '    manifests: [pbx/]',
      '    policies: [secure.yaml]',
      '    credentials: { auth_id_env: PBX_ID, auth_token_env: PBX_TOKEN }',
      '  - name: lost',
      '    manifests: [lost/]',
      '    credentials: { auth_id_env: LOST_ID, auth_token_env: LOST_TOKEN }',
      '',
    ].join('\n'),
  );
  await mkdir(path.join(folder, 'states'));
  env = cleanEnv({ TELFORM_ENDPOINT: emulator.url, PBX_ID: pbx.authId, PBX_TOKEN: pbx.authToken });
}, 60_000);

afterAll(async () => {
  await serve?.stop('SIGKILL');
  await emulator?.close();
  await rm(folder, { recursive: true, force: true });
});

const of = (account: string, type: string) => (event: Line) => event.account === account && event.type === type;

describe('telform serve --accounts guardrails', () => {
  it("holds a plan the account's policies refuse, as apply --accounts refuses it, and watches the others when one account's credentials are missing", async () => {
    const apply = await runCli(['apply', '--accounts', 'accounts.yaml', '--only', 'pbx', '--auto-approve'], {
      cwd: folder,
      env,
    });
    expect(apply.code, apply.stdout).toBe(1);
    expect(apply.stdout).toContain('Trunk/pbx-out violates policy outbound-trunks-secure');

    serve = await startServeCli(
      ['--accounts', 'accounts.yaml', '--listen', '127.0.0.1:0', '--interval', '1h', '--apply', 'safe'],
      { cwd: folder, env },
    );
    const held = await serve.waitForEvent(of('pbx', 'apply_held'));
    expect(held.changes).toEqual(['TrunkIpAcl/office', 'Trunk/pbx-out']);
    expect(held.reasons).toEqual([
      'Trunk/pbx-out violates policy outbound-trunks-secure: an outbound trunk carries SRTP media and TLS signalling (secure true)',
    ]);
    const lost = await serve.waitForEvent(of('lost', 'account_status'));
    expect(lost).toMatchObject({
      cause: 'start',
      from: 'unknown',
      to: 'error',
      error: { code: 'account_credentials', message: 'LOST_ID is not set (credentials of account lost)' },
    });
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metrics).toContain('telform_account_status{account="lost",status="error"} 1');
    expect(metrics).toContain('telform_applies_total{result="held"} 1');
    expect(await (await fetch(`${serve.url}/accounts/lost`)).text()).toContain(
      'LOST_ID is not set (credentials of account lost)',
    );
    // Nothing was written to the account: the trunk the policy refuses was never created.
    const log = (await (await fetch(`${emulator.url}/__emulator/requests/?type=request`)).json()) as {
      requests: Array<{ method: string }>;
    };
    expect(log.requests.filter((entry) => entry.method !== 'GET')).toEqual([]);
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 90_000);
});
