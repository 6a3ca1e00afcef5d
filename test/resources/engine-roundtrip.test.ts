import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Clock } from '../../src/util/clock.js';
import type { PlannedChange } from '../../src/engine/plan-types.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { clientFor, converge, desiredFrom, type Manifest } from '../support/emulator.js';
import { emulatorClock } from '../support/clock.js';

/**
 * The SIP and trunking kinds through the engine without faults: one apply does everything, and the
 * plan right after it is empty (no perpetual diff), for creates, updates of every kind, a replace
 * that re-points the application binding, and deletes.
 */
const secrets = {
  SIP_PASSWORD: 'RoundTrip-Pass-1',
  TRUNK_PASSWORD: 'Rt!pass1',
  TRUNK_PASSWORD_2: 'Rt!pass2',
  URI_PASSWORD: 'uri-pass',
};

const created: Manifest[] = [
  { kind: 'SipCredential', name: 'desk-user', spec: { password: { fromEnv: 'SIP_PASSWORD' } } },
  { kind: 'SipIpAcl', name: 'desk-ips', spec: { entries: [{ ip: '203.0.113.20' }] } },
  {
    kind: 'ApplicationSipAuth',
    name: 'desk-auth',
    spec: {
      app_id: '77700000000000002',
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: { ref: 'desk-ips' },
      credential_uuid: { ref: 'desk-user' },
    },
  },
  {
    kind: 'TrunkCredential',
    name: 'rt-creds',
    spec: { username: 'rtuser01', password: { fromEnv: 'TRUNK_PASSWORD' } },
  },
  { kind: 'TrunkIpAcl', name: 'rt-ips', spec: { ip_addresses: ['192.0.2.30'] } },
  {
    kind: 'OriginationUri',
    name: 'rt-primary',
    spec: { uri: 'rt.example.com', authentication_needed: true, username: 'rt', password: { fromEnv: 'URI_PASSWORD' } },
  },
  { kind: 'OriginationUri', name: 'rt-fallback', spec: { uri: 'rt-fallback.example.com' } },
  { kind: 'Trunk', name: 'rt-out', spec: { trunk_direction: 'outbound', ipacl_uuid: { ref: 'rt-ips' } } },
  {
    kind: 'Trunk',
    name: 'rt-in',
    spec: {
      trunk_direction: 'inbound',
      primary_uri_uuid: { ref: 'rt-primary' },
      fallback_uri_uuid: { ref: 'rt-fallback' },
    },
  },
];

const updated: Manifest[] = [
  {
    kind: 'SipCredential',
    name: 'desk-user',
    spec: { username: 'desk-user-2', password: { fromEnv: 'SIP_PASSWORD' } },
  },
  {
    kind: 'SipIpAcl',
    name: 'desk-ips',
    spec: { name: 'desk-ips-2', entries: [{ ip: '203.0.113.21', description: 'moved' }] },
  },
  {
    kind: 'ApplicationSipAuth',
    name: 'desk-auth',
    spec: { app_id: '77700000000000002', sip_auth_type: 'credential', credential_uuid: { ref: 'desk-user' } },
  },
  {
    kind: 'TrunkCredential',
    name: 'rt-creds',
    spec: { name: 'rt-creds-2', username: 'rtuser02', password: { fromEnv: 'TRUNK_PASSWORD_2' } },
  },
  { kind: 'TrunkIpAcl', name: 'rt-ips', spec: { ip_addresses: ['192.0.2.30', '192.0.2.31'] } },
  {
    kind: 'OriginationUri',
    name: 'rt-primary',
    spec: { uri: 'rt.example.com:5061;transport=tls', authentication_needed: false },
  },
  { kind: 'OriginationUri', name: 'rt-fallback', spec: { uri: 'rt-fallback.example.com' } },
  {
    kind: 'Trunk',
    name: 'rt-out',
    spec: {
      trunk_direction: 'outbound',
      secure: true,
      ipacl_uuid: { ref: 'rt-ips' },
      credential_uuid: { ref: 'rt-creds' },
    },
  },
  {
    kind: 'Trunk',
    name: 'rt-in',
    spec: { trunk_direction: 'inbound', trunk_status: 'disabled', primary_uri_uuid: { ref: 'rt-primary' } },
  },
];

let emulator: RunningEmulator;
let client: ApiClient;
let clock: Clock;
let folder: string;
let stateFile: string;

beforeAll(async () => {
  emulator = await startEmulator();
  clock = emulatorClock(emulator);
  client = clientFor(emulator);
  folder = await mkdtemp(path.join(tmpdir(), 'telform-roundtrip-'));
  stateFile = path.join(folder, 'telform.state.json');
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

function actions(changes: readonly PlannedChange[] | undefined): string[] {
  return (changes ?? [])
    .filter((change) => change.action !== 'noop')
    .map((change) => `${change.action} ${change.address}`)
    .sort();
}

async function roundTrip(manifests: readonly Manifest[]): Promise<string[]> {
  const result = await converge(client, stateFile, await desiredFrom(manifests, secrets), { maxRounds: 2, clock });
  expect(result.failures).toEqual([]);
  expect(result.rounds).toHaveLength(2);
  return actions(result.rounds[0]?.plan?.changes);
}

describe('the SIP and trunking kinds through plan and apply', () => {
  it('creates everything in one apply, after which the plan is empty', async () => {
    expect(await roundTrip(created)).toEqual(
      created.map((manifest) => `create ${manifest.kind}/${manifest.name}`).sort(),
    );
  });

  it('updates every kind and replaces the credential whose username changed, re-pointing its binding', async () => {
    const before = await client.get<{ credential_uuid: string }>('/Application/77700000000000002/');
    expect(await roundTrip(updated)).toEqual([
      'replace SipCredential/desk-user',
      'update ApplicationSipAuth/desk-auth',
      'update OriginationUri/rt-primary',
      'update SipIpAcl/desk-ips',
      'update Trunk/rt-in',
      'update Trunk/rt-out',
      'update TrunkCredential/rt-creds',
      'update TrunkIpAcl/rt-ips',
    ]);
    const credentials = await client.get<{ objects: Array<{ credential_uuid: string; username: string }> }>(
      '/SipAuth/Credential/',
    );
    expect(credentials.body.objects.map((item) => item.username)).toEqual(['desk-user-2']);
    const after = await client.get<{ credential_uuid: string; sip_auth_type: string }>(
      '/Application/77700000000000002/',
    );
    expect(after.body.credential_uuid).toBe(credentials.body.objects[0]?.credential_uuid);
    expect(after.body.credential_uuid).not.toBe(before.body.credential_uuid);
  });

  it('keeps owning what a replace superseded until its delete succeeds', async () => {
    const renamed = updated.map((manifest) =>
      manifest.kind === 'SipCredential'
        ? { ...manifest, spec: { ...manifest.spec, username: 'desk-user-3' } }
        : manifest,
    );
    const faults = (body: unknown) =>
      fetch(`${emulator.url}/__emulator/faults/`, {
        method: body === null ? 'DELETE' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === null ? {} : { body: JSON.stringify(body) }),
      });
    await faults({ faults: '500=1,methods=DELETE,seed=7' });
    // The new credential is created, then every DELETE of the old one fails.
    await expect(
      converge(client, stateFile, await desiredFrom(renamed, secrets), { maxRounds: 1, clock }),
    ).rejects.toThrow(/DELETE \/SipAuth\/Credential\/[0-9a-f-]{36}\/ failed after 6 attempts: HTTP 500/);
    await faults(null);

    const result = await converge(client, stateFile, await desiredFrom(renamed, secrets), { maxRounds: 2, clock });
    expect(result.failures).toEqual([]);
    const [finish] = actions(result.rounds[0]?.plan?.changes);
    expect(finish).toMatch(/^delete SipCredential\/desk-user#old:[0-9a-f-]{36}$/);
    expect(actions(result.rounds[1]?.plan?.changes)).toEqual([]);
    const credentials = await client.get<{ objects: Array<{ username: string }> }>('/SipAuth/Credential/');
    expect(credentials.body.objects.map((item) => item.username)).toEqual(['desk-user-3']);
  });

  it('deletes everything, clearing the binding before its credential', async () => {
    expect(await roundTrip([])).toEqual(updated.map((manifest) => `delete ${manifest.kind}/${manifest.name}`).sort());
    const application = await client.get<{ sip_auth_type: string }>('/Application/77700000000000002/');
    expect(application.body.sip_auth_type).toBe('');
  });
});
