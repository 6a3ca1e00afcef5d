import { spawn, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { callApi, cleanEnv, cliPath, emulatorForCli, repository, runCli, type EmulatorForCli } from '../e2e/cli.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { installRsyncSubset } from '../support/rsync.js';
import { startFakeGitlab, type FakeGitlab } from './fake-gitlab.js';

/**
 * The GitLab template run for real by gitlab-ci-local with the shell executor: the merge-request
 * plan job, the apply job of the merge, the scheduled drift job, against an emulator on loopback.
 * The GitLab API side (notes, the reviewed artifact, the drift issue) is a fake on loopback.
 */
const gitlabCiLocal = path.join(repository, 'node_modules/gitlab-ci-local/src/index.js');
const projectId = '1217'; // gitlab-ci-local's CI_PROJECT_ID
const token = 'glpat-test-token';

let work: string;
let project: string;
let api: EmulatorForCli;
let gitlab: FakeGitlab;
let head: string;
/** The project on "GitLab": a bare repository holding each merge request's head as GitLab does (refs/merge-requests/IID/head). */
let origin: string;

const aclManifest = (addresses: string[]): string =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [${addresses.join(', ')}]\n`;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@invalid', ...args], {
    cwd: project,
    encoding: 'utf8',
  }).trim();
}

interface PipelineRun {
  code: number | null;
  output: string;
}

/** The template is checked against GitLab's JSON Schema on the first run only (it takes seconds). */
let schemaChecked = false;

/** One gitlab-ci-local run of `job` as a pipeline of `source` (merge_request_event, push, schedule). */
function runJob(job: string, source: string, extra: Record<string, string> = {}): Promise<PipelineRun> {
  const variables: Record<string, string> = {
    CI_PIPELINE_SOURCE: source,
    CI_API_V4_URL: gitlab.url,
    TELFORM_ENDPOINT: api.emulator.url,
    TELFORM_AUTH_ID: defaultAccount.authId,
    TELFORM_AUTH_TOKEN: defaultAccount.authToken,
    TELFORM_GITLAB_TOKEN: token,
    TELFORM_STATE: path.join(work, 'telform.state.json'),
    TELFORM_STATE_COMMIT: 'false',
    CI_REPOSITORY_URL: origin,
    ...(source === 'merge_request_event' ? { CI_MERGE_REQUEST_IID: '1' } : {}),
    ...extra,
  };
  const args = [
    gitlabCiLocal,
    '--force-shell-executor',
    '--no-evaluate-rule-changes',
    '--no-color',
    ...(schemaChecked ? ['--no-json-schema-validation'] : []),
    '--ignore-predefined-vars',
    'CI_PIPELINE_SOURCE,CI_API_V4_URL,CI_REPOSITORY_URL',
    ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`]),
    job,
  ];
  schemaChecked = true;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: project,
      env: cleanEnv({ PATH: `${path.join(work, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`, HOME: work }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'telform-gitlab-'));
  project = path.join(work, 'project');
  await mkdir(path.join(project, 'manifests'), { recursive: true });
  await mkdir(path.join(project, 'ci'));
  await mkdir(path.join(work, 'bin'));
  // `telform` on PATH is this checkout's build, so the template skips its npm install.
  await writeFile(path.join(work, 'bin/telform'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  await chmod(path.join(work, 'bin/telform'), 0o755);
  // gitlab-ci-local copies files with rsync, which a machine with only Node and npm lacks.
  installRsyncSubset(path.join(work, 'bin'));
  await copyFile(
    path.join(repository, 'integrations/gitlab/telform.gitlab-ci.yml'),
    path.join(project, '.gitlab-ci.yml'),
  );
  await copyFile(
    path.join(repository, 'integrations/gitlab/telform-gitlab.mjs'),
    path.join(project, 'ci/telform-gitlab.mjs'),
  );
  await writeFile(path.join(project, 'manifests/acl.yaml'), aclManifest(['203.0.113.10']));
  execFileSync('git', ['init', '-q', '-b', 'main', project]);
  // gitlab-ci-local derives the project's path from the remote named origin; nothing is fetched.
  git('config', 'user.name', 'test');
  git('config', 'user.email', 'test@invalid');
  git('remote', 'add', 'origin', 'git@gitlab.example.com:acme/voice.git');
  git('add', '-A');
  git('commit', '-qm', 'manifests');
  head = git('rev-parse', 'HEAD');
  origin = path.join(work, 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', origin]);
  git('push', '-q', origin, `${head}:refs/merge-requests/1/head`);
  api = await emulatorForCli();
  const artifact = path.join(project, '.gitlab-ci-local/artifacts/telform-plan/telform-plan.json');
  gitlab = await startFakeGitlab(projectId, () => readFile(artifact));
}, 60_000);

afterAll(async () => {
  await gitlab?.close();
  await api?.emulator.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the GitLab template, run by gitlab-ci-local', () => {
  it('plans a merge request into one note, edited on every push, with the plan as an artifact', async () => {
    const first = await runJob('telform-plan', 'merge_request_event');
    expect(first.output).toContain('json schema validated');
    expect(first.output).toContain('PASS  telform-plan');
    const saved = JSON.parse(
      await readFile(path.join(project, '.gitlab-ci-local/artifacts/telform-plan/telform-plan.json'), 'utf8'),
    ) as {
      changes: Array<{ address: string; action: string }>;
    };
    expect(saved.changes.map((change) => `${change.action} ${change.address}`)).toEqual(['create TrunkIpAcl/office']);
    expect(gitlab.notes).toHaveLength(1);
    expect(gitlab.notes[0]?.body).toMatch(/^<!-- telform-plan -->\n### telform plan\n/);
    expect(gitlab.notes[0]?.body).toContain('<code>TrunkIpAcl/office</code> will be created');

    const second = await runJob('telform-plan', 'merge_request_event');
    expect(second.output).toContain('PASS  telform-plan');
    expect(gitlab.notes).toHaveLength(1);
    expect(
      gitlab.requests.filter((request) => request.path.endsWith('/notes/900')).map((request) => request.method),
    ).toEqual(['PUT']);
    expect(gitlab.requests.every((request) => request.token === token)).toBe(true);
    expect(second.output).not.toContain(defaultAccount.authToken);
  }, 300_000);

  it('applies the reviewed artifact on merge, then refuses it as stale', async () => {
    gitlab.mergeRequest = { iid: 1, sha: head, state: 'merged' };
    const apply = await runJob('telform-apply', 'push');
    expect(apply.output).toContain('reviewed plan: merge request !1');
    expect(apply.output).toContain('Apply complete: 1 created, 0 updated, 0 replaced, 0 deleted, 0 adopted.');
    expect(apply.output).toContain('PASS  telform-apply');
    expect(gitlab.notes.map((note) => note.body.split('\n')[0])).toEqual([
      '<!-- telform-plan -->',
      '<!-- telform-apply -->',
    ]);
    expect(gitlab.notes[1]?.body).toMatch(
      /^<!-- telform-apply -->\n### telform apply\n\n```\nApply complete: 1 created, /,
    );
    const after = await runCli(
      ['plan', '-f', 'manifests', '--state', path.join(work, 'telform.state.json'), '--detailed-exitcode'],
      { cwd: project, env: api.env },
    );
    expect(after.code).toBe(0);

    const again = await runJob('telform-apply', 'push');
    expect(again.output).toContain('FAIL  telform-apply');
    expect(again.output).toContain('telform-plan.json is stale: the state changed since it was made');
    expect(again.output).toContain('nothing was applied and nothing was planned again');
    expect(again.output).not.toContain('Apply complete');
    expect(gitlab.notes).toHaveLength(2);
    expect(gitlab.notes[1]?.body).toContain(
      '### telform apply: refused\n\nThe reviewed plan no longer matches the account or the state',
    );
    expect(gitlab.notes[1]?.body).toContain('telform-plan.json is stale: the state changed since it was made');
  }, 300_000);

  it('runs drift on a schedule: 2 opens the issue with the report, 0 closes it, 3 notes pending manifests', async () => {
    // Someone edits the ACL by hand, through the API (the pipeline's state owns the account: no other state may write to it).
    const ledger = JSON.parse(await readFile(path.join(work, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const aclId = ledger.resources['TrunkIpAcl/office']?.id ?? '';
    expect(
      (
        await callApi(api.emulator, 'POST', `/Zentrunk/IPAccessControlList/${aclId}/`, {
          ip_addresses: ['203.0.113.10', '198.51.100.99'],
        })
      ).status,
    ).toBeLessThan(300);
    const drifted = await runJob('telform-drift', 'schedule');
    expect(drifted.output).toContain('FAIL  telform-drift');
    expect(gitlab.issues).toHaveLength(1);
    expect(gitlab.issues[0]).toMatchObject({ state: 'opened', labels: 'telform-drift' });
    expect(gitlab.issues[0]?.description).toContain('`TrunkIpAcl/office`');

    // Put it back: in sync again, and the issue is closed.
    expect(
      (
        await callApi(api.emulator, 'POST', `/Zentrunk/IPAccessControlList/${aclId}/`, {
          ip_addresses: ['203.0.113.10'],
        })
      ).status,
    ).toBeLessThan(300);
    const inSync = await runJob('telform-drift', 'schedule');
    expect(inSync.output).toContain('PASS  telform-drift');
    expect(gitlab.issues.map((issue) => issue.state)).toEqual(['closed']);

    // A merged manifest change that is not applied yet.
    await writeFile(path.join(project, 'manifests/acl.yaml'), aclManifest(['203.0.113.10', '203.0.113.11']));
    git('commit', '-qam', 'one more address');
    const pending = await runJob('telform-drift', 'schedule');
    expect(pending.output).toContain('Merged manifest changes wait to be applied');
    expect(pending.output).toMatch(/WARN\s+telform-drift/);
    expect(gitlab.issues.map((issue) => issue.state)).toEqual(['closed']);
  }, 400_000);

  it('applies a squash merge: the reviewed head is not in the merged history, and the apply job fetches it from the merge request', async () => {
    // A developer's branch, pushed to GitLab as merge request !2; the CI checkout never had it.
    const developer = path.join(work, 'developer');
    execFileSync('git', ['clone', '-q', project, developer]);
    const inDeveloper = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@invalid', ...args], {
        cwd: developer,
        encoding: 'utf8',
      }).trim();
    await writeFile(path.join(developer, 'manifests/acl.yaml'), aclManifest(['203.0.113.10', '203.0.113.12']));
    inDeveloper('commit', '-qam', 'wip: another address');
    inDeveloper('commit', '-q', '--allow-empty', '-m', 'wip: review fixes');
    const reviewed = inDeveloper('rev-parse', 'HEAD');
    inDeveloper('push', '-q', origin, `${reviewed}:refs/merge-requests/2/head`);

    // Its plan job ran on that head (same manifests), then GitLab squashed it onto main.
    await writeFile(path.join(project, 'manifests/acl.yaml'), aclManifest(['203.0.113.10', '203.0.113.12']));
    const plan = await runJob('telform-plan', 'merge_request_event', { CI_MERGE_REQUEST_IID: '2' });
    expect(plan.output).toContain('PASS  telform-plan');
    git('commit', '-qam', 'another address (squashed !2)');
    expect(() => git('cat-file', '-e', `${reviewed}^{commit}`)).toThrow();

    gitlab.mergeRequest = { iid: 2, sha: reviewed, state: 'merged' };
    const apply = await runJob('telform-apply', 'push');
    expect(apply.output).not.toContain('another merge came in between');
    expect(apply.output).toContain('reviewed plan: merge request !2');
    expect(apply.output).toContain('Apply complete: 0 created, 1 updated, 0 replaced, 0 deleted, 0 adopted.');
    expect(apply.output).toContain('PASS  telform-apply');
  }, 300_000);
  it('runs the signed flow: the plan names who must sign, each reviewer commits an approval, the merge applies the signed plan', async () => {
    const keys = { alice: generateKeyPairSync('ed25519').privateKey, bob: generateKeyPairSync('ed25519').privateKey };
    await mkdir(path.join(project, 'policies'), { recursive: true });
    for (const [name, key] of Object.entries(keys))
      await writeFile(path.join(work, `${name}.pem`), key.export({ format: 'pem', type: 'pkcs8' }).toString());
    await writeFile(
      path.join(project, 'policies/people.yaml'),
      `apiVersion: telform/v1\nkind: People\npeople:\n${Object.entries(keys)
        .map(([name, key]) => `  ${name}: { keys: ["${sshPublicKeyLine(key)}"], roles: [voice-leads] }\n`)
        .join('')}`,
    );
    await writeFile(
      path.join(project, 'policies/approvals.yaml'),
      'apiVersion: telform/v1\nkind: Policy\npeople: people.yaml\napprovals:\n  - { id: acl-changes, match: change.kind == "TrunkIpAcl", needs: 2 of voice-leads, ttl: 24h }\n',
    );
    await writeFile(
      path.join(project, 'manifests/acl.yaml'),
      aclManifest(['203.0.113.10', '203.0.113.12', '203.0.113.13']),
    );
    git('add', '-A');
    git('commit', '-qm', 'one more address, under the approval rules');
    const signedVariables = {
      CI_MERGE_REQUEST_IID: '3',
      TELFORM_POLICY: 'policies/approvals.yaml',
      TELFORM_REHEARSE: 'false',
    };
    const planNote = () => gitlab.notes.find((note) => note.body.startsWith('<!-- telform-plan -->'))?.body ?? '';
    const plan = await runJob('telform-plan', 'merge_request_event', signedVariables);
    expect(plan.output).toContain('PASS  telform-plan');
    expect(planNote()).toContain(
      '| `TrunkIpAcl/office` | acl-changes | 2 of voice-leads, ttl 24h | - | ❌ 2 missing |',
    );

    // Each reviewer signs the merge request's plan (the job's artifact) and commits the file it writes.
    const artifact = '.gitlab-ci-local/artifacts/telform-plan/telform-plan.json';
    for (const name of Object.keys(keys)) {
      const approved = await runCli(
        [
          'approve',
          artifact,
          '--as',
          name,
          '--key',
          path.join(work, `${name}.pem`),
          '--policy',
          'policies/approvals.yaml',
          '--approvals',
          'telform-approvals',
        ],
        { cwd: project, env: cleanEnv() },
      );
      expect(approved.code, approved.stderr).toBe(0);
    }
    git('add', 'telform-approvals');
    git('commit', '-qm', 'approvals of alice and bob');
    const signedHead = git('rev-parse', 'HEAD');
    git('push', '-q', origin, `${signedHead}:refs/merge-requests/3/head`);
    const again = await runJob('telform-plan', 'merge_request_event', signedVariables);
    expect(again.output).toContain('PASS  telform-plan');
    expect(planNote()).toContain(
      '| `TrunkIpAcl/office` | acl-changes | 2 of voice-leads, ttl 24h | alice, bob | ✅ approved |',
    );

    gitlab.mergeRequest = { iid: 3, sha: signedHead, state: 'merged' };
    const apply = await runJob('telform-apply', 'push', { TELFORM_POLICY: 'policies/approvals.yaml' });
    expect(apply.output).toContain('Apply complete: 0 created, 1 updated, 0 replaced, 0 deleted, 0 adopted.');
    expect(apply.output).toContain('PASS  telform-apply');
  }, 400_000);
});
