// serve --apply safe under approval rules, on the emulator through the real worker: a drifted ACL a
// `needs: none` rule covers is healed; a drifted trunk a rule gives to people is held, the reason naming
// the rule (the service turns a held plan into its `apply_held` event).
import { generateKeyPairSync } from 'node:crypto';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Connect } from '../../src/run/context.js';
import { createWorker } from '../../src/serve/worker.js';
import type { AccountWorker } from '../../src/serve/service.js';
import { sshPublicKeyLine } from '../../src/util/ssh-signature.js';

const account = { authId: 'SERVEAPPROVALS01', authToken: 'token-of-serve-approvals-01' };
let emulator: RunningEmulator;
let folder: string;
let bare: AccountWorker;
let ruled: AccountWorker;

const document = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });

async function post(route: string, id: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.url}/v1/Account/${account.authId}/Zentrunk/${route}/${id}/`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${account.authId}:${account.authToken}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
}

async function idOf(address: string): Promise<string> {
  const ledger = JSON.parse(await readFile(path.join(folder, 'acme.state.json'), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return ledger.resources[address]?.id as string;
}

beforeAll(async () => {
  emulator = await startEmulator({ accounts: [account] });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-serve-approvals-'));
  await writeFile(
    path.join(folder, 'account.yaml'),
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
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'people.yaml'),
    `apiVersion: telform/v1\nkind: People\npeople:\n  alice: { keys: ["${sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey)}"], roles: [voice-leads] }\n`,
  );
  const connect: Connect = async (_globals, io) => {
    const client = new ApiClient({
      baseUrl: emulator.url,
      credentials: { authId: io.env.TELFORM_AUTH_ID as string, authToken: io.env.TELFORM_AUTH_TOKEN as string },
    });
    return {
      client,
      endpointLabel: emulator.url,
      account: account.authId,
      authToken: account.authToken,
      close: () => client.close(),
    };
  };
  const setup = {
    name: 'acme',
    manifests: [path.join(folder, 'account.yaml')],
    globals: { state: path.join(folder, 'acme.state.json') },
    io: {
      cwd: folder,
      env: { TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken },
      stderr: () => undefined,
    },
    connect,
    parallelism: 4,
  };
  bare = createWorker(setup);
  ruled = createWorker({ ...setup, policies: [path.join(folder, 'approvals.yaml')] });
});

afterAll(async () => {
  await bare?.close();
  await ruled?.close();
  await emulator?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('serve --apply safe under approval rules', () => {
  it('heals what a needs: none rule covers and holds what a rule gives to people, naming the rule', async () => {
    expect(await bare.applySafe()).toMatchObject({ result: 'applied', failed: false });
    // An address removed in the console: healing adds it back (removing one would cut the trunk's PBX off, a hold of its own).
    await post('IPAccessControlList', await idOf('TrunkIpAcl/office'), { ip_addresses: ['203.0.113.7'] });
    expect(await ruled.applySafe()).toMatchObject({ result: 'applied', changes: ['TrunkIpAcl/office'], failed: false });
    expect(await ruled.check()).toMatchObject({ status: 'in_sync' });

    await post('Trunk', await idOf('Trunk/pbx-out'), { name: 'renamed-in-console' });
    expect(await ruled.applySafe()).toEqual({
      result: 'held',
      changes: ['Trunk/pbx-out'],
      reasons: ['Trunk/pbx-out: rule trunk-changes gives it to people (needs 2 of voice-leads): apply a signed plan'],
    });
    // The same plan is healed by a serve without approval rules (today's behaviour).
    expect(await bare.applySafe()).toMatchObject({ result: 'applied', changes: ['Trunk/pbx-out'] });
  });
});
