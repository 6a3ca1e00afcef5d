import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/** User input that used to end in "internal error" or a misleading message (issue 33 items 15 and 33): one line naming the file and place. */
let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const manifest =
  'apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: errs\nspec:\n  ip_addresses: [192.0.2.80]\n';

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-user-input-'));
  await writeFile(path.join(folder, 'acl.yaml'), manifest);
  await mkdir(path.join(folder, 'states'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('errors on user input', () => {
  it('--state naming a folder is one line saying so (item 15)', async () => {
    const run = await cli(['plan', '-f', 'acl.yaml', '--state', 'states']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: the state path states is a folder; --state names the state file, e.g. --state ${path.join('states', 'telform.json')}\n`,
    );
  });

  it('show of a saved plan with a malformed field names the file and the field (item 15)', async () => {
    expect((await cli(['plan', '-f', 'acl.yaml', '--state', 'st.json', '-o', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(await readFile(path.join(folder, 'plan.json'), 'utf8')) as {
      changes: unknown[];
      summary: unknown;
    };
    await writeFile(path.join(folder, 'null-change.json'), JSON.stringify({ ...saved, changes: [null] }));
    await writeFile(path.join(folder, 'no-summary.json'), JSON.stringify({ ...saved, summary: undefined }));
    const nullChange = await cli(['show', 'null-change.json']);
    expect(nullChange.code).toBe(1);
    expect(nullChange.stderr).toMatch(
      /^error: null-change\.json is not a valid saved plan: changes\[0\]: [^\n]+; make a new one with telform plan -o null-change\.json\n$/,
    );
    const noSummary = await cli(['show', 'no-summary.json', '--format', 'markdown']);
    expect(noSummary.code).toBe(1);
    expect(noSummary.stderr).toMatch(/^error: no-summary\.json is not a valid saved plan: summary: [^\n]+\n$/);
    expect((await cli(['show', 'plan.json'])).code).toBe(0);
  });

  it('state migrate --to a manifest says it is a manifest and leaves it alone (item 33)', async () => {
    expect((await cli(['apply', '-f', 'acl.yaml', '--state', 'st.json', '--auto-approve'])).code).toBe(0);
    const run = await cli(['state', 'migrate', '--state', 'st.json', '--to', 'acl.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'acl.yaml is a manifest, not an empty place for the state; it is left as it is: --to names where the state goes, a new file such as telform-state.json or a postgres:// URL',
    );
    expect(await readFile(path.join(folder, 'acl.yaml'), 'utf8')).toBe(manifest);
  });
});
