import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * The CLI pieces a pipeline uses, with the built CLI against an emulator: `--target`, `show`, and
 * approvals given at plan time, recorded in the saved plan and honoured by `apply plan.json`.
 */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const acl =
  'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [203.0.113.10]\n';
const trunk =
  'apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: pbx\nspec:\n  trunk_direction: outbound\n  ipacl_uuid: { ref: office }\n';
const desk =
  'apiVersion: telform/v1\nkind: SipIpAcl\nmetadata:\n  name: desk\nspec:\n  entries:\n    - ip: 198.51.100.7\n';

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-pipeline-'));
  await writeFile(path.join(folder, 'trunks.yaml'), `${acl}---\n${trunk}`);
  await writeFile(path.join(folder, 'desk.yaml'), desk);
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('--target', () => {
  it('plans only the target and what it depends on, says so, and the saved plan records it', async () => {
    const plan = await cli(['plan', '-f', '.', '--target', 'Trunk/pbx', '-o', 'target.json']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('  # TrunkIpAcl/office will be created');
    expect(plan.stdout).toContain('  # Trunk/pbx will be created');
    expect(plan.stdout).not.toContain('SipIpAcl/desk');
    expect(plan.stdout).toContain(
      'warning: --target: this plan covers only Trunk/pbx and what it depends on (2 of 3 resources); the other 1 were not looked at, and changes to them are neither shown nor applied',
    );
    const saved = JSON.parse(await readFile(path.join(folder, 'target.json'), 'utf8')) as {
      targets: string[];
      changes: Array<{ address: string }>;
    };
    expect(saved.targets).toEqual(['Trunk/pbx']);
    expect(saved.changes.map((change) => change.address)).toEqual(['TrunkIpAcl/office', 'Trunk/pbx']);
  });

  it('refuses an address that names nothing, with a suggestion', async () => {
    const plan = await cli(['plan', '-f', '.', '--target', 'Trunk/pxb']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      'error: --target Trunk/pxb: no such resource in the manifests or the state; did you mean Trunk/pbx? (addresses are Kind/name, e.g. Trunk/pbx-out)\n',
    );
  });

  it('applies a targeted saved plan (made before any state existed), leaving the rest to the next plan', async () => {
    const apply = await cli(['apply', 'target.json']);
    // The first apply of the account claims it, and says so first.
    expect(apply.stderr).toMatch(
      /^note: this apply claims account MAEMULATOR0000000001 for the new state telform\.state\.json: [^\n]+\ncreated {2}TrunkIpAcl\/office \(id [\w-]+\)\ncreated {2}Trunk\/pbx \(id \d+\)\n$/,
    );
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 2 created, 0 updated, 0 replaced, 0 deleted, 0 adopted.');
    const rest = await cli(['plan', '-f', '.', '--detailed-exitcode']);
    expect(rest.code).toBe(2);
    expect(rest.stdout).toContain('Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.');
    expect(rest.stdout).toContain('  # SipIpAcl/desk will be created');
  });
});

describe('telform show', () => {
  it('renders a saved plan as text, markdown and JSON without contacting the API', async () => {
    const saved = await readFile(path.join(folder, 'target.json'), 'utf8');
    const offline = { ...harness.env, TELFORM_ENDPOINT: 'http://127.0.0.1:9' };
    const json = await runCli(['show', 'target.json', '--format', 'json'], { cwd: folder, env: offline });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(saved));
    const text = await runCli(['show', 'target.json'], { cwd: folder, env: offline });
    expect(text.stdout).toContain('  # Trunk/pbx will be created');
    expect(text.stdout).toContain('Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.');
    const markdown = await runCli(['show', 'target.json', '--format', 'markdown'], { cwd: folder, env: offline });
    expect(markdown.stdout).toMatch(/^### telform plan\n/);
    expect(markdown.stdout).toContain('<code>Trunk/pbx</code> will be created');
  });

  it('says so when the file is not a saved plan', async () => {
    await writeFile(path.join(folder, 'not-a-plan.json'), '{"hello": 1}\n');
    const run = await cli(['show', 'not-a-plan.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: not-a-plan.json is not a saved plan; make one with telform plan -f MANIFESTS -o plan.json\n',
    );
  });
});

describe('approvals given at plan time', () => {
  it('are listed in the plan, recorded in the saved plan, and are all that apply plan.json needs', async () => {
    expect((await cli(['apply', '-f', '.', '--auto-approve'])).code).toBe(0);
    await rm(path.join(folder, 'desk.yaml'));

    const unapproved = await cli(['plan', '-f', '.', '--format', 'markdown', '-o', 'unapproved.json']);
    expect(unapproved.stdout).toContain(
      [
        '#### Approvals this plan needs',
        '',
        '| Approval | Recorded in the plan |',
        '|---|---|',
        '| `--force-deletes` | ❌ no: apply refuses until it is given to the plan |',
      ].join('\n'),
    );
    const refused = await cli(['apply', 'unapproved.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: the plan deletes or replaces 1 of the 1 managed SipIpAcl resources (all of them)',
    );

    const approved = await cli(['plan', '-f', '.', '--format', 'markdown', '-o', 'approved.json', '--force-deletes']);
    expect(approved.stdout).toContain('| `--force-deletes` | ✅ yes |');
    const saved = JSON.parse(await readFile(path.join(folder, 'approved.json'), 'utf8')) as Record<string, unknown>;
    expect(saved.approvals).toMatchObject({ force_deletes: true });
    expect(saved.required_approvals).toEqual([{ flag: '--force-deletes', given: true }]);
    const text = await cli(['show', 'approved.json']);
    expect(text.stdout).toContain('Approvals needed: --force-deletes (given).');

    const apply = await cli(['apply', 'approved.json']);
    expect(apply.stderr).toBe('deleted  SipIpAcl/desk\n');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 0 created, 0 updated, 0 replaced, 1 deleted, 0 adopted.');
  });
});
