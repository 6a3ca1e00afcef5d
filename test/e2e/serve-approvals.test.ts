// `telform serve --apply safe --policy` on the emulator, the built CLI (docs/approvals.md, "serve uses
// the same rules"): a drifted ACL a `needs: none` rule covers is healed (an `applied` event, the account
// in sync again); a drifted trunk a rule gives to two people is held, the `apply_held` event naming the
// rule, and nothing is sent. Each serve is started once per step, so its first check decides (no timing).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { startServeCli, type Line } from './serve-harness.js';

let harness: EmulatorForCli;
let folder: string;

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-serve-approvals-'));
  await writeFile(
    path.join(folder, 'voice.yaml'),
    [
      document('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.7', '203.0.113.8'] }),
      document('Trunk', 'pbx-out', { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'office' } }),
    ].join('\n---\n'),
  );
  await writeFile(
    path.join(folder, 'approvals.yaml'),
    [
      'apiVersion: telform/v1',
      'kind: Policy',
      'people: people.yaml',
      'approvals:',
      '  - { id: trunk-changes, match: change.kind == "Trunk", needs: 2 of voice-leads }',
      '  - { id: acl-self-heal, match: change.kind == "TrunkIpAcl", needs: none }',
      '',
    ].join('\n'),
  );
  const key = sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey);
  await writeFile(
    path.join(folder, 'people.yaml'),
    `apiVersion: telform/v1\nkind: People\npeople:\n  alice: { keys: ["${key}"], roles: [voice-leads] }\n`,
  );
}, 60_000);

afterAll(async () => {
  await harness?.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

async function idOf(address: string): Promise<string> {
  const ledger = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return ledger.resources[address]?.id as string;
}

/** One serve's first look: the events until `until` matches, then stopped. */
async function serveOnce(until: (event: Line) => boolean): Promise<Line[]> {
  const serve = await startServeCli(
    [
      '-f',
      'voice.yaml',
      '--policy',
      'approvals.yaml',
      '--apply',
      'safe',
      '--listen',
      '127.0.0.1:0',
      '--interval',
      '1h',
    ],
    { cwd: folder, env: harness.env },
  );
  try {
    await serve.waitForEvent(until, { timeoutMs: 30_000 });
    return serve.events.map(({ receivedAt: _at, id: _id, at: _when, ...event }) => ({ ...event, receivedAt: 0 }));
  } finally {
    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }
}

const writes = async (): Promise<number> => {
  const log = (await (await fetch(`${harness.emulator.url}/__emulator/requests/?type=request`)).json()) as {
    requests: Array<{ method: string }>;
  };
  return log.requests.filter((entry) => entry.method !== 'GET').length;
};

describe('telform serve --apply safe under approval rules', () => {
  it('heals drift a needs: none rule covers and holds drift a rule gives to people, naming the rule', async () => {
    expect(
      (await runCli(['apply', '-f', 'voice.yaml', '--auto-approve'], { cwd: folder, env: harness.env })).code,
    ).toBe(0);
    // An address removed in the console: serve adds it back, no person asked.
    const acl = await idOf('TrunkIpAcl/office');
    expect(
      (
        await callApi(harness.emulator, 'POST', `/Zentrunk/IPAccessControlList/${acl}/`, {
          ip_addresses: ['203.0.113.7'],
        })
      ).status,
    ).toBeLessThan(300);
    const healed = await serveOnce((event) => event.type === 'account_status' && event.to === 'in_sync');
    expect(healed.find((event) => event.type === 'applied')).toMatchObject({
      cause: 'apply',
      changes: ['TrunkIpAcl/office'],
      failed: false,
    });
    const live = await callApi(harness.emulator, 'GET', `/Zentrunk/IPAccessControlList/${acl}/`);
    expect((live.body.ip_addresses as string[]).sort()).toEqual(['203.0.113.7', '203.0.113.8']);

    // The trunk renamed in the console: two people must approve its change, so serve only says so.
    const trunk = await idOf('Trunk/pbx-out');
    expect(
      (await callApi(harness.emulator, 'POST', `/Zentrunk/Trunk/${trunk}/`, { name: 'renamed-in-console' })).status,
    ).toBeLessThan(300);
    const before = await writes();
    const held = await serveOnce((event) => event.type === 'apply_held');
    expect(held.find((event) => event.type === 'apply_held')).toEqual({
      type: 'apply_held',
      account: expect.any(String),
      cause: 'apply',
      changes: ['Trunk/pbx-out'],
      reasons: ['Trunk/pbx-out: rule trunk-changes gives it to people (needs 2 of voice-leads): apply a signed plan'],
      receivedAt: 0,
    });
    expect(held.some((event) => event.type === 'applied')).toBe(false);
    expect(await writes()).toBe(before);
  }, 120_000);
});
