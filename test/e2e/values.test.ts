import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cleanEnv, runCli } from './cli.js';

/**
 * Values across a fleet: 20 emulator accounts from one shared folder, each with its own values in
 * the accounts file. They converge with their own values; one account whose value has the wrong
 * type fails validation with a message naming the account, the manifest line and the values line,
 * and no request is sent for it.
 */

const count = 20;
const wrong = 'cust-07';
const names = Array.from({ length: count }, (_, index) => `cust-${String(index + 1).padStart(2, '0')}`);
const authId = (index: number) => `MAVALUES${String(index + 1).padStart(12, '0')}`;
const token = (index: number) => `values-token-${index + 1}-00000000000000000000`;
const variable = (name: string) => name.toUpperCase().replace('-', '_');
const pbxIp = (index: number) => `203.0.113.${index + 1}`;
const uriHost = (name: string) => `sip.${name}.example.com`;

let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;

const shared = `# yaml-language-server: $schema=../../schemas/manifest.schema.json
apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: pbx
spec:
  ip_addresses: { value: pbx_ips }
---
apiVersion: telform/v1
kind: OriginationUri
metadata:
  name: pbx-uri
spec:
  uri: { value: uri_host }
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-out
spec:
  trunk_direction: outbound
  secure: { value: secure }
  ipacl_uuid: { ref: pbx }
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-in
spec:
  trunk_direction: inbound
  primary_uri_uuid: { ref: pbx-uri }
`;

function accountsFile(secureOfWrong: string): string {
  const lines = [
    'defaults:',
    '  state: states/{account}.json',
    `  endpoint: ${emulator.url}`,
    '  values:',
    '    secure: true',
    'accounts:',
  ];
  names.forEach((name, index) => {
    lines.push(
      `  - name: ${name}`,
      '    manifests: shared/',
      `    credentials: { auth_id_env: ${variable(name)}_ID, auth_token_env: ${variable(name)}_TOKEN }`,
      '    values:',
      `      pbx_ips: [${pbxIp(index)}, 198.51.100.${index + 1}]`,
      `      uri_host: ${uriHost(name)}`,
    );
    if (name === wrong) lines.push(`      secure: ${secureOfWrong}`);
  });
  return `${lines.join('\n')}\n`;
}

/** The line of the accounts file where `wrong`'s `secure` value is written. */
function wrongSecureLine(text: string): number {
  return text.split('\n').findIndex((line) => line.startsWith('      secure:')) + 1;
}

beforeAll(async () => {
  emulator = await startEmulator({
    accounts: names.map((_, index) => ({ authId: authId(index), authToken: token(index) })),
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-values-'));
  await mkdir(path.join(folder, 'shared'));
  await writeFile(path.join(folder, 'shared', 'pbx.yaml'), shared);
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

async function live(index: number, collection: string): Promise<Array<Record<string, unknown>>> {
  const authorization = `Basic ${Buffer.from(`${authId(index)}:${token(index)}`).toString('base64')}`;
  const response = await fetch(`${emulator.url}/v1/Account/${authId(index)}/Zentrunk/${collection}/`, {
    headers: { authorization },
  });
  return ((await response.json()) as { objects: Array<Record<string, unknown>> }).objects;
}

async function requestCount(index: number): Promise<number> {
  const response = await fetch(`${emulator.url}/__emulator/requests/?account=${authId(index)}&type=request`);
  const body = (await response.json()) as { requests?: unknown[]; objects?: unknown[] };
  return (body.requests ?? body.objects ?? []).length;
}

describe('values across 20 accounts', () => {
  it('refuses the account whose value has the wrong type, at the manifest line and the values line, and sends nothing for it', async () => {
    const text = accountsFile('"yes"');
    await writeFile(path.join(folder, 'accounts.yaml'), text);
    const line = wrongSecureLine(text);

    const validate = await cli(['validate', '--accounts', 'accounts.yaml']);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toBe(
      [
        `[${wrong}] ${path.join('shared', 'pbx.yaml')}:22:11  Trunk/pbx-out  spec.secure: must be true or false (got "yes") (value secure, given at accounts.yaml:${line}:15)`,
        `invalid: 1 error in 1 of 20 accounts (${wrong}), 0 warnings`,
        '',
      ].join('\n'),
    );

    const apply = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--format', 'json']);
    expect(apply.code).toBe(1);
    const report = JSON.parse(apply.stdout) as {
      accounts: Array<{ name: string; status: string; error?: { code: string }; problems?: string[] }>;
    };
    expect(
      report.accounts
        .filter((account) => account.status !== 'applied')
        .map((account) => [account.name, account.status, account.error?.code, account.problems]),
    ).toEqual([
      [
        wrong,
        'error',
        'invalid_manifests',
        [
          `${path.join('shared', 'pbx.yaml')}:22:11  Trunk/pbx-out  spec.secure: must be true or false (got "yes") (value secure, given at accounts.yaml:${line}:15)`,
        ],
      ],
    ]);
    expect(apply.stderr).toContain(
      `[${wrong}] ${path.join('shared', 'pbx.yaml')}:22:11  Trunk/pbx-out  spec.secure: must be true or false (got "yes") (value secure, given at accounts.yaml:${line}:15)`,
    );
    const wrongIndex = names.indexOf(wrong);
    expect(await requestCount(wrongIndex)).toBe(0);
    expect(await requestCount(0)).toBeGreaterThan(0);
  });

  it('converges every account with its own values, and shows each value and its origin in the plan', async () => {
    await writeFile(path.join(folder, 'accounts.yaml'), accountsFile('false'));
    expect((await cli(['validate', '--accounts', 'accounts.yaml'])).stdout).toBe('valid: 20 accounts, 80 resources\n');
    const apply = await cli(['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--format', 'json']);
    expect(apply.code, apply.stderr).toBe(0);
    for (const [index, name] of names.entries()) {
      const acls = await live(index, 'IPAccessControlList');
      expect(acls.map((acl) => [acl['name'], acl['ip_addresses']])).toEqual([
        ['pbx', [pbxIp(index), `198.51.100.${index + 1}`]],
      ]);
      const uris = await live(index, 'URI');
      expect(uris.map((uri) => uri['uri'])).toEqual([uriHost(name)]);
      const trunks = await live(index, 'Trunk');
      const outbound = trunks.find((trunk) => trunk['name'] === 'pbx-out');
      expect(outbound?.['secure'], name).toBe(name !== wrong);
    }
    const plan = await cli(['plan', '--accounts', 'accounts.yaml', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);

    // One account's plan, single-account style, shows its values with their origins.
    const values = 'pbx_ips: [203.0.113.99]\nuri_host: sip.new.example.com\n';
    await writeFile(path.join(folder, 'cust-01.values.yaml'), values);
    const single = await runCli(
      [
        'plan',
        '-f',
        'shared/',
        '--values',
        'cust-01.values.yaml',
        '--value',
        'secure=true',
        '--state',
        'states/cust-01.json',
        '--endpoint',
        emulator.url,
      ],
      {
        cwd: folder,
        env: cleanEnv({ TELFORM_AUTH_ID: authId(0), TELFORM_AUTH_TOKEN: token(0) }),
      },
    );
    expect(single.code, single.stderr).toBe(0);
    expect(single.stdout).toContain(
      [
        'Values (name = value, where it was given; used by):',
        '  pbx_ips = ["203.0.113.99"]  (cust-01.values.yaml:1:10; TrunkIpAcl/pbx)',
        '  secure = true  (--value secure; Trunk/pbx-out)',
        '  uri_host = "sip.new.example.com"  (cust-01.values.yaml:2:11; OriginationUri/pbx-uri)',
      ].join('\n'),
    );
  });
});
