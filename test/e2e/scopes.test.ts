// Scopes through the built CLI: claim and release a part of the account, validate a folder whose
// { ref } points into another scope, and a document outside the state's scope refused at its line.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[], cwd = folder) => runCli(args, { cwd, env: harness.env });
const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-scopes-'));
  await mkdir(path.join(folder, 'voice'));
  await mkdir(path.join(folder, 'messaging'));
  await writeFile(
    path.join(folder, 'voice', 'voice.yaml'),
    [
      doc('OriginationUri', 'pbx', { uri: 'sip:pbx.example.com:5060' }),
      doc('Trunk', 'pbx-in', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx' } }),
    ].join('\n---\n'),
  );
  await writeFile(
    path.join(folder, 'messaging', 'numbers.yaml'),
    doc('PhoneNumber', 'support', { number: '+15125550101', app_id: { ref: 'pbx-in' } }),
  );
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

const account = 'MAEMULATOR0000000001';
const voiceKinds =
  'voice (ApplicationSipAuth, OriginationUri, SipCredential, SipIpAcl, Trunk, TrunkCredential, TrunkIpAcl)';

describe('scopes through the CLI', () => {
  it('validates a folder whose { ref } points into another scope only with --scope', async () => {
    const without = await cli(['validate', '-f', 'messaging/']);
    expect(without.code).toBe(1);
    expect(without.stdout + without.stderr).toContain('no Trunk named "pbx-in" in these manifests');
    expect(await cli(['validate', '-f', 'messaging/', '--scope', 'messaging'])).toMatchObject({ code: 0 });
    const outside = await cli(['validate', '-f', 'voice/', '--scope', 'messaging']);
    expect(outside.code).toBe(1);
    expect(outside.stdout + outside.stderr).toContain('voice/voice.yaml:1:');
    expect(outside.stdout + outside.stderr).toContain(
      'Trunk/pbx-in is outside the scope this state owns (messaging (Brand, Campaign, PhoneNumber, Profile)): Trunk is not among its kinds',
    );
  });

  it('two folders, two states: each claims its scope, applies its own kinds and reads the other’s trunk', async () => {
    const voiceDir = path.join(folder, 'voice');
    const messagingDir = path.join(folder, 'messaging');
    const claimed = await cli(['state', 'claim', '--scope', 'voice'], voiceDir);
    const lineage = (
      JSON.parse(await readFile(path.join(voiceDir, 'telform.state.json'), 'utf8')) as { lineage: string }
    ).lineage;
    expect(claimed).toMatchObject({
      code: 0,
      stdout: `the state telform.state.json (lineage ${lineage}) now owns ${voiceKinds} of account ${account}; other ledgers may only read that part\n`,
    });
    expect((await cli(['state', 'claim', '--scope', 'messaging'], messagingDir)).code).toBe(0);
    expect((await cli(['state', 'list'], voiceDir)).stderr).toMatch(
      new RegExp(
        `^lineage ${lineage}; claimed the account at \\S+ \\(scope ${voiceKinds.replace(/[()]/g, '\\$&')}\\)$`,
        'm',
      ),
    );
    expect((await cli(['apply', '-f', '.', '--auto-approve'], voiceDir)).code).toBe(0);
    const applied = await cli(['apply', '-f', '.', '--auto-approve'], messagingDir);
    expect(applied.code).toBe(0);
    expect((await cli(['plan', '-f', '.', '--detailed-exitcode'], voiceDir)).code).toBe(0);
    expect((await cli(['drift', '-f', '.'], messagingDir)).code).toBe(0);
    // A third state that overlaps is refused, naming the owner and the overlap; with both, each with its part.
    const both = await cli(['--state', 'third.json', 'state', 'claim', '--scope', 'Trunk,Brand']);
    expect(both.stderr).toMatch(
      new RegExp(
        `^error: Brand, Trunk of account ${account} is owned by the telform ledgers of lineages [0-9a-f-]{36} \\(scope .*, holding (Brand|Trunk)\\), [0-9a-f-]{36} \\(scope .*, holding (Brand|Trunk)\\); `,
      ),
    );
    expect(both.stderr).toContain(`${lineage} (scope ${voiceKinds}, holding Trunk)`);
    const third = await cli(['--state', 'third.json', 'state', 'claim', '--scope', 'Trunk,TrunkIpAcl']);
    expect(third.code).toBe(1);
    expect(third.stderr).toBe(
      `error: Trunk, TrunkIpAcl of account ${account} is owned by the telform ledger of lineage ${lineage} (scope ${voiceKinds}); to take it from that ledger, run telform state release with it first, or, if it is lost, telform state claim --take-over ${lineage}\n`,
    );
    // A document outside the state's scope is an error at its line, before anything is sent.
    await writeFile(
      path.join(messagingDir, 'stray.yaml'),
      doc('TrunkIpAcl', 'stray', { ip_addresses: ['203.0.113.9'] }),
    );
    const stray = await cli(['plan', '-f', '.'], messagingDir);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain('stray.yaml:1:');
    expect(stray.stderr).toContain('TrunkIpAcl/stray is outside the scope this state owns');
    // A third state takes the trunks over: the voice state's list says what its marker claims now,
    // read from the account, beside what it recorded.
    const takeOver = await cli(['--state', 'third.json', 'state', 'claim', '--scope', 'Trunk', '--take-over', lineage]);
    expect(takeOver.code).toBe(0);
    const listed = await cli(['state', 'list'], voiceDir);
    expect(listed.code).toBe(0);
    expect(listed.stderr.split('\n').slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^lineage ${lineage}; claimed the account at \\S+ \\(scope ${voiceKinds.replace(/[()]/g, '\\$&')}\\)$`,
        ),
      ),
      `the account's marker of this state claims ApplicationSipAuth, OriginationUri, SipCredential, SipIpAcl, TrunkCredential, TrunkIpAcl now: another state took the rest over`,
      '',
    ]);
  }, 120_000);
});
