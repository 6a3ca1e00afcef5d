import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * Secrets under code review, end to end: every plan format says where each secret comes from, a
 * change of source is a change, the API's own credentials are never a secret source, and secret
 * files stay inside the manifest folders and are never special files. No value is ever printed.
 */
let harness: EmulatorForCli;
let folder: string;
const values = ['Env#Secret-Pass1', 'File#Secret-Pass2', 'Literal#Pass-33', 'Other#Secret-Pass4'];

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

/** 1-based column of the value of `key` in a one-line JSON document: where a problem about it points. */
function column(document: string, key: string): number {
  return document.indexOf(`"${key}":`) + key.length + 4;
}

async function write(file: string, text: string): Promise<string> {
  const target = path.join(folder, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
  return target;
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: folder, env: { ...harness.env, ...env } });

function expectNoValue(...texts: string[]): void {
  for (const text of texts) {
    for (const value of [...values, defaultAccount.authToken]) expect(text).not.toContain(value);
  }
}

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-secrets-'));
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('where secrets come from', () => {
  it('shows each source in text, markdown and JSON, never the value', async () => {
    await write('sources/secrets/pbx.txt', `${values[1]}\n`);
    await write(
      'sources/pbx.yaml',
      [
        doc('SipCredential', 'src-env', { password: { fromEnv: 'PBX_PW' } }),
        doc('SipCredential', 'src-file', { password: { fromFile: 'secrets/pbx.txt' } }),
        doc('SipCredential', 'src-literal', { password: values[2] }),
      ].join('\n---\n'),
    );
    const env = { PBX_PW: values[0] as string };
    const args = ['plan', '-f', 'sources', '--state', 'sources.json'];
    const text = await cli(args, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '  + SipCredential/src-env\n      + username = "src-env"\n      + password = (sensitive, from env PBX_PW)\n',
    );
    expect(text.stdout).toContain('      + password = (sensitive, from file sources/secrets/pbx.txt)\n');
    expect(text.stdout).toContain('      + password = (sensitive, literal in the manifest)\n');

    const markdown = await cli([...args, '--format', 'markdown'], env);
    expect(markdown.stdout).toContain('\n+ password = (sensitive, from env PBX_PW)\n');
    expect(markdown.stdout).toContain('\n+ password = (sensitive, from file sources/secrets/pbx.txt)\n');
    expect(markdown.stdout).toContain('\n+ password = (sensitive, literal in the manifest)\n');

    const json = await cli([...args, '--format', 'json'], env);
    const plan = JSON.parse(json.stdout) as {
      changes: Array<{ address: string; after: Record<string, unknown>; secret_sources: unknown }>;
    };
    const byAddress = new Map(plan.changes.map((change) => [change.address, change]));
    expect(byAddress.get('SipCredential/src-env')?.secret_sources).toEqual({ password: { fromEnv: 'PBX_PW' } });
    expect(byAddress.get('SipCredential/src-file')?.secret_sources).toEqual({
      password: { fromFile: 'sources/secrets/pbx.txt' },
    });
    expect(byAddress.get('SipCredential/src-literal')?.secret_sources).toEqual({ password: { literal: true } });
    expect(byAddress.get('SipCredential/src-env')?.after.password).toBe('(sensitive, from env PBX_PW)');
    expectNoValue(text.stdout, text.stderr, markdown.stdout, markdown.stderr, json.stdout, json.stderr);
  });

  it('shows a change of source as a change even when the value is the same, and records the source in the state', async () => {
    const manifest = (variable: string) =>
      write('moved.yaml', doc('SipCredential', 'moved', { password: { fromEnv: variable } }));
    await manifest('PBX_PW');
    const env = { PBX_PW: values[0] as string, PBX_PW_2: values[0] as string };
    expect((await cli(['apply', '-f', 'moved.yaml', '--state', 'moved.json', '--auto-approve'], env)).code).toBe(0);
    const ledger = async () =>
      JSON.parse(await readFile(path.join(folder, 'moved.json'), 'utf8')) as {
        resources: Record<string, { secrets: Record<string, unknown> }>;
      };
    expect((await ledger()).resources['SipCredential/moved']?.secrets.password).toMatchObject({
      source: { fromEnv: 'PBX_PW' },
    });

    await manifest('PBX_PW_2');
    const plan = await cli(['plan', '-f', 'moved.yaml', '--state', 'moved.json', '--detailed-exitcode'], env);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('  ~ SipCredential/moved (id ');
    expect(plan.stdout).toContain('      ~ password: (sensitive, from env PBX_PW) → (sensitive, from env PBX_PW_2)\n');
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
    const markdown = await cli(['plan', '-f', 'moved.yaml', '--state', 'moved.json', '--format', 'markdown'], env);
    expect(markdown.stdout).toContain('\n! password: (sensitive, from env PBX_PW) → (sensitive, from env PBX_PW_2)\n');

    const apply = await cli(['apply', '-f', 'moved.yaml', '--state', 'moved.json', '--auto-approve'], env);
    expect(apply.code).toBe(0);
    const stored = await readFile(path.join(folder, 'moved.json'), 'utf8');
    expect((await ledger()).resources['SipCredential/moved']?.secrets.password).toMatchObject({
      source: { fromEnv: 'PBX_PW_2' },
    });
    const after = await cli(['plan', '-f', 'moved.yaml', '--state', 'moved.json', '--detailed-exitcode'], env);
    expect(after.code).toBe(0);
    expectNoValue(plan.stdout, markdown.stdout, apply.stdout, apply.stderr, stored);
  });
});

describe("the API's own credentials are never a secret source", () => {
  it('refuses the credential variables offline, with the line', async () => {
    const names = ['TELFORM_AUTH_ID', 'TELFORM_AUTH_TOKEN', 'PLIVO_AUTH_ID', 'PLIVO_AUTH_TOKEN'];
    const documents = names.map((name, index) =>
      doc('SipCredential', `cred-${index}`, { password: { fromEnv: name } }),
    );
    await write('creds/creds.yaml', documents.join('\n---\n'));
    const validate = await runCli(['validate', '-f', 'creds'], { cwd: folder });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toBe(
      [
        ...names.map(
          (name, index) =>
            `creds/creds.yaml:${index * 2 + 1}:${column(documents[index] as string, 'fromEnv')}  SipCredential/cred-${index}  spec.password: ${name} is one of the API's own credentials, never a secret source (whoever got this password would hold the whole account)`,
        ),
        'invalid: 4 errors, 0 warnings in 1 file',
        '',
      ].join('\n'),
    );
    const plan = await cli(['plan', '-f', 'creds', '--state', 'creds.json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `creds/creds.yaml:3:${column(documents[1] as string, 'fromEnv')}  SipCredential/cred-1  spec.password: TELFORM_AUTH_TOKEN is one of the API's own credentials`,
    );
    expect(plan.stderr).toContain('error: the manifests have 4 errors (listed above); nothing was sent');
  });

  it('refuses every other credential telform or its templates read, saying why, offline and at plan', async () => {
    const reasons: Array<[string, string]> = [
      ['TELFORM_AUTH_SECONDARY', "is one of the API's own credentials, never a secret source"],
      [
        'PGPASSWORD',
        "holds the state database's password (telform reads it to connect; whoever got it could rewrite the state): never a secret source",
      ],
      [
        'TELFORM_STATE',
        "names the state, and a state URL may carry the database's password (whoever got it could rewrite the state): never a secret source",
      ],
      [
        'TELFORM_GITLAB_TOKEN',
        "is the GitLab token telform's pipeline template reads (whoever got it could act on the repository): never a secret source",
      ],
      ['CI_JOB_TOKEN', "is the GitLab job's token (whoever got it could act on the repository): never a secret source"],
      [
        'GITHUB_TOKEN',
        "is the GitHub token telform's workflows pass to their steps (whoever got it could act on the repository): never a secret source",
      ],
    ];
    const documents = reasons.map(([name], index) =>
      doc('SipCredential', `other-${index}`, { password: { fromEnv: name } }),
    );
    await write('others/others.yaml', documents.join('\n---\n'));
    const validate = await runCli(['validate', '-f', 'others'], { cwd: folder });
    expect(validate.code).toBe(1);
    for (const [index, [name, why]] of reasons.entries()) {
      expect(validate.stdout).toContain(
        `others/others.yaml:${index * 2 + 1}:${column(documents[index] as string, 'fromEnv')}  SipCredential/other-${index}  spec.password: ${name} ${why}`,
      );
    }
    const values = {
      PGPASSWORD: 'Db#Secret-Pass5',
      TELFORM_GITLAB_TOKEN: 'glpat-Secret-Pass6',
      TELFORM_AUTH_SECONDARY: 'x',
      CI_JOB_TOKEN: 'y',
      GITHUB_TOKEN: 'z',
    };
    const plan = await cli(['plan', '-f', 'others', '--state', 'others.json'], values);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `SipCredential/other-1  spec.password: PGPASSWORD holds the state database's password`,
    );
    expect(plan.stderr).toContain('error: the manifests have 6 errors (listed above); nothing was sent');
    expect(plan.stdout + plan.stderr).not.toContain('Secret-Pass');
  });

  it("with --accounts, refuses another account's credential variable by name instead of calling it not set", async () => {
    await write('tenants/acme.yaml', doc('SipCredential', 'acme-desk', { password: { fromEnv: 'GLOBEX_AUTH_TOKEN' } }));
    await write('tenants/globex.yaml', doc('TrunkIpAcl', 'globex-office', { ip_addresses: ['192.0.2.10'] }));
    const credentials = (prefix: string) => ({
      auth_id_env: `${prefix}_AUTH_ID`,
      auth_token_env: `${prefix}_AUTH_TOKEN`,
    });
    await write(
      'tenants/accounts.yaml',
      JSON.stringify({
        defaults: { endpoint: harness.env.TELFORM_ENDPOINT },
        accounts: [
          { name: 'acme', manifests: ['acme.yaml'], state: 'acme.json', credentials: credentials('ACME') },
          { name: 'globex', manifests: ['globex.yaml'], state: 'globex.json', credentials: credentials('GLOBEX') },
        ],
      }),
    );
    const env = {
      ACME_AUTH_ID: defaultAccount.authId,
      ACME_AUTH_TOKEN: defaultAccount.authToken,
      GLOBEX_AUTH_ID: defaultAccount.authId,
      GLOBEX_AUTH_TOKEN: defaultAccount.authToken,
    };
    const run = await runCli(['plan', '--accounts', 'tenants/accounts.yaml'], {
      cwd: folder,
      env: { ...harness.env, ...env },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'SipCredential/acme-desk  spec.password: GLOBEX_AUTH_TOKEN holds the credentials of an account in the accounts file, never a secret source (whoever got this password would hold that account)',
    );
    expect(run.stdout + run.stderr).not.toContain('is not set');
  });

  it('refuses a variable or file whose value is the auth token in use, at validate --check-secrets and at plan', async () => {
    await write('same/token.txt', `${defaultAccount.authToken}\n`);
    const sameEnv = doc('SipCredential', 'same-env', { password: { fromEnv: 'INNOCENT_PW' } });
    const sameFile = doc('SipCredential', 'same-file', { password: { fromFile: 'token.txt' } });
    await write('same/same.yaml', `${sameEnv}\n---\n${sameFile}`);
    const env = { INNOCENT_PW: defaultAccount.authToken };
    const expected = [
      `same/same.yaml:1:${column(sameEnv, 'fromEnv')}  SipCredential/same-env  spec.password: the value of INNOCENT_PW equals the API auth token in TELFORM_AUTH_TOKEN, which is never sent as a secret`,
      `same/same.yaml:3:${column(sameFile, 'fromFile')}  SipCredential/same-file  spec.password: the content of token.txt equals the API auth token in TELFORM_AUTH_TOKEN, which is never sent as a secret`,
    ];
    const validate = await cli(['validate', '-f', 'same', '--check-secrets'], env);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toBe([...expected, 'invalid: 2 errors, 0 warnings in 1 file', ''].join('\n'));
    // Offline, without credentials, the values cannot be compared: the names are fine.
    expect((await runCli(['validate', '-f', 'same'], { cwd: folder })).code).toBe(0);
    const plan = await cli(['plan', '-f', 'same', '--state', 'same.json'], env);
    expect(plan.code).toBe(1);
    for (const line of expected) expect(plan.stderr).toContain(line);
    expectNoValue(validate.stdout, validate.stderr, plan.stdout, plan.stderr);
  });
});

describe('secret files', () => {
  it('refuses a path that leaves the manifest folders, also through a symbolic link, unless --allow-secret-files-outside', async () => {
    await write('outside.txt', `${values[3]}\n`);
    const dotdot = doc('SipCredential', 'dotdot', { password: { fromFile: '../outside.txt' } });
    await write('inner/dotdot.yaml', dotdot);
    const refused = await cli(['validate', '-f', 'inner']);
    expect(refused.stdout).toBe(
      [
        `inner/dotdot.yaml:1:${column(dotdot, 'fromFile')}  SipCredential/dotdot  spec.password: secret file ../outside.txt is outside the folders the manifests were loaded from (inner); keep secret files beside the manifests, or pass --allow-secret-files-outside`,
        'invalid: 1 error, 0 warnings in 1 file',
        '',
      ].join('\n'),
    );
    const plan = await cli(['plan', '-f', 'inner', '--state', 'inner.json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'secret file ../outside.txt is outside the folders the manifests were loaded from (inner)',
    );
    const allowed = await cli(['plan', '-f', 'inner', '--state', 'inner.json', '--allow-secret-files-outside']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('      + password = (sensitive, from file outside.txt)\n');

    await mkdir(path.join(folder, 'linked'));
    await symlink(path.join(folder, 'outside.txt'), path.join(folder, 'linked', 'pw.txt'));
    const linkedDoc = doc('SipCredential', 'linked', { password: { fromFile: 'pw.txt' } });
    await write('linked/linked.yaml', linkedDoc);
    expect((await cli(['validate', '-f', 'linked'])).code).toBe(0);
    const linked = await cli(['validate', '-f', 'linked', '--check-secrets']);
    expect(linked.stdout).toContain(
      `linked/linked.yaml:1:${column(linkedDoc, 'fromFile')}  SipCredential/linked  spec.password: secret file pw.txt is outside the folders the manifests were loaded from (it leads to ${path.join(folder, 'outside.txt')}); keep secret files beside the manifests, or pass --allow-secret-files-outside\n`,
    );
    expect((await cli(['validate', '-f', 'linked', '--check-secrets', '--allow-secret-files-outside'])).code).toBe(0);
    expectNoValue(refused.stdout, plan.stderr, allowed.stdout, linked.stdout);
  });

  it('refuses special files: /proc, /dev, a link to one, a FIFO and a socket, even with --allow-secret-files-outside', async () => {
    await mkdir(path.join(folder, 'special'), { recursive: true });
    await symlink('/proc/self/environ', path.join(folder, 'special', 'environ-link'));
    execFileSync('mkfifo', [path.join(folder, 'special', 'fifo')]);
    const socketServer: Server = createServer();
    await new Promise<void>((listening) => socketServer.listen(path.join(folder, 'special', 'socket'), listening));
    try {
      const files = {
        proc: '/proc/self/environ',
        dev: '/dev/stdin',
        link: 'environ-link',
        fifo: 'fifo',
        socket: 'socket',
      };
      const documents = Object.entries(files).map(([name, file]) =>
        doc('SipCredential', name, { password: { fromFile: file } }),
      );
      await write('special/special.yaml', documents.join('\n---\n'));
      const at = (index: number, name: string) =>
        `special/special.yaml:${index * 2 + 1}:${column(documents[index] as string, 'fromFile')}  SipCredential/${name}  spec.password:`;
      const run = await cli(['validate', '-f', 'special', '--check-secrets', '--allow-secret-files-outside']);
      expect(run.code).toBe(1);
      const lines = run.stdout.split('\n');
      expect(lines[0]).toBe(
        `${at(0, 'proc')} secret file /proc/self/environ is a special file (under /proc), never a secret file`,
      );
      expect(lines[1]).toBe(
        `${at(1, 'dev')} secret file /dev/stdin is a special file (under /dev), never a secret file`,
      );
      expect(lines[2]).toMatch(
        /^.+ secret file environ-link leads to \/proc\/\d+\/environ, a special file \(under \/proc\), never a secret file$/,
      );
      expect(lines[2]?.startsWith(at(2, 'link'))).toBe(true);
      expect(lines[3]).toBe(`${at(3, 'fifo')} secret file fifo is a FIFO (named pipe), not a regular file`);
      expect(lines[4]).toBe(`${at(4, 'socket')} secret file socket is a socket, not a regular file`);
      const plan = await cli(['plan', '-f', 'special', '--state', 'special.json']);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain('nothing was sent');
    } finally {
      await new Promise((closed) => socketServer.close(closed));
      await unlink(path.join(folder, 'special', 'fifo')).catch(() => undefined);
    }
  });
});
