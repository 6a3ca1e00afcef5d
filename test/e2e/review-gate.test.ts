import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

// The review gate (docs/real-accounts.md, held values): what validate and plan accept is what apply
// does. A new object that breaks a create rule fails validate (at its line, ::error in the GitHub
// format) and plan (exit 1, nothing written); an imported account, whose held values the state
// records, validates with warnings only and plans without a warning.
let harness: EmulatorForCli;
let root: string;

beforeAll(async () => {
  harness = await emulatorForCli({ shapes: 'production' });
  root = await mkdtemp(path.join(tmpdir(), 'telform-e2e-review-gate-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(root, { recursive: true, force: true });
});

const acl = (ips: string) =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: ${ips}\n`;
const trunk = (spec: string) => `apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: broken\nspec:\n${spec}`;
const brand = `apiVersion: telform/v1
kind: Profile
metadata:
  name: acme
spec:
  profile_alias: Acme Retail
  customer_type: DIRECT
  entity_type: PRIVATE
  company_name: Acme Retail Inc.
  vertical: RETAIL
  ein: 81-0000042
  ein_issuing_country: US
  website: https://acme.example.com
  address: { street: 42 Market Street, city: San Francisco, state: CA, postal_code: "94105", country: US }
  authorized_contact: { first_name: Ada, last_name: Moreno, email: ada@acme.example.com, phone: "+14155550142", title: Head, seniority: DIRECTOR }
---
apiVersion: telform/v1
kind: Brand
metadata:
  name: acme
spec:
  profile_uuid: { ref: acme }
  brand_alias: Acme Retail
---
`;
const campaign = (overrides: Record<string, string>) => {
  const fields: Record<string, string> = {
    brand_id: '{ ref: acme }',
    vertical: 'RETAIL',
    usecase: 'DELIVERY_NOTIFICATION',
    description: 'Order confirmations and delivery updates for Acme Retail online customers.',
    sample1: '"Acme Retail: your order 1234 has shipped. Reply STOP to opt out."',
    sample2: '"Acme Retail: your order 1234 was delivered. Reply HELP for help, STOP to opt out."',
    message_flow: 'Customers tick an SMS updates box at checkout on acme.example.com and confirm by text.',
    help_message: '"Acme Retail: order help at acme.example.com/help or 1-800-555-0100."',
    optout_message: '"Acme Retail: you are unsubscribed and will receive no more messages."',
    subscriber_optin: 'true',
    subscriber_optout: 'true',
    subscriber_help: 'true',
    direct_lending: 'false',
    embedded_link: 'false',
    embedded_phone: 'false',
    age_gated: 'false',
    affiliate_marketing: 'false',
    ...overrides,
  };
  const lines = Object.entries(fields).map(([field, value]) => `  ${field}: ${value}`);
  return `${brand}apiVersion: telform/v1\nkind: Campaign\nmetadata:\n  name: orders\nspec:\n${lines.join('\n')}\n`;
};

/** Each manifest of issue's list, the place its error is at, and the rule's words. */
const broken: Array<[string, string, string, string]> = [
  [
    'trunk_direction sideways',
    trunk('  trunk_direction: sideways\n'),
    'm.yaml:6:20',
    'must be one of inbound, outbound',
  ],
  ['a CIDR prefix of 33', acl('[203.0.113.0/33]'), 'm.yaml:6:18', 'must be an IPv4 address'],
  ['the IP 192.0.2.300', acl('[192.0.2.300]'), 'm.yaml:6:18', 'must be an IPv4 address'],
  [
    'a trunk credential username with _',
    'apiVersion: telform/v1\nkind: TrunkCredential\nmetadata:\n  name: pbx\nspec:\n  username: pbx_user\n  password: { fromEnv: PBX_PASSWORD }\n',
    'm.yaml:6:13',
    'may hold only letters and digits',
  ],
  [
    'an outbound trunk with neither ACL nor credentials',
    trunk('  trunk_direction: outbound\n'),
    'm.yaml:5:1',
    'needs ipacl_uuid or credential_uuid',
  ],
  ['an inbound trunk without a primary URI', trunk('  trunk_direction: inbound\n'), 'm.yaml:5:1', 'is required'],
  [
    'a campaign description of 9 characters',
    campaign({ description: 'Too short' }),
    'm.yaml:33:16',
    'must be at least 40 characters long',
  ],
  ['a MIXED campaign without sub-usecases', campaign({ usecase: 'MIXED' }), 'm.yaml:29:1', 'need 2 to 5 sub_usecases'],
  ['subscriber_optin: false', campaign({ subscriber_optin: 'false' }), 'm.yaml:39:21', 'must be true'],
  [
    'an IP ACL with 51 entries',
    acl(`[${Array.from({ length: 51 }, (_, index) => `203.0.113.${index + 1}`).join(', ')}]`),
    'm.yaml:6:17',
    'must hold at most 50 addresses',
  ],
  ['an empty trunk ACL', acl('[]'), 'm.yaml:6:17', 'must hold at least one address'],
];

describe('a new object that breaks a create rule', () => {
  it.each(broken)(
    '%s: validate exits 1 at its line (::error for GitHub), plan exits 1 and writes nothing',
    async (_name, text, place, rule) => {
      const folder = await mkdtemp(path.join(root, 'case-'));
      await writeFile(path.join(folder, 'm.yaml'), text);
      const env = { ...harness.env, PBX_PASSWORD: 'Sup3r!secret' };
      const cli = (args: string[]) => runCli(args, { cwd: folder, env });

      const validate = await cli(['validate', '-f', 'm.yaml']);
      expect(validate.code).toBe(1);
      const line = validate.stdout.split('\n').find((item) => item.startsWith(`${place}  `));
      expect(line).toContain(rule);
      expect(line).not.toContain('warning:');
      expect(line).toContain('pass --state');

      const github = await cli(['validate', '-f', 'm.yaml', '--format', 'github']);
      expect(github.code).toBe(1);
      expect(github.stdout).toMatch(/^::error file=m\.yaml,line=\d+/m);

      const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
      const plan = await cli(['plan', '-f', 'm.yaml', '-o', 'plan.json']);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toMatch(
        /^refused: m\.yaml:\d+:\d+: \S+ would be created, which must meet the create rules: /m,
      );
      expect(plan.stderr).toContain(rule);
      expect(plan.stderr).not.toContain('warning: apply will refuse');
      expect(plan.stderr).toMatch(/^error: the plan breaks a create rule \(listed above\)/m);
      expect(existsSync(path.join(folder, 'plan.json'))).toBe(false);
      expect(existsSync(path.join(folder, 'telform.state.json'))).toBe(false);
      const writes = harness.emulator.runtime.log
        .list({ type: 'request' })
        .slice(since)
        .filter((entry) => entry.method !== 'GET');
      expect(writes).toEqual([]);
    },
  );
});

describe('an imported production-shaped account', () => {
  let folder: string;
  const env = () => ({ ...harness.env, TELFORM_SECRET_TRUNK_CREDENTIAL_LEGACY_PBX_PASSWORD: 'Sup3r!secret' });
  const cli = (args: string[]) => runCli(args, { cwd: folder, env: env() });
  const credential = () => path.join(folder, 'm', 'trunk-credential.yaml');

  beforeAll(async () => {
    folder = path.join(root, 'imported');
    await mkdir(folder);
    const imported = await cli(['import', '--out', 'm/']);
    expect(imported.code).toBe(0);
  });

  it('validates with warnings only (the state vouches for its held values), and plans with no warning', async () => {
    const validate = await cli(['validate', '-f', 'm/']);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain(
      'm/trunk-credential.yaml:10:13  TrunkCredential/legacy-pbx  spec.username: warning: may hold only letters and digits (got "sip_user_1")',
    );
    // Without the state every object is new: the same values are errors.
    const alone = await cli(['validate', '-f', 'm/', '--no-state']);
    expect(alone.code).toBe(1);

    const plan = await cli(['plan', '-f', 'm/']);
    expect(plan.code).toBe(0);
    expect(`${plan.stdout}\n${plan.stderr}`).not.toMatch(/warning:/);
    // Only the secret it cannot compare; a lint error on a campaign the plan does not submit is held.
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
    expect(plan.stdout).toContain('~ password = (sensitive');
    expect(plan.stdout).toMatch(/^ {2}m\/campaign\.yaml:\d+:\d+ {2}held {2}sample-names-brand {2}Campaign\/otp/m);
  });

  it('a held value edited to another invalid value is an error at its line; to a valid one, one update', async () => {
    const original = await readFile(credential(), 'utf8');
    try {
      await writeFile(credential(), original.replace('username: sip_user_1', 'username: sip_user_2'));
      const validate = await cli(['validate', '-f', 'm/']);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(
        'm/trunk-credential.yaml:10:13  TrunkCredential/legacy-pbx  spec.username: may hold only letters and digits (got "sip_user_2") (the state telform.state.json records TrunkCredential/legacy-pbx holding another value: a change of spec.username must meet this rule)',
      );
      const refused = await cli(['plan', '-f', 'm/']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'refused: m/trunk-credential.yaml:10:13: TrunkCredential/legacy-pbx changes spec.username, which must meet the create rules',
      );

      await writeFile(credential(), original.replace('username: sip_user_1', 'username: sipuser2'));
      expect((await cli(['validate', '-f', 'm/'])).code).toBe(0);
      const plan = await cli(['plan', '-f', 'm/']);
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain(`~ username: "sip_user_1" → "sipuser2"`);
      expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
    } finally {
      await writeFile(credential(), original);
    }
  });
});
