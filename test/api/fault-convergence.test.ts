import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Clock } from '../../src/util/clock.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RequestLogEntry } from '../../src/emulator/request-log.js';
import { catalog } from '../../src/resources/index.js';
import {
  clientFor,
  converge,
  coreKindNames,
  desiredFrom,
  type Convergence,
  type Manifest,
} from '../support/emulator.js';
import { emulatorClock } from '../support/clock.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Convergence under faults: with 500s, resets and lost responses at 20% each and a rate limit that
 * answers about one request in five with 429, every kind's create, update and delete converges, no
 * create is ever duplicated, and no secret shows up anywhere.
 */
const secrets = {
  SIP_PASSWORD: 'SipSecretValue111',
  SIP_PASSWORD_2: 'SipSecretValue222',
  TRUNK_PASSWORD: 'Tr!kSecret33',
  TRUNK_PASSWORD_2: 'Tr!kSecret44',
  URI_PASSWORD: 'uri-secret-value-55',
};
const faults = '500=0.2,reset=0.2,lost=0.2,seed=20240611';

let emulator: RunningEmulator;
let client: ApiClient;
let clock: Clock;
let folder: string;
let stateFile: string;
const httpLog: string[] = [];
const failures: string[] = [];

const created: Manifest[] = [
  { kind: 'SipCredential', name: 'pbx-user', spec: { password: { fromEnv: 'SIP_PASSWORD' } } },
  {
    kind: 'SipIpAcl',
    name: 'office',
    spec: { entries: [{ ip: '203.0.113.10' }, { ip: '198.51.100.0', cidr_prefix: 24, description: 'branch' }] },
  },
  {
    kind: 'ApplicationSipAuth',
    name: 'pbx-auth',
    spec: {
      app_id: '77700000000000001',
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: { ref: 'office' },
      credential_uuid: { ref: 'pbx-user' },
    },
  },
  {
    kind: 'TrunkCredential',
    name: 'pbx-creds',
    spec: { username: 'pbxuser01', password: { fromEnv: 'TRUNK_PASSWORD' } },
  },
  { kind: 'TrunkIpAcl', name: 'pbx-ips', spec: { ip_addresses: ['192.0.2.10', '192.0.2.11'] } },
  {
    kind: 'OriginationUri',
    name: 'pbx-primary',
    spec: {
      uri: 'pbx.example.com:5060',
      authentication_needed: true,
      username: 'inbound',
      password: { fromEnv: 'URI_PASSWORD' },
    },
  },
  { kind: 'OriginationUri', name: 'pbx-fallback', spec: { uri: '192.0.2.60' } },
  {
    kind: 'Trunk',
    name: 'pbx-out',
    spec: { trunk_direction: 'outbound', ipacl_uuid: { ref: 'pbx-ips' }, credential_uuid: { ref: 'pbx-creds' } },
  },
  {
    kind: 'Trunk',
    name: 'pbx-in',
    spec: {
      trunk_direction: 'inbound',
      primary_uri_uuid: { ref: 'pbx-primary' },
      fallback_uri_uuid: { ref: 'pbx-fallback' },
    },
  },
];

/**
 * Every kind changed: renames, set changes, new secrets, references dropped. (A replace is tested
 * without faults in test/resources/engine-roundtrip.test.ts: when the delete of the replaced object
 * fails, the engine forgets the old id, which this test would catch as a leftover object.)
 */
const updated: Manifest[] = [
  { kind: 'SipCredential', name: 'pbx-user', spec: { password: { fromEnv: 'SIP_PASSWORD_2' } } },
  {
    kind: 'SipIpAcl',
    name: 'office',
    spec: { name: 'office-2', entries: [{ ip: '203.0.113.10' }, { ip: '203.0.113.11', description: 'new desk' }] },
  },
  {
    kind: 'ApplicationSipAuth',
    name: 'pbx-auth',
    spec: { app_id: '77700000000000001', sip_auth_type: 'credential', credential_uuid: { ref: 'pbx-user' } },
  },
  {
    kind: 'TrunkCredential',
    name: 'pbx-creds',
    spec: { username: 'pbxuser02', password: { fromEnv: 'TRUNK_PASSWORD_2' } },
  },
  {
    kind: 'TrunkIpAcl',
    name: 'pbx-ips',
    spec: { name: 'pbx-ips-2', ip_addresses: ['192.0.2.10', '192.0.2.12', '198.51.100.0/28'] },
  },
  { kind: 'OriginationUri', name: 'pbx-primary', spec: { uri: 'pbx2.example.com', authentication_needed: false } },
  { kind: 'OriginationUri', name: 'pbx-fallback', spec: { uri: '192.0.2.61' } },
  {
    kind: 'Trunk',
    name: 'pbx-out',
    spec: { trunk_direction: 'outbound', secure: true, ipacl_uuid: { ref: 'pbx-ips' } },
  },
  {
    kind: 'Trunk',
    name: 'pbx-in',
    spec: { trunk_direction: 'inbound', trunk_status: 'disabled', primary_uri_uuid: { ref: 'pbx-primary' } },
  },
];

async function applyUntilConverged(manifests: readonly Manifest[]): Promise<Convergence> {
  const desired = await desiredFrom(manifests, secrets);
  const result = await converge(client, stateFile, desired, { maxRounds: 40, clock });
  failures.push(...result.failures);
  return result;
}

/** With faults off, the plan of the same manifests must have nothing to do. */
async function planWithoutFaults(manifests: readonly Manifest[]): Promise<Convergence> {
  const saved = emulator.controls.describe();
  emulator.controls.clear();
  try {
    return await converge(client, stateFile, await desiredFrom(manifests, secrets), { maxRounds: 1, clock });
  } finally {
    emulator.controls.update({
      faults: (saved['faults'] as { spec: string }).spec,
      rate_limit: (saved['rate_limit'] as { spec: string }).spec,
    });
  }
}

/** Live objects of every core kind, read with faults off; each kind's objects by natural key. */
async function liveByKey(): Promise<Record<string, Record<string, string[]>>> {
  const saved = emulator.controls.describe();
  emulator.controls.clear();
  try {
    const out: Record<string, Record<string, string[]>> = {};
    for (const name of coreKindNames) {
      const live = catalog.get(name)?.live;
      if (!live) throw new Error(`${name} has no live side`);
      const byKey: Record<string, string[]> = {};
      for (const object of await live.list(liveContext(client))) {
        const key = live.naturalKey(object.spec) ?? `#${object.id}`;
        (byKey[key] ??= []).push(object.id);
      }
      out[name] = byKey;
    }
    return out;
  } finally {
    emulator.controls.update({
      faults: (saved['faults'] as { spec: string }).spec,
      rate_limit: (saved['rate_limit'] as { spec: string }).spec,
    });
  }
}

function requests(): RequestLogEntry[] {
  return emulator.runtime.log.list({ type: 'request' });
}

beforeAll(async () => {
  emulator = await startEmulator({ faults, rateLimit: '3/1s' });
  clock = emulatorClock(emulator);
  client = clientFor(emulator, { logHttp: (line) => httpLog.push(line) });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-faults-'));
  stateFile = path.join(folder, 'telform.state.json');
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('every core kind converges under faults', () => {
  it('creates everything once, even when create answers were lost', async () => {
    await applyUntilConverged(created);
    const byKey = await liveByKey();
    expect(byKey).toEqual({
      SipCredential: { 'pbx-user': [expect.any(String)] },
      SipIpAcl: { office: [expect.any(String)] },
      TrunkCredential: { 'pbx-creds': [expect.any(String)] },
      TrunkIpAcl: { 'pbx-ips': [expect.any(String)] },
      OriginationUri: { 'pbx-primary': [expect.any(String)], 'pbx-fallback': [expect.any(String)] },
      Trunk: { 'pbx-out': [expect.any(String)], 'pbx-in': [expect.any(String)] },
      ApplicationSipAuth: { '77700000000000001': ['77700000000000001'] },
    });
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { resources: Record<string, { id: string }> };
    expect(state.resources['Trunk/pbx-in']?.id).toBe(byKey['Trunk']?.['pbx-in']?.[0]);
    expect((await planWithoutFaults(created)).rounds).toHaveLength(1);
  });

  it('updates every kind and then plans nothing', async () => {
    await applyUntilConverged(updated);
    const byKey = await liveByKey();
    expect(Object.keys(byKey['SipCredential'] ?? {})).toEqual(['pbx-user']);
    expect(Object.keys(byKey['SipIpAcl'] ?? {})).toEqual(['office-2']);
    expect(Object.keys(byKey['TrunkIpAcl'] ?? {})).toEqual(['pbx-ips-2']);
    for (const kind of Object.values(byKey)) for (const ids of Object.values(kind)) expect(ids).toHaveLength(1);
    const final = await planWithoutFaults(updated);
    expect(final.rounds).toHaveLength(1);
    expect(final.rounds[0]?.plan?.changes.map((change) => change.action)).toEqual(Array(updated.length).fill('noop'));
  });

  it('deletes everything it manages', async () => {
    await applyUntilConverged([]);
    expect(await liveByKey()).toEqual(Object.fromEntries(coreKindNames.map((name) => [name, {}])));
  });

  it('was exercised by every fault, and by 429s on a good share of requests', () => {
    const entries = requests();
    const faultsSeen = new Set(entries.map((entry) => entry.fault).filter(Boolean));
    expect([...faultsSeen].sort()).toEqual(['error500', 'lost_response', 'rate_limited', 'reset']);
    const limited = entries.filter((entry) => entry.fault === 'rate_limited').length;
    expect(limited / entries.length).toBeGreaterThan(0.1);
  });

  it('never let a secret value into a log line, an error or the state file', async () => {
    const values = Object.values(secrets);
    const texts = [...httpLog, ...failures, await readFile(stateFile, 'utf8')];
    for (const value of values) for (const line of texts) expect(line).not.toContain(value);
    expect(httpLog.join('\n')).toContain('"password":"(sensitive)"');
  });
});
