import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { advanceClock, callApi, cleanEnv, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { campaignAttributes } from './examples.js';

/** Deletion, adoption, safety refusals, saved plans, declined brands and exit codes, end to end. */
let harness: EmulatorForCli;
let folder: string;
const basic = `Basic ${Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64')}`;

const api = (method: string, pathname: string, body?: unknown) => callApi(harness.emulator, method, pathname, body);

function doc(kind: string, name: string, spec: Record<string, unknown>, protect = false): string {
  return JSON.stringify({
    apiVersion: 'telform/v1',
    kind,
    metadata: { name, ...(protect ? { protect: true } : {}) },
    spec,
  });
}

/** Writes manifests (YAML is a superset of JSON: one JSON document per `---`). */
async function manifests(file: string, documents: string[]): Promise<string> {
  const target = path.join(folder, file);
  await writeFile(target, documents.join('\n---\n'));
  return target;
}

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(args, { cwd: folder, env: { ...harness.env, ...extraEnv } });
}

const acl = (name: string, address = '203.0.113.10') => doc('TrunkIpAcl', name, { ip_addresses: [address] });

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli({ registryDelayMs: 200 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-lifecycle-'));
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the resource lifecycle', () => {
  it('adopts an object made by hand with the same name, then deletes what leaves the manifests', async () => {
    const made = await api('POST', '/Zentrunk/IPAccessControlList/', {
      name: 'by-hand',
      ip_addresses: ['203.0.113.10'],
    });
    expect(made.status).toBe(201);
    const file = await manifests('adopt.yaml', [acl('by-hand'), acl('second', '203.0.113.11')]);
    const plan = await cli(['plan', '-f', file, '--state', 'adopt.json']);
    expect(plan.stdout).toContain('  # TrunkIpAcl/by-hand will be adopted (it exists and matches by name)');
    expect(plan.stdout).toContain('Plan: 1 to create, 0 to update, 0 to replace, 0 to delete, 1 to adopt.');
    const apply = await cli(['apply', '-f', file, '--state', 'adopt.json', '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stderr).toContain(`adopted  TrunkIpAcl/by-hand (id ${made.body.ipacl_uuid as string})`);

    await manifests('adopt.yaml', [acl('by-hand')]);
    const refused = await cli(['apply', '-f', file, '--state', 'adopt.json', '--auto-approve']);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('deleted  TrunkIpAcl/second');
    const after = await cli(['plan', '-f', file, '--state', 'adopt.json', '--detailed-exitcode']);
    expect(after.code).toBe(0);
  });

  it('renames a resource with state mv instead of recreating it', async () => {
    const file = await manifests('rename.yaml', [
      doc('TrunkIpAcl', 'old-name', { ip_addresses: ['192.0.2.70'], name: 'edge' }),
    ]);
    expect((await cli(['apply', '-f', file, '--state', 'rename.json', '--auto-approve'])).code).toBe(0);
    await manifests('rename.yaml', [doc('TrunkIpAcl', 'new-name', { ip_addresses: ['192.0.2.70'], name: 'edge' })]);
    const before = await cli(['plan', '-f', file, '--state', 'rename.json']);
    // Without the move, the state still owns the object under its old name: delete and recreate.
    expect(before.stdout).toContain('Plan: 1 to create, 0 to update, 0 to replace, 1 to delete.');
    const moved = await cli(['state', 'mv', 'TrunkIpAcl/old-name', 'TrunkIpAcl/new-name', '--state', 'rename.json']);
    expect(moved.stdout).toBe('moved TrunkIpAcl/old-name to TrunkIpAcl/new-name\n');
    const after = await cli(['plan', '-f', file, '--state', 'rename.json', '--detailed-exitcode']);
    expect(after.stdout).toContain('No changes. The account matches the manifests.');
    expect(after.code).toBe(0);
  });

  it('shows objects nobody manages only when asked, and deletes them only with --prune-unmanaged', async () => {
    const stray = await api('POST', '/Zentrunk/URI/', { name: 'stray-uri', uri: 'stray.example.com' });
    const file = await manifests('stray.yaml', [acl('stray-keeper', '192.0.2.80')]);
    const quiet = await cli(['plan', '-f', file, '--state', 'stray.json']);
    expect(quiet.stdout).not.toContain('stray-uri');
    const shown = await cli(['plan', '-f', file, '--state', 'stray.json', '--show-unmanaged']);
    expect(shown.stdout).toContain(`    OriginationUri ${stray.body.uri_uuid as string} (stray-uri)`);
    const pruned = await cli([
      'apply',
      '-f',
      file,
      '--state',
      'stray.json',
      '--auto-approve',
      '--prune-unmanaged',
      'OriginationUri',
    ]);
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toContain(`deleted  OriginationUri/#${stray.body.uri_uuid as string}`);
    expect((await api('GET', `/Zentrunk/URI/${stray.body.uri_uuid as string}/`)).status).toBe(404);
    const wrongKind = await cli(['plan', '-f', file, '--state', 'stray.json', '--prune-unmanaged', 'Uri']);
    expect(wrongKind.stderr).toMatch(/^error: --prune-unmanaged Uri: not a kind \(kinds: SipCredential, /m);
  });

  it('refuses to apply without --auto-approve off a terminal, sending nothing', async () => {
    const file = await manifests('unasked.yaml', [acl('unasked')]);
    const before = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET').length;
    const run = await cli(['apply', '-f', file, '--state', 'unasked.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: not on a terminal and --auto-approve was not given, so nothing was applied; review with `telform plan` and pass --auto-approve',
    );
    const after = harness.emulator.runtime.log
      .list({ type: 'request' })
      .filter((entry) => entry.method !== 'GET').length;
    expect(after).toBe(before);
  });

  it('refuses deleting all of a kind and empty manifests without approval', async () => {
    const file = await manifests('mass.yaml', [acl('mass-a', '192.0.2.1'), acl('mass-b', '192.0.2.2')]);
    expect((await cli(['apply', '-f', file, '--state', 'mass.json', '--auto-approve'])).code).toBe(0);
    await manifests('mass.yaml', [
      doc('TrunkCredential', 'keep-one', { username: 'keeponeuser', password: { fromEnv: 'KEEP_PASSWORD' } }),
    ]);
    const refused = await cli(['apply', '-f', file, '--state', 'mass.json', '--auto-approve'], {
      KEEP_PASSWORD: 'Keep#one1',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: the plan deletes or replaces 2 of the 2 managed TrunkIpAcl resources (all of them); check the -f paths, then pass --force-deletes',
    );
    const forced = await cli(['apply', '-f', file, '--state', 'mass.json', '--auto-approve', '--force-deletes'], {
      KEEP_PASSWORD: 'Keep#one1',
    });
    expect(forced.code).toBe(0);

    await writeFile(path.join(folder, 'mass.yaml'), '# nothing here\n');
    const empty = await cli(['apply', '-f', file, '--state', 'mass.json', '--auto-approve', '--force-deletes']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('refused: the manifests hold no resource at all');
  });

  it('refuses replacing a protected resource outright, while an in-place rename goes through', async () => {
    const credential = (username: string) =>
      doc('SipCredential', 'guarded', { username, password: { fromEnv: 'GUARDED_PASSWORD' } }, true);
    const secrets = { GUARDED_PASSWORD: 'Guarded-Pass1234' };
    const file = await manifests('protect.yaml', [
      credential('guarded-v1'),
      doc('TrunkIpAcl', 'renamed', { ip_addresses: ['192.0.2.50'], name: 'renamed-v1' }, true),
    ]);
    expect((await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve'], secrets)).code).toBe(0);
    await manifests('protect.yaml', [
      credential('guarded-v1'),
      doc('TrunkIpAcl', 'renamed', { ip_addresses: ['192.0.2.50'], name: 'renamed-v2' }, true),
    ]);
    const rename = await cli(['apply', '-f', file, '--state', 'protect.json', '--auto-approve'], secrets);
    expect(rename.code).toBe(0);
    expect(rename.stderr).toContain('updated  TrunkIpAcl/renamed');
    // A SIP username cannot change in place: that is a replace, which protect forbids.
    await manifests('protect.yaml', [
      credential('guarded-v2'),
      doc('TrunkIpAcl', 'renamed', { ip_addresses: ['192.0.2.50'], name: 'renamed-v2' }, true),
    ]);
    const replace = await cli(
      ['apply', '-f', file, '--state', 'protect.json', '--auto-approve', '--force-deletes'],
      secrets,
    );
    expect(replace.code).toBe(1);
    expect(replace.stderr).toContain(
      'refused: SipCredential/guarded has metadata.protect: true and would be replaced; set metadata.protect: false and apply that first',
    );
  });

  it('needs --max-cost for a billable campaign fix and --allow-irreversible for a campaign delete', async () => {
    const brand = doc('Brand', 'billing-brand', {
      profile_uuid: '5eed0000-0000-4000-8000-000000000004',
      brand_alias: 'Billing Brand',
    });
    const campaign = (alias: string) =>
      doc('Campaign', 'billing-campaign', {
        brand_id: { ref: 'billing-brand' },
        campaign_alias: alias,
        vertical: 'RETAIL',
        usecase: 'ACCOUNT_NOTIFICATION',
        description: 'Account notifications for the customers of Billing Brand online store.',
        sample1: 'Billing: your statement is ready to view online. Reply STOP to opt out.',
        sample2: 'Billing: your payment was received, thank you. Reply STOP to opt out.',
        message_flow: 'Customers opt in on the account settings page and confirm by replying YES.',
        help_message: 'Billing Brand: help at billing.example.com or 1-800-555-0101.',
        optout_message: 'Billing Brand: you are unsubscribed and will get no more messages.',
        ...campaignAttributes,
      });
    const file = await manifests('billing.yaml', [brand, campaign('please decline')]);
    const first = await cli(['apply', '-f', file, '--state', 'billing.json', '--auto-approve', '--wait', '1m']);
    expect(first.code).toBe(0);
    await advanceClock(harness.emulator, 1_000);
    const declined = await cli(['plan', '-f', file, '--state', 'billing.json']);
    expect(declined.stdout).toMatch(/note: Campaign\/billing-campaign was declined by the registry/);

    await manifests('billing.yaml', [brand, campaign('billing-fixed')]);
    const costly = await cli(['apply', '-f', file, '--state', 'billing.json', '--auto-approve']);
    expect(costly.code).toBe(1);
    expect(costly.stderr).toContain(
      'refused: the plan costs 15 USD (campaign vetting reviews) and the approved maximum is 0 USD; approve it with --max-cost 15',
    );
    const paid = await cli(['apply', '-f', file, '--state', 'billing.json', '--auto-approve', '--max-cost', '15']);
    expect(paid.code).toBe(0);
    expect(paid.stderr).toContain('updated  Campaign/billing-campaign');
    const billing = (await (
      await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/billing/`)
    ).json()) as { total_usd: number };
    expect(billing.total_usd).toBe(15);

    await advanceClock(harness.emulator, 1_000);
    await manifests('billing.yaml', [brand]);
    const irreversible = await cli([
      'apply',
      '-f',
      file,
      '--state',
      'billing.json',
      '--auto-approve',
      '--force-deletes',
    ]);
    expect(irreversible.code).toBe(1);
    expect(irreversible.stderr).toContain(
      'refused: Campaign/billing-campaign would be deleted, which cannot be undone; approve it with --allow-irreversible Campaign/billing-campaign',
    );
    const approved = await cli([
      'apply',
      '-f',
      file,
      '--state',
      'billing.json',
      '--auto-approve',
      '--force-deletes',
      '--allow-irreversible',
      'Campaign/billing-campaign',
    ]);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain('deleted  Campaign/billing-campaign');
  });

  it('applies a saved plan exactly, and refuses it, naming the resource, once the account changed', async () => {
    const file = await manifests('saved.yaml', [acl('saved-acl', '192.0.2.60')]);
    expect((await cli(['apply', '-f', file, '--state', 'saved.json', '--auto-approve'])).code).toBe(0);
    await manifests('saved.yaml', [doc('TrunkIpAcl', 'saved-acl', { ip_addresses: ['192.0.2.60', '192.0.2.61'] })]);
    expect((await cli(['plan', '-f', file, '--state', 'saved.json', '-o', 'saved-plan.json'])).code).toBe(0);
    const ledger = JSON.parse(
      await (await import('node:fs/promises')).readFile(path.join(folder, 'saved.json'), 'utf8'),
    ) as {
      resources: Record<string, { id: string }>;
    };
    const id = ledger.resources['TrunkIpAcl/saved-acl']?.id as string;
    expect((await api('POST', `/Zentrunk/IPAccessControlList/${id}/`, { ip_addresses: ['192.0.2.99'] })).status).toBe(
      202,
    );
    const stale = await cli(['apply', 'saved-plan.json', '--state', 'saved.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'error: saved-plan.json is stale: TrunkIpAcl/saved-acl changed since it was made; make a new plan',
    );

    expect((await cli(['plan', '-f', file, '--state', 'saved.json', '-o', 'saved-plan.json'])).code).toBe(0);
    const applied = await cli(['apply', 'saved-plan.json', '--state', 'saved.json']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain(`updated  TrunkIpAcl/saved-acl (id ${id})`);
  });

  it('reports a declined brand with its reasons and keeps its campaigns from registering', async () => {
    const file = await manifests('declined.yaml', [
      doc('Brand', 'declined-brand', {
        profile_uuid: '5eed0000-0000-4000-8000-000000000003',
        brand_alias: 'decline me',
      }),
    ]);
    const apply = await cli(['apply', '-f', file, '--state', 'declined.json', '--auto-approve']);
    expect(apply.code).toBe(0);
    await api('GET', '/10dlc/Brand/');
    await advanceClock(harness.emulator, 1_000);
    const drift = await cli(['plan', '-f', file, '--state', 'declined.json']);
    expect(drift.stdout).toMatch(/note: Brand\/declined-brand was declined by the registry \(.+\)/);
  });

  it('never shows a secret: not in --log-http, the plan, the output or the state file', async () => {
    const password = 'Very-Secret-Value-42';
    const trunkPassword = 'Tr#secret9';
    const file = await manifests('secrets.yaml', [
      doc('SipCredential', 'secretive', { password: { fromEnv: 'SECRETIVE_PASSWORD' } }),
      doc('TrunkCredential', 'secretive-trunk', { username: 'secretive01', password: { fromEnv: 'SECRETIVE_TRUNK' } }),
    ]);
    const env = { SECRETIVE_PASSWORD: password, SECRETIVE_TRUNK: trunkPassword };
    const runs = [
      await cli(
        ['plan', '-f', file, '--state', 'secrets.json', '--log-http', '--format', 'json', '-o', 'secrets-plan.json'],
        env,
      ),
      await cli(['apply', '-f', file, '--state', 'secrets.json', '--auto-approve', '--log-http'], env),
      await cli(['plan', '-f', file, '--state', 'secrets.json', '--format', 'markdown'], {
        ...env,
        SECRETIVE_PASSWORD: 'Changed-Secret-Value-43',
      }),
    ];
    expect(runs[1]?.code).toBe(0);
    expect(runs[1]?.stderr).toMatch(
      /^http → POST \/v1\/Account\/\w+\/SipAuth\/Credential\/ \{"username":"secretive","password":"\(sensitive\)"\}$/m,
    );
    expect(runs[2]?.stdout).toContain('password = (sensitive, from env SECRETIVE_PASSWORD) changed');
    const files = await Promise.all(
      ['secrets.json', 'secrets-plan.json'].map((name) => readFile(path.join(folder, name), 'utf8')),
    );
    for (const text of [...runs.flatMap((run) => [run.stdout, run.stderr]), ...files]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(trunkPassword);
      expect(text).not.toContain('Changed-Secret-Value-43');
      expect(text).not.toContain(defaultAccount.authToken);
      expect(text).not.toContain(basic.slice('Basic '.length));
    }
  });

  it('says what to check when the credentials are wrong or the endpoint is down, in one line', async () => {
    const file = await manifests('reach.yaml', [acl('reach')]);
    const wrong = await cli(['plan', '-f', file, '--state', 'reach.json'], { TELFORM_AUTH_TOKEN: 'not-the-token' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /^error: the API answered 401 to GET \/\S+: Authentication failed; check TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN \(or PLIVO_AUTH_ID and PLIVO_AUTH_TOKEN\)\n$/,
    );
    expect(wrong.stderr).not.toContain('not-the-token');
  });

  it('uses the embedded emulator without credentials, but not implicitly under CI', async () => {
    const local = await mkdtemp(path.join(tmpdir(), 'telform-e2e-local-'));
    try {
      const file = path.join(local, 'acl.yaml');
      await writeFile(file, acl('local-acl'));
      const plan = await runCli(['plan', '-f', file], { cwd: local, env: cleanEnv() });
      expect(plan.code).toBe(0);
      expect(plan.stderr).toContain('no API credentials set: using the embedded emulator');
      const ci = await runCli(['plan', '-f', file], { cwd: local, env: cleanEnv({ CI: 'true' }) });
      expect(ci.code).toBe(1);
      expect(ci.stderr).toBe(
        'error: no API credentials in this CI run: set TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN, or pass --endpoint local to use the embedded emulator on purpose\n',
      );
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });
});
