import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/engine/plan-types.js';
import { secretsOf } from '../../src/engine/change-fields.js';
import { advanceClock, callApi, emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';
import { campaignAttributes } from './examples.js';

/**
 * Taking over an account made by hand: seeded only through the API (every kind, several of each,
 * assigned SipAuth objects, an outbound and an inbound trunk, a completed brand with an active and a
 * failed campaign), imported, then planned: nothing but the unverifiable secrets.
 */
let harness: EmulatorForCli;
let folder: string;
async function api(method: string, pathname: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await callApi(harness.emulator, method, pathname, body);
  if (answer.status >= 300) throw new Error(`${method} ${pathname}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const advance = (ms: number) => advanceClock(harness.emulator, ms);

const campaignBody = (brandId: string, alias: string) => ({
  brand_id: brandId,
  campaign_alias: alias,
  vertical: 'TECHNOLOGY',
  usecase: 'MIXED',
  sub_usecases: ['2FA', 'ACCOUNT_NOTIFICATION'],
  description: 'Sign-in codes and account notices for the users of the Initech web app.',
  sample1: 'Initech: your sign-in code is 123456. Reply STOP to opt out.',
  sample2: 'Initech: your password was changed just now. Reply STOP to opt out.',
  message_flow: 'Users add a phone number in their profile settings and confirm it with a code.',
  help_message: 'Initech: help at initech.example.com/help or 1-800-555-0142.',
  optout_message: 'Initech: you will receive no more messages from us.',
  ...campaignAttributes,
});

async function seedAccount(): Promise<void> {
  const desk = await api('POST', '/SipAuth/Credential/', { username: 'Desk.Phones', password: 'DeskPhones2024x' });
  await api('POST', '/SipAuth/Credential/', { username: 'softphones', password: 'Softphones2024x' });
  const office = await api('POST', '/SipAuth/IpAccessControlList/', {
    name: 'Office LAN',
    entries: [{ ip: '203.0.113.0', cidr_prefix: 28, description: 'office' }, { ip: '198.51.100.7' }],
  });
  await api('POST', '/SipAuth/IpAccessControlList/', { name: 'remote', entries: [{ ip: '192.0.2.44' }] });
  await api('POST', '/Application/77700000000000001/', {
    sip_auth_type: 'credential',
    credential_uuid: desk.credential_uuid,
  });
  await api('POST', '/Application/77700000000000002/', {
    sip_auth_type: 'ip_acl_and_credential',
    ip_acl_uuid: office.ip_acl_uuid,
    credential_uuid: desk.credential_uuid,
  });
  const sbc = await api('POST', '/Zentrunk/IPAccessControlList/', {
    name: 'office',
    ip_addresses: ['203.0.113.10', '198.51.100.0/28'],
  });
  await api('POST', '/Zentrunk/IPAccessControlList/', { name: 'office', ip_addresses: ['192.0.2.10'] });
  const login = await api('POST', '/Zentrunk/Credential/', {
    name: 'pbx login',
    username: 'pbxtrunk01',
    password: 'Pbx#trunk2024',
  });
  await api('POST', '/Zentrunk/Credential/', { username: 'spare01', password: 'Spare!01x' });
  const primary = await api('POST', '/Zentrunk/URI/', { name: 'primary', uri: 'sip.pbx.example.com:5060' });
  const backup = await api('POST', '/Zentrunk/URI/', {
    name: 'backup',
    uri: '203.0.113.20:5060',
    authentication_needed: true,
    username: 'pbxin',
    password: 'inbound-Secret9',
  });
  await api('POST', '/Zentrunk/Trunk/', {
    name: 'pbx-out',
    trunk_direction: 'outbound',
    secure: true,
    ipacl_uuid: sbc.ipacl_uuid,
    credential_uuid: login.credential_uuid,
  });
  await api('POST', '/Zentrunk/Trunk/', {
    name: 'pbx-in',
    trunk_direction: 'inbound',
    primary_uri_uuid: primary.uri_uuid,
    fallback_uri_uuid: backup.uri_uuid,
  });
  const brand = await api('POST', '/10dlc/Brand/', {
    profile_uuid: '5eed0000-0000-4000-8000-000000000003',
    brand_alias: 'Initech',
    brand_type: 'STANDARD',
  });
  await advance(2_000);
  await api('POST', '/10dlc/Campaign/', campaignBody(brand.brand_id as string, 'initech-alerts'));
  await api('POST', '/10dlc/Campaign/', campaignBody(brand.brand_id as string, 'initech decline'));
  await advance(2_000);
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 500 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-import-'));
  await seedAccount();
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('telform import', () => {
  let secretEnv: Record<string, string> = {};
  const cli = (args: string[]) => runCli(args, { cwd: folder, env: { ...harness.env, ...secretEnv } });

  it('writes manifests for every object, names what it had to, and lists the secrets to provide, changing nothing but claiming the account', async () => {
    const writesBefore = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET').length;
    const run = await cli(['import', '--out', 'manifests']);
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Imported 22 resources into manifests (10 files) and recorded them in the state.');
    expect(run.stdout).toMatch(
      /SipCredential\/desk-phones \(id [^)]+\): its username "Desk\.Phones" is not a valid metadata\.name/,
    );
    expect(run.stdout).toMatch(/TrunkIpAcl\/office-2 \(id [^)]+\): its name "office" is taken by another TrunkIpAcl/);
    // One write: the account nobody owned is claimed for the state the import recorded its objects in.
    const writesAfter = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET');
    expect(writesAfter.slice(writesBefore).map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /v1/Account/MAEMULATOR0000000001/SipAuth/IpAccessControlList/',
    ]);

    const files = (await readdir(path.join(folder, 'manifests'))).sort();
    expect(files).toEqual([
      'application-sip-auth.yaml',
      'brand.yaml',
      'campaign.yaml',
      'origination-uri.yaml',
      'profile.yaml',
      'schemas',
      'sip-credential.yaml',
      'sip-ip-acl.yaml',
      'trunk-credential.yaml',
      'trunk-ip-acl.yaml',
      'trunk.yaml',
    ]);
    const trunks = await readFile(path.join(folder, 'manifests/trunk.yaml'), 'utf8');
    // Outside a repository that commits the schema: this version's, written beside the manifests (no CDN URL for the name).
    expect(trunks).toMatch(/^# yaml-language-server: \$schema=schemas\/manifest\.schema\.json\n/);
    expect(await readFile(path.join(folder, 'manifests/schemas/manifest.schema.json'), 'utf8')).toBe(
      await readFile(path.join(repository, 'schemas/manifest.schema.json'), 'utf8'),
    );
    expect(trunks).toMatch(/ipacl_uuid: { ref: office(-2)? }\n  credential_uuid: { ref: pbx-login }/);

    const variables = [...run.stdout.matchAll(/^ {2}(TELFORM_SECRET_\w+)$/gm)].map((match) => match[1] as string);
    expect(variables.length).toBe(5);
    secretEnv = Object.fromEntries(
      variables.map((name) => [
        name,
        name.includes('SIP_CREDENTIAL')
          ? 'Imported-Secret-2024'
          : name.includes('TRUNK_CREDENTIAL')
            ? 'Imp#rted1'
            : 'uri-Secret-1',
      ]),
    );
  });

  it('validates without secrets and plans nothing but setting the unverifiable secrets', async () => {
    const validate = await cli(['validate', '-f', 'manifests']);
    expect(validate.stdout).toContain('valid: 22 resources in 10 files');
    expect(validate.code).toBe(0);

    const plan = await cli(['plan', '-f', 'manifests', '--format', 'json']);
    expect(plan.code).toBe(0);
    const parsed = JSON.parse(plan.stdout) as Plan;
    const changes = parsed.changes.filter((change) => change.action !== 'noop');
    expect(changes.length).toBe(5);
    for (const change of changes) {
      expect(change.action).toBe('update');
      expect(change.patch).toEqual([]);
      expect(Object.values(secretsOf(change) ?? {})).toEqual([{ value: 'unverifiable' }]);
    }
    // The registry's word on a campaign the plan leaves as it is: a note, not a warning.
    expect(parsed.notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Campaign\/initech-decline was declined by the registry/)]),
    );
  });

  it('after setting the secrets once, an edit of one field is exactly one update', async () => {
    expect((await cli(['apply', '-f', 'manifests', '--auto-approve'])).code).toBe(0);
    expect((await cli(['plan', '-f', 'manifests', '--detailed-exitcode'])).code).toBe(0);
    const file = path.join(folder, 'manifests/trunk.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('secure: true', 'secure: false'));
    const plan = await cli(['plan', '-f', 'manifests', '--format', 'json']);
    const parsed = JSON.parse(plan.stdout) as Plan;
    const changes = parsed.changes.filter((change) => change.action !== 'noop');
    expect(changes.map((change) => [change.address, change.action, change.patch])).toEqual([
      ['Trunk/pbx-out', 'update', [{ op: 'replace', path: '/secure', value: false }]],
    ]);
  });
});
