import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';

// Policies as code: the shipped example policies over the examples, a violation that blocks apply,
// and a CEL error reported at its line and column.
let harness: EmulatorForCli;
let folder: string;
const policy = path.join(repository, 'policies/telecom.yaml');
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: folder, env: { ...harness.env, ...env } });

async function demoSecrets(): Promise<Record<string, string>> {
  const text = await readFile(path.join(repository, 'examples/demo-secrets.env'), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/^([A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1] as string, match[2] as string]),
  );
}

const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-policies-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('policies', () => {
  it('runs the shipped example policies against the examples: they comply', async () => {
    const plan = await cli(
      [
        'plan',
        '-f',
        path.join(repository, 'examples'),
        '--state',
        'examples.json',
        '--policy',
        policy,
        '--format',
        'json',
      ],
      await demoSecrets(),
    );
    expect(plan.stderr).not.toContain('error');
    expect(plan.code).toBe(0);
    const parsed = JSON.parse(plan.stdout) as { findings?: unknown[]; changes: unknown[] };
    expect(parsed.changes.length).toBeGreaterThan(20);
    expect(parsed.findings).toBeUndefined();
  });

  it('blocks apply on an error-level violation, in every output format, sending nothing', async () => {
    await writeFile(
      path.join(folder, 'bad.yaml'),
      [
        doc('TrunkCredential', 'shared-login', { username: 'sharedlogin', password: { fromEnv: 'SHARED_PW' } }),
        doc('Trunk', 'office-a', {
          trunk_direction: 'outbound',
          secure: true,
          credential_uuid: { ref: 'shared-login' },
        }),
        doc('Trunk', 'office-b', { trunk_direction: 'outbound', credential_uuid: { ref: 'shared-login' } }),
      ].join('\n---\n'),
    );
    const env = { SHARED_PW: 'Shared#login2024' };
    const text = await cli(['plan', '-f', 'bad.yaml', '--state', 'bad.json', '--policy', policy], env);
    expect(text.stdout).toContain(
      [
        'Findings (10DLC lint and policies):',
        '  bad.yaml:3:62  error  trunk-credential-not-shared  Trunk/office-a  each outbound trunk has a credential of its own, so one leaked password opens one trunk [policy]',
        '  bad.yaml:5:62  error  outbound-trunks-secure  Trunk/office-b  an outbound trunk carries SRTP media and TLS signalling (secure true) [policy]',
        '  bad.yaml:5:62  error  trunk-credential-not-shared  Trunk/office-b  each outbound trunk has a credential of its own, so one leaked password opens one trunk [policy]',
      ].join('\n'),
    );
    expect(text.stdout).toContain(
      'warning: apply will refuse: Trunk/office-b violates policy outbound-trunks-secure: an outbound trunk carries SRTP media and TLS signalling (secure true)',
    );
    const markdown = await cli(
      ['plan', '-f', 'bad.yaml', '--state', 'bad.json', '--policy', policy, '--format', 'markdown'],
      env,
    );
    expect(markdown.stdout).toContain('#### Findings (10DLC lint and policies)');
    expect(markdown.stdout).toContain(
      '- ❌ bad.yaml:5:62  error  outbound-trunks-secure  Trunk/office-b  an outbound trunk carries SRTP media and TLS signalling (secure true) \\[policy\\]',
    );
    const json = JSON.parse(
      (await cli(['plan', '-f', 'bad.yaml', '--state', 'bad.json', '--policy', policy, '--format', 'json'], env))
        .stdout,
    ) as { findings: unknown[] };
    expect(json.findings).toContainEqual({
      source: 'policy',
      rule: 'outbound-trunks-secure',
      severity: 'error',
      address: 'Trunk/office-b',
      message: 'an outbound trunk carries SRTP media and TLS signalling (secure true)',
      source_place: { file: 'bad.yaml', line: 5, column: 62 },
      reference: `${policy}:8`,
    });

    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const apply = await cli(
      ['apply', '-f', 'bad.yaml', '--state', 'bad.json', '--policy', policy, '--auto-approve'],
      env,
    );
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'refused: Trunk/office-b violates policy outbound-trunks-secure: an outbound trunk carries SRTP media and TLS signalling (secure true)\n',
    );
    expect(
      harness.emulator.runtime.log
        .list({ type: 'request' })
        .slice(since)
        .filter((entry) => entry.method !== 'GET'),
    ).toEqual([]);
  });

  it('reports a CEL error in a policy at its file, line and column, before reading the account', async () => {
    await writeFile(path.join(folder, 'one.yaml'), doc('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] }));
    await writeFile(
      path.join(folder, 'broken.yaml'),
      [
        'apiVersion: telform/v1',
        'kind: Policy',
        'rules:',
        '  - id: broken-rule',
        '    message: trunks are secure',
        '    expression: resource.secure = true',
        '',
      ].join('\n'),
    );
    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const plan = await cli(['plan', '-f', 'one.yaml', '--state', 'one.json', '--policy', 'broken.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe('error: broken.yaml:6:33  rule broken-rule: expression: Unexpected character: =\n');
    expect(harness.emulator.runtime.log.list({ type: 'request' }).slice(since)).toEqual([]);

    await writeFile(
      path.join(folder, 'broken.yaml'),
      [
        'apiVersion: telform/v1',
        'kind: Policy',
        'rules:',
        '  - id: missing-key',
        '    message: x',
        '    expression: |-',
        '      resource.name != ""',
        '        && resource.nope == 1',
        '',
      ].join('\n'),
    );
    const failed = await cli(['plan', '-f', 'one.yaml', '--state', 'one.json', '--policy', 'broken.yaml']);
    expect(failed.stderr).toBe(
      'error: broken.yaml:8:21  TrunkIpAcl/office  rule missing-key failed: expression: No such key: nope\n',
    );
  });
});
