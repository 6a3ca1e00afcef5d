// The GitHub apply workflow's state steps, run as a runner would: a killed apply leaves no orphan on the next runner.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, startCli, type EmulatorForCli } from '../e2e/cli.js';
import { repository } from '../e2e/cli.js';

interface Step {
  name?: string;
  if?: string;
  run?: string;
}

const workflow = parse(
  await readFile(path.join(repository, 'integrations/github/workflows/telform-apply.yml'), 'utf8'),
) as {
  jobs: { apply: { steps: Step[] } };
};
const step = (name: string): Step => {
  const found = workflow.jobs.apply.steps.find((candidate) => candidate.name === name);
  if (!found?.run) throw new Error(`no step "${name}" with a script in telform-apply.yml`);
  return found;
};

let work: string;
let api: EmulatorForCli;
const names = Array.from({ length: 8 }, (_, index) => `office-${index}`);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A step's script with bash, in a runner's checkout, as Actions runs `run:`. */
function runStep(name: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', step(name).run as string], {
      cwd,
      env: {
        ...process.env,
        RUNNER_TEMP: path.join(cwd, '..', `${path.basename(cwd)}-temp`),
        PR_NUMBER: '7',
        GIT_TERMINAL_PROMPT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A fresh runner: a new clone of the repository, its temp folder. */
async function runner(name: string): Promise<string> {
  const checkout = path.join(work, name);
  git(work, 'clone', '-q', path.join(work, 'origin.git'), checkout);
  git(checkout, 'config', 'user.name', 'test');
  git(checkout, 'config', 'user.email', 'test@invalid');
  await mkdir(path.join(work, `${name}-temp`));
  return checkout;
}

async function setLatency(ms: number): Promise<void> {
  await fetch(`${api.emulator.url}/__emulator/faults/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ latency: ms }),
  });
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'telform-apply-template-'));
  api = await emulatorForCli();
  git(work, 'init', '-q', '--bare', '-b', 'main', 'origin.git');
  const seed = path.join(work, 'seed');
  git(work, 'clone', '-q', path.join(work, 'origin.git'), seed);
  await mkdir(path.join(seed, 'manifests'));
  const documents = names.map((name, index) =>
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name },
      spec: { ip_addresses: [`198.51.100.${index + 1}`] },
    }),
  );
  await writeFile(path.join(seed, 'manifests/acls.yaml'), documents.join('\n---\n'));
  git(seed, '-c', 'user.name=test', '-c', 'user.email=test@invalid', 'add', '-A');
  git(seed, '-c', 'user.name=test', '-c', 'user.email=test@invalid', 'commit', '-qm', 'manifests');
  git(seed, 'push', '-q', 'origin', 'HEAD:main');
});
afterAll(async () => {
  await api?.emulator.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the GitHub apply workflow keeps the journal', () => {
  it('commits the state even when the apply step left no outputs (killed), and only after the reviewed plan was found', () => {
    const commit = step('Commit the state');
    expect(commit.if).toBe("always() && steps.reviewed.outcome == 'success'");
  });

  it('a killed apply leaves no orphan on the next runner: its journal is committed with the state and settled there', async () => {
    const first = await runner('runner-1');
    expect((await runStep('Use the newest state', first)).code).toBe(0);
    await setLatency(300);
    try {
      const victim = startCli(
        ['apply', '-f', 'manifests', '--state', 'telform.state.json', '--auto-approve', '--parallelism', '1'],
        { cwd: first, env: api.env },
      );
      // Killed once a few creates are done and none of it is in the state file yet.
      for (;;) {
        const journal = await readFile(path.join(first, 'telform.state.json.journal'), 'utf8').catch(() => '');
        if ((journal.match(/"type":"result"/g) ?? []).length >= 3) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      victim.kill('SIGKILL');
      expect((await victim.done).code).toBeNull();
    } finally {
      await setLatency(0);
    }
    const committed = await runStep('Commit the state', first);
    expect(committed).toMatchObject({ code: 0 });
    expect(git(first, 'ls-tree', '--name-only', 'origin/main').split('\n')).toContain('telform.state.json.journal');

    // A new runner: fresh clone, the workflow's restore, the next apply.
    const second = await runner('runner-2');
    expect((await runStep('Use the newest state', second)).code).toBe(0);
    const next = await runCli(['apply', '-f', 'manifests', '--state', 'telform.state.json', '--auto-approve'], {
      cwd: second,
      env: api.env,
    });
    expect(next.code).toBe(0);
    expect((await runStep('Commit the state', second)).code).toBe(0);

    // Every ACL exactly once, each owned; the settled journal is gone from the repository.
    const listed = await callApi(api.emulator, 'GET', '/Zentrunk/IPAccessControlList/?limit=20');
    const live = (listed.body.objects as Array<{ name: string; ipacl_uuid: string }>).map((acl) => acl.name).sort();
    expect(live).toEqual([...names].sort());
    const third = await runner('runner-3');
    expect((await runStep('Use the newest state', third)).code).toBe(0);
    const ledger = JSON.parse(await readFile(path.join(third, 'telform.state.json'), 'utf8')) as { resources: object };
    expect(Object.keys(ledger.resources).sort()).toEqual(names.map((name) => `TrunkIpAcl/${name}`).sort());
    expect(git(third, 'ls-tree', '--name-only', 'origin/main').split('\n')).not.toContain('telform.state.json.journal');
    // The history went with the state: the next runner's copy verifies against the ledger's anchor.
    expect(git(third, 'ls-tree', '--name-only', 'origin/main').split('\n')).toContain('telform.state.json.history');
    const verified = await runCli(['history', 'verify', '--state', 'telform.state.json'], { cwd: third, env: api.env });
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    const plan = await runCli(['plan', '-f', 'manifests', '--state', 'telform.state.json', '--detailed-exitcode'], {
      cwd: third,
      env: api.env,
    });
    expect(plan.code).toBe(0);
  }, 120_000);
});
