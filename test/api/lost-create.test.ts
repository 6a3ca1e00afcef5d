import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { catalog } from '../../src/resources/index.js';
import type { LiveSide, ResolvedSpec } from '../../src/resources/live-side.js';
import { clientFor } from '../support/emulator.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Lost creates, kind by kind: when every create's answer is lost (the object is made, the
 * connection then dropped), the live side finds the object by natural key and adopts it; the
 * account holds exactly one.
 */
let emulator: RunningEmulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = clientFor(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(() => {
  emulator.controls.clear();
  emulator.runtime.log.clear();
});

function liveOf(kind: string): LiveSide {
  const live = catalog.get(kind)?.live;
  if (!live) throw new Error(`${kind} has no live side`);
  return live;
}

async function createLost(kind: string, spec: ResolvedSpec): Promise<void> {
  const live = liveOf(kind);
  emulator.controls.update({ faults: 'lost=1,methods=POST' });
  const { id } = await live.create(liveContext(client), spec);
  emulator.controls.clear();
  const key = live.naturalKey(spec);
  const namesakes = (await live.list(liveContext(client))).filter((object) => live.naturalKey(object.spec) === key);
  expect(namesakes.map((object) => object.id)).toEqual([id]);
  const creates = emulator.runtime.log.list({ type: 'request' }).filter((entry) => entry.method === 'POST');
  expect(creates.map((entry) => entry.fault)).toEqual(['lost_response']);
}

describe('a create whose answer was lost is adopted, never repeated', () => {
  it('SipCredential', () => createLost('SipCredential', { username: 'lost-sip', password: 'Lost-Pass-123' }));
  it('SipIpAcl', () =>
    createLost('SipIpAcl', { name: 'lost-sip-acl', entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }] }));
  it('TrunkCredential', () =>
    createLost('TrunkCredential', { name: 'lost-creds', username: 'lostuser1', password: 'L0st!pass' }));
  it('TrunkIpAcl', () => createLost('TrunkIpAcl', { name: 'lost-acl', ip_addresses: ['192.0.2.1'] }));
  it('OriginationUri', () =>
    createLost('OriginationUri', { name: 'lost-uri', uri: 'lost.example.com', authentication_needed: false }));

  it('Trunk', async () => {
    const acl = await liveOf('TrunkIpAcl').create(liveContext(client), {
      name: 'lost-trunk-acl',
      ip_addresses: ['192.0.2.2'],
    });
    emulator.runtime.log.clear();
    await createLost('Trunk', {
      name: 'lost-trunk',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: false,
      ipacl_uuid: acl.id,
    });
  });

  it('refuses to guess when two namesakes it cannot tell apart exist', async () => {
    const live = liveOf('TrunkIpAcl');
    await live.create(liveContext(client), { name: 'twin', ip_addresses: ['192.0.2.3'] });
    await live.create(liveContext(client), { name: 'twin', ip_addresses: ['192.0.2.3'] });
    emulator.controls.update({ faults: 'lost=1,methods=POST' });
    await expect(live.create(liveContext(client), { name: 'twin', ip_addresses: ['192.0.2.3'] })).rejects.toThrow(
      /^the answer to creating TrunkIpAcl "twin" was lost and 3 objects with that name exist/,
    );
  });
});
