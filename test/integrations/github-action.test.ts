import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { cleanEnv, cliPath, emulatorForCli, repository, runCli, type EmulatorForCli } from '../e2e/cli.js';

/**
 * The GitHub action's telform step (integrations/github-action/run.sh) run with bash as the runner
 * would run it: INPUT_* variables, GITHUB_OUTPUT, RUNNER_TEMP, against an emulator on loopback.
 */
const script = path.join(repository, 'integrations/github-action/run.sh');
let work: string;
let api: EmulatorForCli;

interface StepRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  report: string;
}

async function runStep(command: string, inputs: Record<string, string> = {}, credentials = true): Promise<StepRun> {
  const outputFile = path.join(work, `output-${command}-${Date.now()}`);
  await writeFile(outputFile, '');
  const env = cleanEnv({
    PATH: `${path.join(work, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: work,
    INPUT_COMMAND: command,
    INPUT_MANIFESTS: 'manifests',
    INPUT_STATE: 'telform.state.json',
    INPUT_PLAN_FILE: 'telform-plan.json',
    INPUT_APPROVALS_FILE: 'telform.approvals',
    INPUT_ENDPOINT: api.emulator.url,
    CI: 'true',
    ...(credentials ? { TELFORM_AUTH_ID: defaultAccount.authId, TELFORM_AUTH_TOKEN: defaultAccount.authToken } : {}),
    ...inputs,
  });
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn('bash', [script], { cwd: path.join(work, 'repo'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, stdout: out }));
  });
  const outputs = Object.fromEntries(
    (await readFile(outputFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const report = outputs.report ? await readFile(outputs.report, 'utf8').catch(() => '') : '';
  return { code, stdout, outputs, report };
}

const manifest = (addresses: string[]): string =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [${addresses.join(', ')}]\n`;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'telform-action-'));
  await mkdir(path.join(work, 'repo/manifests'), { recursive: true });
  await mkdir(path.join(work, 'bin'));
  await writeFile(path.join(work, 'bin/telform'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  await chmod(path.join(work, 'bin/telform'), 0o755);
  await writeFile(path.join(work, 'repo/manifests/acl.yaml'), manifest(['203.0.113.10']));
  api = await emulatorForCli();
});

afterAll(async () => {
  await api?.emulator.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the GitHub action step', () => {
  it('without credentials (a fork) validates and does not plan', async () => {
    const run = await runStep('plan', {}, false);
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ 'exit-code': '0', planned: 'false' });
    expect(run.report).toContain('Not planned: this run has no API credentials');
  });

  it('annotates invalid manifests and fails the plan', async () => {
    // An unknown field is an error whatever the account holds (a value rule alone would be a held_value warning).
    await writeFile(
      path.join(work, 'repo/manifests/bad.yaml'),
      'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: bad\nspec:\n  ip_adresses: [203.0.113.9]\n',
    );
    const run = await runStep('plan');
    await rm(path.join(work, 'repo/manifests/bad.yaml'));
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.stdout).toMatch(
      /^::error file=manifests\/bad\.yaml,line=6,col=\d+,title=telform [a-z_]+::TrunkIpAcl\/bad {2}spec\.ip_adresses/m,
    );
  });

  it('refuses an approvals file line that is not an approval', async () => {
    await writeFile(path.join(work, 'repo/telform.approvals'), '--endpoint https://example.com\n');
    const run = await runStep('plan');
    expect(run.outputs).toMatchObject({ 'exit-code': '1', planned: 'false' });
    expect(run.stdout).toContain(
      '::error file=telform.approvals::telform.approvals:1: "--endpoint https://example.com" is not one approval flag (--allow-irreversible <address>, --max-cost <usd>, --max-numbers-affected <n>, --allow-lint <rule>, --force-deletes, --allow-empty)',
    );
    expect(run.report).toBe(
      '### telform plan\n\n`telform.approvals` has a line that is not an approval; see the annotation.\n',
    );
  });

  it('writes the report it names when the saved plan cannot be shown, and names none it did not write', async () => {
    await writeFile(path.join(work, 'repo/broken-plan.json'), '{ not json');
    const run = await runStep('apply', { INPUT_PLAN_FILE: 'broken-plan.json' });
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.outputs.report).toBe(path.join(work, 'telform-apply.md'));
    expect(run.report).toMatch(
      /^### telform apply: failed\n\nThe saved plan could not be read, so nothing was applied:\n\n```\nerror: broken-plan\.json/,
    );
    expect(run.stdout).not.toContain('No such file');

    const unknown = await runStep('deploy');
    expect(unknown.code).toBe(1);
    expect(unknown.outputs.report).toBeUndefined();
  });

  it('plans with the reviewed approvals recorded, applies the saved plan, then reports drift', async () => {
    await writeFile(
      path.join(work, 'repo/telform.approvals'),
      '# reviewed with the manifests\n--max-cost 15\n--allow-irreversible Campaign/old-promo\n--max-numbers-affected 3\n--allow-lint all\n',
    );
    const plan = await runStep('plan');
    expect(plan.outputs).toMatchObject({ 'exit-code': '0', planned: 'true' });
    expect(plan.report).toContain('<code>TrunkIpAcl/office</code> will be created');
    // Rehearsed on a replica by default (input rehearse: 'false' skips it).
    expect(plan.report).toContain(
      '### Rehearsed on a replica of the account\n\nThe plan went through on a replica of the account',
    );
    const saved = JSON.parse(await readFile(path.join(work, 'repo/telform-plan.json'), 'utf8')) as {
      approvals: Record<string, unknown>;
    };
    expect(saved.approvals).toMatchObject({
      allow_irreversible: ['Campaign/old-promo'],
      max_cost_usd: 15,
      max_numbers_affected: 3,
      allow_lint: ['all'],
    });

    const apply = await runStep('apply');
    expect(apply.outputs['exit-code']).toBe('0');
    expect(apply.report).toMatch(/^### telform apply\n\n```\nApply complete: 1 created/);

    const stale = await runStep('apply');
    expect(stale.outputs['exit-code']).toBe('1');
    expect(stale.report).toContain('### telform apply: refused');
    expect(stale.report).toContain('telform-plan.json is stale');

    expect((await runStep('drift')).outputs['exit-code']).toBe('0');
    await writeFile(path.join(work, 'repo/manifests/acl.yaml'), manifest(['203.0.113.10', '203.0.113.11']));
    const pending = await runStep('drift');
    expect(pending.outputs['exit-code']).toBe('3');
    expect(pending.report).toContain('### telform drift');
    expect(pending.stdout).not.toContain(defaultAccount.authToken);
  });
  it('runs the signed flow: plan with the approval rules, each reviewer signs and commits, apply of the signed plan', async () => {
    const repo = path.join(work, 'repo');
    await writeFile(path.join(repo, 'telform.approvals'), '');
    const keys = { alice: generateKeyPairSync('ed25519').privateKey, bob: generateKeyPairSync('ed25519').privateKey };
    await mkdir(path.join(repo, 'policies'), { recursive: true });
    for (const [name, key] of Object.entries(keys))
      await writeFile(path.join(work, `${name}.pem`), key.export({ format: 'pem', type: 'pkcs8' }).toString());
    await writeFile(
      path.join(repo, 'policies/people.yaml'),
      `apiVersion: telform/v1\nkind: People\npeople:\n${Object.entries(keys)
        .map(([name, key]) => `  ${name}: { keys: ["${sshPublicKeyLine(key)}"], roles: [voice-leads] }\n`)
        .join('')}`,
    );
    await writeFile(
      path.join(repo, 'policies/approvals.yaml'),
      'apiVersion: telform/v1\nkind: Policy\npeople: people.yaml\napprovals:\n  - { id: acl-changes, match: change.kind == "TrunkIpAcl", needs: 2 of voice-leads, ttl: 24h }\n',
    );
    const signed = { INPUT_POLICY: 'policies/approvals.yaml', INPUT_REHEARSE: 'false' };
    await writeFile(path.join(repo, 'manifests/acl.yaml'), manifest(['203.0.113.10', '203.0.113.12']));
    const plan = await runStep('plan', signed);
    expect(plan.outputs).toMatchObject({ 'exit-code': '0', planned: 'true' });
    expect(plan.report).toContain(
      '| `TrunkIpAcl/office` | acl-changes | 2 of voice-leads, ttl 24h | - | ❌ 2 missing |',
    );

    // Merged before anyone signed: refused, nothing sent.
    const unsigned = await runStep('apply', signed);
    expect(unsigned.outputs['exit-code']).toBe('1');
    expect(unsigned.report).toContain(
      '### telform apply: refused\n\nThe approval rules do not let the reviewed plan through now (docs/approvals.md), so nothing was applied:',
    );
    expect(unsigned.report).toContain(
      'TrunkIpAcl/office: rule acl-changes needs 2 of voice-leads; no valid approval; 2 more missing (of alice, bob)',
    );

    // Each reviewer runs the documented command on the pull request's plan and commits the file it writes.
    for (const name of Object.keys(keys)) {
      const approved = await runCli(
        [
          'approve',
          'telform-plan.json',
          '--as',
          name,
          '--key',
          path.join(work, `${name}.pem`),
          '--policy',
          'policies/approvals.yaml',
          '--approvals',
          'telform-approvals',
        ],
        { cwd: repo, env: cleanEnv() },
      );
      expect(approved.code, approved.stderr).toBe(0);
    }
    // The push of the approvals plans again: the same digest, now signed by both.
    const again = await runStep('plan', signed);
    expect(again.report).toContain(
      '| `TrunkIpAcl/office` | acl-changes | 2 of voice-leads, ttl 24h | alice, bob | ✅ approved |',
    );

    const apply = await runStep('apply', signed);
    expect(apply.outputs['exit-code']).toBe('0');
    expect(apply.report).toMatch(/^### telform apply\n\n```\nApply complete: 0 created, 1 updated/);
  });
});
