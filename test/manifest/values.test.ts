import path from 'node:path';
import { heldNote } from '../../src/manifest/document.js';
import { describe, expect, it } from 'vitest';
import { parseAccountsFile } from '../../src/manifest/accounts-file.js';
import type { GivenValue } from '../../src/manifest/values.js';
import type { TelformError } from '../../src/util/errors.js';
import { parseValueFlag, parseValuesFile } from '../../src/manifest/values-file.js';
import { loadManifests } from '../../src/manifest/load.js';
import { doc, lines, loadText, writeManifests } from './helpers.js';

const given = (value: unknown, where = 'values.yaml:1:1'): GivenValue => ({
  value,
  origin: { where, place: { file: 'values.yaml', line: 1, column: 1 } },
});

describe('values in manifests', () => {
  it('substitutes scalars and lists where literals go, and records which resources use them', async () => {
    const result = await loadText(
      {
        'a.yaml': [
          doc('TrunkIpAcl', 'pbx', 'ip_addresses: { value: pbx_ips }'),
          doc('SipIpAcl', 'office', 'entries:\n  - ip: { value: office_ip }\n    description: Office'),
          doc('Trunk', 'out', 'trunk_direction: outbound\nsecure: { value: secure }\nipacl_uuid: { ref: pbx }'),
        ].join('---\n'),
      },
      {
        values: new Map([
          ['pbx_ips', given(['203.0.113.10', '203.0.113.11'])],
          ['office_ip', given('192.0.2.7')],
          ['secure', given(true)],
        ]),
      },
    );
    expect(lines(result)).toEqual([]);
    const [acl, office, trunk] = result.model.resources;
    expect(acl?.spec['ip_addresses']).toEqual(['203.0.113.10', '203.0.113.11']);
    expect(office?.spec['entries']).toEqual([{ ip: '192.0.2.7', cidr_prefix: 32, description: 'Office' }]);
    expect(trunk?.spec['secure']).toBe(true);
    expect(result.values).toEqual([
      { name: 'office_ip', value: '192.0.2.7', origin: 'values.yaml:1:1', used_by: ['SipIpAcl/office'] },
      {
        name: 'pbx_ips',
        value: ['203.0.113.10', '203.0.113.11'],
        origin: 'values.yaml:1:1',
        used_by: ['TrunkIpAcl/pbx'],
      },
      { name: 'secure', value: true, origin: 'values.yaml:1:1', used_by: ['Trunk/out'] },
    ]);
  });

  it('checks a value against the schema of its field, at the reference and at the value', async () => {
    const result = await loadText(
      {
        'a.yaml': doc(
          'Trunk',
          'out',
          'trunk_direction: outbound\nsecure: { value: secure }\ncredential_uuid: 5f4ad0b4-0000-4000-8000-000000000001',
        ),
      },
      {
        values: new Map([
          [
            'secure',
            {
              value: 'yes',
              origin: { where: 'accounts.yaml:9:15', place: { file: 'accounts.yaml', line: 9, column: 15 } },
            },
          ],
        ]),
      },
    );
    expect(lines(result)).toEqual([
      'a.yaml:7:11  Trunk/out  spec.secure: must be true or false (got "yes") (value secure, given at accounts.yaml:9:15)',
    ]);
    expect(result.problems[0]?.related).toEqual({ file: 'accounts.yaml', line: 9, column: 15 });
    expect(result.model.resources).toEqual([]);
  });

  it('points a bad member of a list value at the reference', async () => {
    const result = await loadText(
      { 'a.yaml': doc('TrunkIpAcl', 'pbx', 'ip_addresses: { value: ips }') },
      { values: new Map([['ips', given(['203.0.113.1', '999.0.0.1'])]]) },
    );
    expect(lines(result)).toEqual([
      `a.yaml:6:17  TrunkIpAcl/pbx  spec.ip_addresses[1]: warning: must be an IPv4 address such as 203.0.113.10 or a CIDR range such as 203.0.113.0/24 (prefix 0–32) (got "999.0.0.1")${heldNote} (value ips, given at values.yaml:1:1)`,
    ]);
  });

  it('refuses a missing value (with a suggestion), a value in a secret field, and warns of an unused one', async () => {
    const result = await loadText(
      {
        'a.yaml': [
          doc('OriginationUri', 'uri', 'uri: { value: uri_host }'),
          doc('TrunkCredential', 'login', 'username: login01\npassword: { value: pw }'),
        ].join('---\n'),
      },
      {
        values: new Map([
          ['uri_hots', given('sip.example.com')],
          ['pw', given('abcdefghijkl')],
        ]),
      },
    );
    expect(lines(result)).toEqual([
      'a.yaml:6:8  OriginationUri/uri  spec.uri: value uri_host is not given; did you mean "uri_hots"?',
      'a.yaml:14:13  TrunkCredential/login  spec.password: a secret is never a value; use { fromEnv: VARIABLE } or { fromFile: path }',
      'values.yaml:1:1  warning: value uri_hots is given but no manifest uses it',
    ]);
  });

  it('says how to give values when none is given', async () => {
    const result = await loadText({ 'a.yaml': doc('OriginationUri', 'uri', 'uri: { value: uri_host }') });
    expect(lines(result)).toEqual([
      'a.yaml:6:8  OriginationUri/uri  spec.uri: value uri_host is not given; no values are given (--values FILE, --value NAME=V, or values in the accounts file)',
    ]);
  });
});

describe('where values come from', () => {
  it('reads a values file with the place of every value', () => {
    const values = parseValuesFile('# acme\npbx_ip: 203.0.113.10\nips:\n  - 192.0.2.1\n', 'acme.yaml');
    expect([...values]).toEqual([
      [
        'pbx_ip',
        { value: '203.0.113.10', origin: { where: 'acme.yaml:2:9', place: { file: 'acme.yaml', line: 2, column: 9 } } },
      ],
      [
        'ips',
        { value: ['192.0.2.1'], origin: { where: 'acme.yaml:4:3', place: { file: 'acme.yaml', line: 4, column: 3 } } },
      ],
    ]);
  });

  it('refuses a values file that is not a mapping of names to plain values', () => {
    expect(() => parseValuesFile('- a\n', 'v.yaml')).toThrow(
      'the values file must be a mapping of value names to values',
    );
    expect(() => parseValuesFile('x:\n  ref: other\n', 'v.yaml')).toThrow(
      'values.x: a value is a string, number, boolean or a list of them (a mapping is not a value)',
    );
    expect(() => parseValuesFile('"a b": 1\n', 'v.yaml')).toThrow('values.a b: a value name is letters');
  });

  it('reads --value NAME=V as YAML', () => {
    expect(parseValueFlag('port=5060')).toEqual({ name: 'port', value: 5060 });
    expect(parseValueFlag('ips=[192.0.2.1, 192.0.2.2]')).toEqual({ name: 'ips', value: ['192.0.2.1', '192.0.2.2'] });
    expect(parseValueFlag("host='5060'")).toEqual({ name: 'host', value: '5060' });
    expect(() => parseValueFlag('nothing')).toThrow('--value nothing: expected NAME=VALUE');
  });

  it("overlays an account's values on the defaults, each with its place in the accounts file", () => {
    const text = [
      'defaults:',
      '  state: s/{account}.json',
      '  values: { secure: true, host: default.example.com }',
      'accounts:',
      '  - name: acme',
      '    manifests: shared/',
      '    credentials: { auth_id_env: A_ID, auth_token_env: A_TOKEN }',
      '    values:',
      '      host: acme.example.com',
      '',
    ].join('\n');
    const [acme] = parseAccountsFile(text, 'accounts.yaml', '/work');
    expect(
      Object.fromEntries([...(acme?.values ?? [])].map(([name, value]) => [name, [value.value, value.origin.where]])),
    ).toEqual({
      secure: [true, 'accounts.yaml:3:21'],
      host: ['acme.example.com', 'accounts.yaml:9:13'],
    });
  });

  it('refuses an alias bomb in a values file or an accounts file in one sentence at the first alias (issue 33 item 15)', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefghi'
        .split('')
        .map((name, index) => `${name}: &${name} [${Array(10).fill(`*${'abcdefghi'[index]}`).join(', ')}]`),
    ];
    const catchError = (work: () => unknown): { message: string; place: unknown } => {
      try {
        work();
      } catch (error) {
        const failure = error as TelformError;
        return { message: failure.message, place: failure.place };
      }
      return { message: 'no error', place: undefined };
    };
    expect(catchError(() => parseValuesFile(`${bomb.join('\n')}\n`, 'v.yaml'))).toEqual({
      message:
        'the values file expands its YAML aliases (*name) into more than 100 copies of what they name; write the values out instead',
      place: { source: { file: 'v.yaml', line: 2, column: 8 } },
    });
    const accounts = `defaults:\n  values:\n${bomb.map((line) => `    ${line}`).join('\n')}\naccounts: []\n`;
    expect(catchError(() => parseAccountsFile(accounts, 'accounts.yaml', '/work'))).toEqual({
      message:
        'the accounts file expands its YAML aliases (*name) into more than 100 copies of what they name; write the values out instead',
      place: { source: { file: 'accounts.yaml', line: 4, column: 12 } },
    });
  });

  it('refuses a value of the wrong shape in the accounts file, at its place', () => {
    const text =
      'accounts:\n  - name: a\n    manifests: m/\n    state: s.json\n    credentials: { auth_id_env: A, auth_token_env: B }\n    values:\n      bad: { fromEnv: X }\n';
    expect(() => parseAccountsFile(text, 'accounts.yaml', '/work')).toThrow(
      'accounts.0.values.bad: a value is a string',
    );
  });
});

describe('a fleet folder (an accounts file kept with its manifests)', () => {
  it('is skipped by -f on a folder above it, and read without its accounts file when named itself', async () => {
    const folder = await writeManifests({
      'pbx/acl.yaml': doc('TrunkIpAcl', 'office', 'ip_addresses: [203.0.113.10]'),
      'fleet/telform-accounts.yaml': 'accounts: []\n',
      'fleet/shared/acl.yaml': doc('TrunkIpAcl', 'customer', 'ip_addresses: { value: pbx_ips }'),
    });
    const above = await loadManifests(['.'], { cwd: folder, env: {} });
    expect(lines(above)).toEqual([]);
    expect(above.model.files).toEqual([path.join('pbx', 'acl.yaml')]);
    const named = await loadManifests(['fleet'], {
      cwd: folder,
      env: {},
      values: new Map([['pbx_ips', given(['192.0.2.1'])]]),
    });
    expect(lines(named)).toEqual([]);
    expect(named.model.files).toEqual([path.join('fleet', 'shared', 'acl.yaml')]);
  });
});
