import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { placeOfValue } from '../../src/manifest/model.js';
import { Sensitive } from '../../src/manifest/secrets.js';
import { doc, lines, loadText } from './helpers.js';

const repository = path.resolve(import.meta.dirname, '../..');

describe('loadManifests', () => {
  it('accepts every example together, with no problem at all', async () => {
    const result = await loadManifests(['examples/'], { cwd: repository, env: {} });
    expect(lines(result)).toEqual([]);
    expect(result.model.files).toEqual([
      'examples/10dlc/acme.yaml',
      'examples/10dlc/numbers.yaml',
      'examples/full-account/account.yaml',
      'examples/pbx/sip-auth.yaml',
      'examples/pbx/trunks.yaml',
    ]);
    expect(result.model.resources.map((resource) => resource.address)).toContain('Trunk/pbx-outbound');
    expect(result.model.resources).toHaveLength(27);
  });

  it('fills the API defaults and the name field, and keeps refs and secret sources', async () => {
    const result = await loadText({
      'a.yaml': [
        doc('TrunkIpAcl', 'office', 'ip_addresses: [203.0.113.10]'),
        doc('Trunk', 'pbx-out', 'trunk_direction: outbound\nipacl_uuid: { ref: office }'),
        doc('TrunkCredential', 'login', 'username: login01\npassword: { fromFile: secrets/login.txt }'),
        doc('SipIpAcl', 'acl', 'entries:\n  - ip: 192.0.2.1'),
        doc('Brand', 'acme', 'profile_uuid: 5eed0000-0000-4000-8000-000000000001'),
      ].join('---\n'),
    });
    expect(lines(result)).toEqual([]);
    const [acl, trunk, login, sipAcl, brand] = result.model.resources;
    expect(acl?.spec).toEqual({ name: 'office', ip_addresses: ['203.0.113.10'] });
    expect(trunk).toMatchObject({ kind: 'Trunk', name: 'pbx-out', address: 'Trunk/pbx-out', protect: false });
    expect(trunk?.spec).toEqual({
      name: 'pbx-out',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: false,
      ipacl_uuid: { ref: 'office' },
    });
    expect(login?.spec['password']).toEqual({
      source: 'file',
      written: 'secrets/login.txt',
      path: expect.stringMatching(/secrets[/\\]login\.txt$/),
    });
    expect(sipAcl?.spec).toEqual({ name: 'acl', entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }] });
    expect(brand?.spec).toEqual({
      profile_uuid: '5eed0000-0000-4000-8000-000000000001',
      brand_alias: 'acme',
      brand_type: 'STANDARD',
      secondary_vetting: true,
      method: 'POST',
    });
  });

  it('remembers the position of every value', async () => {
    const result = await loadText({
      'a.yaml': `# comment\n${doc('TrunkIpAcl', 'office', 'ip_addresses:\n  - 203.0.113.10\n  - 203.0.113.11')}`,
    });
    const [acl] = result.model.resources;
    if (!acl) throw new Error('expected a resource');
    expect(placeOfValue(acl, ['spec', 'ip_addresses', 1])).toEqual({ file: 'a.yaml', line: 9, column: 7 });
    expect(placeOfValue(acl, ['metadata', 'name'])).toEqual({ file: 'a.yaml', line: 5, column: 9 });
    // A defaulted value points where it comes from.
    expect(placeOfValue(acl, ['spec', 'name'])).toEqual({ file: 'a.yaml', line: 5, column: 9 });
  });

  it('never prints a literal secret', async () => {
    const result = await loadText({ 'a.yaml': doc('SipCredential', 'phones', 'password: Literal-Secret-123') });
    expect(lines(result)).toEqual([
      'a.yaml:6:13  SipCredential/phones  spec.password: warning: is a literal secret in the manifest; prefer { fromEnv: VARIABLE } or { fromFile: path } so it stays out of git',
    ]);
    const secret = result.model.resources[0]?.spec['password'] as { source: string; value: Sensitive };
    expect(secret.value).toBeInstanceOf(Sensitive);
    expect(secret.value.reveal()).toBe('Literal-Secret-123');
    expect(JSON.stringify(result.model)).not.toContain('Literal-Secret-123');
    expect(String(secret.value)).toBe('(sensitive)');
  });

  it('ignores empty documents and reads many documents per file', async () => {
    const result = await loadText({
      'a.yml': `---\n# nothing\n---\n${doc('TrunkIpAcl', 'a', 'ip_addresses: [192.0.2.1]')}---\n---\n${doc('TrunkIpAcl', 'b', 'ip_addresses: [192.0.2.2]')}`,
    });
    expect(lines(result)).toEqual([]);
    expect(result.model.resources.map((resource) => resource.source.document)).toEqual([0, 1]);
  });

  it('searches folders recursively for *.yaml and *.yml in sorted order, skipping dot folders', async () => {
    const acl = (name: string) => doc('TrunkIpAcl', name, 'ip_addresses: [192.0.2.1]');
    const result = await loadText(
      {
        'm/b.yml': acl('b'),
        'm/a/z.yaml': acl('z'),
        'm/.hidden/h.yaml': acl('h'),
        'm/notes.txt': 'x',
        'm/c.YAML': acl('c'),
      },
      {},
    );
    const again = await loadManifests(['m'], {
      cwd: path.dirname(path.dirname(result.model.resources[0]?.source.absolute ?? '')),
      env: {},
    });
    expect(again.model.files).toEqual(['m/a/z.yaml', 'm/b.yml', 'm/c.YAML']);
  });

  it('reports a path that does not exist', async () => {
    const result = await loadManifests(['missing/'], { cwd: repository, env: {} });
    expect(lines(result)).toEqual(['missing/  cannot read missing/: no such file or folder']);
  });

  it('warns when the paths hold no resource', async () => {
    const result = await loadText({ 'a.yaml': '# nothing yet\n' });
    expect(lines(result)).toEqual(['warning: no resources found in a.yaml']);
  });

  it('resolves secrets with --check-secrets and applies the password rules without printing them', async () => {
    const manifest = [
      doc('SipCredential', 'phone-a', 'password: { fromEnv: SIP_A }'),
      doc('SipCredential', 'phone-b', 'password: { fromEnv: SIP_B }'),
      doc('TrunkCredential', 'login-c', 'username: trunkc\npassword: { fromFile: c.txt }'),
    ].join('---\n');
    const result = await loadText(
      { 'a.yaml': manifest, 'c.txt': 'nospecial1\n' },
      { checkSecrets: true, env: { SIP_A: 'Short1abc' } },
    );
    expect(lines(result)).toEqual([
      'a.yaml:6:24  SipCredential/phone-a  spec.password: warning: the value of SIP_A is shorter than 12 characters: the API accepts it, but production asks for at least 12',
      'a.yaml:13:24  SipCredential/phone-b  spec.password: environment variable SIP_B is not set',
      'a.yaml:21:25  TrunkCredential/login-c  spec.password: the content of c.txt must contain at least one of ~!@#$%^&*()_+',
    ]);
    expect(JSON.stringify(result.problems)).not.toContain('Short1abc');
  });
});
