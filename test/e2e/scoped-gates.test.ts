// A scope narrows what a state may write, never what its gates read (docs/state-and-safety.md, one
// judgement): two scoped states on one account, the voice state deleting the trunk that carries the
// messaging state's number is refused for its blast radius, as the same delete from an unscoped state.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[], cwd: string) => runCli(args, { cwd, env: harness.env });
const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
const uri = doc('OriginationUri', 'pbx', { uri: 'sip:pbx.example.com:5060' });
const trunk = doc('Trunk', 'pbx-in', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx' } });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-scoped-gates-'));
  await mkdir(path.join(folder, 'voice'));
  await mkdir(path.join(folder, 'messaging'));
  await writeFile(path.join(folder, 'voice', 'voice.yaml'), [uri, trunk].join('\n---\n'));
  await writeFile(
    path.join(folder, 'messaging', 'numbers.yaml'),
    doc('PhoneNumber', 'support', { number: '+15125550101', app_id: { ref: 'pbx-in' } }),
  );
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the gates of a scoped state read the whole account', () => {
  it("refuses the voice state's delete of the trunk carrying the messaging state's number", async () => {
    const voice = path.join(folder, 'voice');
    const messaging = path.join(folder, 'messaging');
    expect((await cli(['state', 'claim', '--scope', 'voice'], voice)).code).toBe(0);
    expect((await cli(['state', 'claim', '--scope', 'messaging'], messaging)).code).toBe(0);
    expect((await cli(['apply', '-f', '.', '--auto-approve'], voice)).code).toBe(0);
    expect((await cli(['apply', '-f', '.', '--auto-approve'], messaging)).code).toBe(0);

    // The trunk leaves the voice manifests: its delete would cut the number's calls off.
    await writeFile(path.join(voice, 'voice.yaml'), uri);
    const plan = await cli(['plan', '-f', '.'], voice);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('- Trunk/pbx-in');
    expect(plan.stdout + plan.stderr).toContain(
      'apply will refuse: the plan breaks calls to 1 number and the approved maximum is 0; approve it with --max-numbers-affected 1',
    );
    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const apply = await cli(['apply', '-f', '.', '--auto-approve'], voice);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('refused: the plan breaks calls to 1 number');
    const writes = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(since)
      .filter((entry) => entry.method !== 'GET');
    expect(writes).toEqual([]);
  });
});
