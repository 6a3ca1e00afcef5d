import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, callApi, type EmulatorForCli } from './cli.js';

/**
 * A saved plan is applied exactly as `plan -o` wrote it, with this account's token, and with its
 * secrets read from where they were read at plan time; anything else is refused before a write.
 */
let harness: EmulatorForCli;
let folder: string;
const password = 'Saved#Secret-Pass1';

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
  await writeFile(path.join(folder, file), text);
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: folder, env: { ...harness.env, ...env } });

async function aclAddresses(name: string): Promise<string[]> {
  const list = await callApi(harness.emulator, 'GET', '/Zentrunk/IPAccessControlList/?limit=20');
  const objects = list.body.objects as Array<{ name: string; ip_addresses: string[] }>;
  return objects.find((object) => object.name === name)?.ip_addresses ?? [];
}

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-saved-plan-'));
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the seal of a saved plan', () => {
  it('refuses an edited plan before anything is sent; a reformatted one applies', async () => {
    await write('sealed.yaml', doc('TrunkIpAcl', 'sealed', { ip_addresses: ['192.0.2.90'] }));
    expect((await cli(['apply', '-f', 'sealed.yaml', '--state', 'sealed.json', '--auto-approve'])).code).toBe(0);
    await write('sealed.yaml', doc('TrunkIpAcl', 'sealed', { ip_addresses: ['192.0.2.90', '192.0.2.91'] }));
    expect((await cli(['plan', '-f', 'sealed.yaml', '--state', 'sealed.json', '-o', 'sealed-plan.json'])).code).toBe(0);
    const text = await readFile(path.join(folder, 'sealed-plan.json'), 'utf8');
    const saved = JSON.parse(text) as {
      changes: Array<{ after: { ip_addresses: unknown } }>;
      seal: { algorithm: string };
    };
    expect(saved.seal.algorithm).toBe('hmac-sha256');

    // The reviewed plan adds one address; the edited one sneaks in another.
    const edited = structuredClone(saved);
    (edited.changes[0] as { after: { ip_addresses: unknown } }).after.ip_addresses = {
      '192.0.2.90': '192.0.2.90',
      '198.51.100.66': '198.51.100.66',
    };
    await writeFile(path.join(folder, 'edited-plan.json'), `${JSON.stringify(edited, null, 2)}\n`);
    const refused = await cli(['apply', 'edited-plan.json', '--state', 'sealed.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: edited-plan.json was changed after telform plan wrote it (its integrity seal does not match), so nothing was applied; make a new plan instead of editing one\n',
    );
    expect(await aclAddresses('sealed')).toEqual(['192.0.2.90']);

    const { seal: _seal, ...unsealed } = saved;
    void _seal;
    await writeFile(path.join(folder, 'unsealed-plan.json'), JSON.stringify(unsealed));
    const missing = await cli(['apply', 'unsealed-plan.json', '--state', 'sealed.json']);
    expect(missing.stderr).toBe(
      'error: unsealed-plan.json has no integrity seal, so it was not written by telform plan -o and is not applied; make it with telform plan -o unsealed-plan.json\n',
    );

    const otherToken = await cli(['apply', 'sealed-plan.json', '--state', 'sealed.json'], {
      TELFORM_AUTH_TOKEN: 'a-rotated-token',
    });
    expect(otherToken.code).toBe(1);
    expect(otherToken.stderr).toBe(
      "error: sealed-plan.json was sealed with another auth token than this run's (the token was changed since, or the plan is not this account's); make a new plan\n",
    );

    // Indentation and key order are not edits.
    const reordered = Object.fromEntries(Object.entries(saved).reverse());
    await writeFile(path.join(folder, 'reformatted-plan.json'), JSON.stringify(reordered));
    const applied = await cli(['apply', 'reformatted-plan.json', '--state', 'sealed.json']);
    expect(applied.code).toBe(0);
    expect(await aclAddresses('sealed')).toEqual(['192.0.2.90', '192.0.2.91']);
  });
});

describe('secrets of a saved plan', () => {
  it('is stale when a secret would be read from another file than at plan time, even with the same content', async () => {
    await write('linked/a.txt', `${password}\n`);
    await write('linked/b.txt', `${password}\n`);
    const link = path.join(folder, 'linked', 'current.txt');
    await symlink('a.txt', link);
    await write('linked/linked.yaml', doc('SipCredential', 'linked-pw', { password: { fromFile: 'current.txt' } }));
    const plan = await cli(['plan', '-f', 'linked', '--state', 'linked.json', '-o', 'linked-plan.json']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('      + password = (sensitive, from file linked/current.txt)\n');

    await unlink(link);
    await symlink('b.txt', link);
    const stale = await cli(['apply', 'linked-plan.json', '--state', 'linked.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      'error: linked-plan.json is stale: SipCredential/linked-pw (its password is now read from file linked/b.txt, not file linked/a.txt) changed since it was made; make a new plan\n',
    );

    await unlink(link);
    await symlink('a.txt', link);
    const applied = await cli(['apply', 'linked-plan.json', '--state', 'linked.json']);
    expect(applied.code).toBe(0);
    const saved = await readFile(path.join(folder, 'linked-plan.json'), 'utf8');
    for (const text of [plan.stdout, plan.stderr, stale.stderr, applied.stdout, applied.stderr, saved])
      expect(text).not.toContain(password);
  });

  it('refuses a secret file outside the working directory unless --allow-secret-files-outside', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'telform-e2e-outside-'));
    try {
      await writeFile(path.join(outside, 'pw.txt'), `${password}\n`);
      await write(
        'far/far.yaml',
        doc('SipCredential', 'far-pw', { password: { fromFile: path.join(outside, 'pw.txt') } }),
      );
      const plan = await cli([
        'plan',
        '-f',
        'far',
        '--state',
        'far.json',
        '-o',
        'far-plan.json',
        '--allow-secret-files-outside',
      ]);
      expect(plan.code).toBe(0);
      const refused = await cli(['apply', 'far-plan.json', '--state', 'far.json']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `error: SipCredential/far-pw  password: secret file ${path.join(outside, 'pw.txt')} is outside the working directory; keep secret files beside the manifests, or pass --allow-secret-files-outside\n`,
      );
      const applied = await cli(['apply', 'far-plan.json', '--state', 'far.json', '--allow-secret-files-outside']);
      expect(applied.code).toBe(0);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
