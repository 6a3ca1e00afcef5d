import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli, ownerOf } from './cli.js';

// Names written into the account by someone else (anyone with API access) are printed by plan,
// import and the diffs: planted ESC sequences, CR/LF and a right-to-left override must reach the
// reviewer's screen as visible escapes, in every format, never as what they would do.
const hostile = 'pbx\u001b[2J\u001b[H\r\nPlan: 0 to create, 0 to update\u202ekcab';
const shown = 'pbx\\u001b[2J\\u001b[H\\r\\nPlan: 0 to create, 0 to update\\u202ekcab';
const raw = /[\u001b\r\u202e\u009b]/;

let harness: EmulatorForCli;
let folder: string;
let hostileId: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const acl = (name: string, addresses: string[]): string =>
  JSON.stringify({
    apiVersion: 'telform/v1',
    kind: 'TrunkIpAcl',
    metadata: { name },
    spec: { ip_addresses: addresses },
  });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-injection-'));
  const made = await callApi(harness.emulator, 'POST', '/Zentrunk/IPAccessControlList/', {
    name: hostile,
    ip_addresses: ['192.0.2.66'],
  });
  expect(made.status).toBe(201);
  hostileId = String((made.body.object as Record<string, unknown> | undefined)?.ipacl_uuid ?? made.body.ipacl_uuid);
  await writeFile(path.join(folder, 'office.yaml'), acl('office', ['203.0.113.10']));
});

afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('live text with control and bidi characters', () => {
  it('plan --show-unmanaged prints the name escaped on its own line (text), and JSON keeps the data with no raw character', async () => {
    const text = await cli(['plan', '-f', 'office.yaml', '--state', 'show.json', '--show-unmanaged']);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(raw);
    expect(text.stdout).toContain(`\n    TrunkIpAcl ${hostileId} (${shown})\n`);
    expect(text.stdout.split('\n').filter((line) => line.startsWith('Plan: '))).toEqual([
      'Plan: 1 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.',
    ]);

    const json = await cli([
      'plan',
      '-f',
      'office.yaml',
      '--state',
      'show.json',
      '--show-unmanaged',
      '--format',
      'json',
    ]);
    expect(json.stdout).not.toMatch(raw);
    const plan = JSON.parse(json.stdout) as { unmanaged: Array<{ id: string; name?: string }> };
    expect(plan.unmanaged.find((object) => object.id === hostileId)?.name).toBe(hostile);
  });

  it('a diff of a live name shows it escaped in text and markdown', async () => {
    expect((await cli(['apply', '-f', 'office.yaml', '--state', 'diff.json', '--auto-approve'])).code).toBe(0);
    const state = JSON.parse(
      await (await import('node:fs/promises')).readFile(path.join(folder, 'diff.json'), 'utf8'),
    ) as {
      resources: Record<string, { id: string }>;
    };
    const officeId = state.resources['TrunkIpAcl/office']?.id ?? '';
    expect(
      (
        await callApi(harness.emulator, 'POST', `/Zentrunk/IPAccessControlList/${officeId}/`, {
          name: `office${hostile}`,
        })
      ).status,
    ).toBeLessThan(300);

    const text = await cli(['plan', '-f', 'office.yaml', '--state', 'diff.json']);
    expect(text.stdout).not.toMatch(raw);
    expect(text.stdout).toContain(`      ~ name: "office${shown}" → "office"\n`);
    const markdown = await cli(['plan', '-f', 'office.yaml', '--state', 'diff.json', '--format', 'markdown']);
    expect(markdown.stdout).not.toMatch(raw);
    expect(markdown.stdout).toContain(`! name: "office${shown}" → "office"\n`);
    const drift = await cli(['drift', '-f', 'office.yaml', '--state', 'diff.json']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).not.toMatch(raw);
    expect(drift.stdout).toContain(`~ name: "office${shown}" → "office"`);
  });

  it('import reports the made-up name with the live one escaped', async () => {
    // The states of the tests above are treated as lost: this one takes the account over from their owner, then imports.
    expect(
      (await cli(['--state', 'import.json', 'state', 'claim', '--take-over', await ownerOf(harness.emulator)])).code,
    ).toBe(0);
    const run = await cli(['import', '--out', 'imported', '--state', 'import.json']);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(raw);
    expect(run.stdout).toMatch(
      new RegExp(
        `\\n  TrunkIpAcl/[a-z0-9-]+ \\(id ${hostileId}\\): its name "${shown.replace(/[\\[\]()^$.*+?|]/g, '\\$&')}" is not a valid metadata.name\\n`,
      ),
    );
  });
});
