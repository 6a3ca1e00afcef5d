import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';

/** `telform validate` in-process: the command's parsing, output and exit code. */
let folder: string;
let stdout: string;
let stderr: string;
const cwd = process.cwd();

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-cli-validate-'));
  process.chdir(folder);
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  process.exitCode = undefined;
});
afterEach(async () => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  process.chdir(cwd);
  await rm(folder, { recursive: true, force: true });
});

const acl =
  'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [203.0.113.10]\n';
const trunk =
  'apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: out\nspec:\n  trunk_direction: outbond\n  ipacl_uuid: { ref: ofice }\n';

function validate(...args: string[]): Promise<number> {
  return runCli(['node', 'telform', 'validate', ...args]);
}

describe('telform validate', () => {
  it('exits 0 and says so for valid manifests', async () => {
    await writeFile('acl.yaml', acl);
    expect(await validate('-f', 'acl.yaml')).toBe(0);
    expect(stdout).toBe('valid: 1 resource in 1 file\n');
    expect(stderr).toBe('');
  });

  it('prints every problem, then a summary, and exits 1', async () => {
    await writeFile('acl.yaml', acl);
    await writeFile('trunk.yaml', trunk);
    expect(await validate('-f', 'acl.yaml', '-f', 'trunk.yaml')).toBe(1);
    expect(stdout).toBe(
      [
        // With no state every object is new: a value rule and a missing ref are both errors.
        'trunk.yaml:6:20  Trunk/out  spec.trunk_direction: must be one of inbound, outbound (got "outbond"); did you mean "outbound"? (no state at telform.state.json: a new object must meet this rule; if the account already holds this value, pass --state with the account\'s state, or run telform import so a state records it)',
        'trunk.yaml:7:22  Trunk/out  spec.ipacl_uuid.ref: no TrunkIpAcl named "ofice" in these manifests; did you mean "office"?',
        'invalid: 2 errors, 0 warnings in 2 files',
        '',
      ].join('\n'),
    );
  });

  it('prints GitHub workflow commands with --format github, so problems annotate the pull request', async () => {
    await writeFile('trunk.yaml', trunk);
    expect(await validate('-f', 'trunk.yaml', '--format', 'github')).toBe(1);
    expect(stdout).toBe(
      [
        '::error file=trunk.yaml,line=6,col=20,title=telform rule::Trunk/out  spec.trunk_direction: must be one of inbound, outbound (got "outbond"); did you mean "outbound"? (no state at telform.state.json: a new object must meet this rule; if the account already holds this value, pass --state with the account\'s state, or run telform import so a state records it)',
        '::error file=trunk.yaml,line=7,col=22,title=telform ref_missing::Trunk/out  spec.ipacl_uuid.ref: no TrunkIpAcl named "ofice" in these manifests',
        'invalid: 2 error(s), 0 warning(s)',
        '',
      ].join('\n'),
    );
  });

  it('writes a GitLab code-quality report with --format gitlab', async () => {
    await writeFile('trunk.yaml', trunk);
    expect(await validate('-f', 'trunk.yaml', '--format', 'gitlab')).toBe(1);
    const issues = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(issues.map(({ fingerprint, ...issue }) => ({ ...issue, fingerprint: typeof fingerprint }))).toEqual([
      {
        description:
          'Trunk/out  spec.trunk_direction: must be one of inbound, outbound (got "outbond"); did you mean "outbound"? (no state at telform.state.json: a new object must meet this rule; if the account already holds this value, pass --state with the account\'s state, or run telform import so a state records it)',
        check_name: 'rule',
        fingerprint: 'string',
        severity: 'major',
        location: { path: 'trunk.yaml', lines: { begin: 6 } },
      },
      {
        description: 'Trunk/out  spec.ipacl_uuid.ref: no TrunkIpAcl named "ofice" in these manifests',
        check_name: 'ref_missing',
        fingerprint: 'string',
        severity: 'major',
        location: { path: 'trunk.yaml', lines: { begin: 7 } },
      },
    ]);
  });

  it('prints a versioned JSON report with --format json', async () => {
    await writeFile('trunk.yaml', trunk);
    expect(await validate('-f', '.', '--format', 'json')).toBe(1);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      format_version: 1,
      valid: false,
      error_count: 2,
      warning_count: 0,
      resource_count: 1,
      files: ['trunk.yaml'],
    });
    expect((report['problems'] as unknown[])[0]).toEqual({
      severity: 'error',
      code: 'rule',
      file: 'trunk.yaml',
      line: 6,
      column: 20,
      address: 'Trunk/out',
      field: 'spec.trunk_direction',
      message:
        'must be one of inbound, outbound (got "outbond"); did you mean "outbound"? (no state at telform.state.json: a new object must meet this rule; if the account already holds this value, pass --state with the account\'s state, or run telform import so a state records it)',
      related: null,
    });
  });

  it('checks secrets only with --check-secrets', async () => {
    await writeFile(
      'sip.yaml',
      'apiVersion: telform/v1\nkind: SipCredential\nmetadata:\n  name: phones\nspec:\n  password: { fromEnv: TELFORM_TEST_NOT_SET_ANYWHERE }\n',
    );
    expect(await validate('-f', 'sip.yaml')).toBe(0);
    stdout = '';
    expect(await validate('-f', 'sip.yaml', '--check-secrets')).toBe(1);
    expect(stdout).toBe(
      'sip.yaml:6:24  SipCredential/phones  spec.password: environment variable TELFORM_TEST_NOT_SET_ANYWHERE is not set\ninvalid: 1 error, 0 warnings in 1 file\n',
    );
  });

  it('requires -f and refuses an unknown format', async () => {
    expect(await validate()).toBe(1);
    expect(stderr).toContain('no manifests given: pass -f PATH (repeatable), or --accounts FILE');
    stderr = '';
    expect(await validate('-f', '.', '--format', 'yaml')).toBe(1);
    expect(stderr).toContain(
      "option '--format <format>' argument 'yaml' is invalid. Allowed choices are text, json, github, gitlab.",
    );
  });
});
