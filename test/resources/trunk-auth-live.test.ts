import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { diffSpecs } from '../../src/engine/diff.js';
import type { LiveObject, LiveSide } from '../../src/resources/live-side.js';
import { normaliseTrunkCredential } from '../../src/resources/trunk-credential.js';
import { normaliseTrunkIpAcl } from '../../src/resources/trunk-ip-acl.js';
import {
  diffRulesOf,
  kindNamed,
  manifestSpec,
  requestLines,
  startLiveFixture,
  type LiveFixture,
} from './live-fixture.js';

const credentialKind = kindNamed('TrunkCredential');
const aclKind = kindNamed('TrunkIpAcl');
let fixture: LiveFixture;

beforeAll(async () => {
  fixture = await startLiveFixture();
});
afterAll(async () => {
  await fixture.close();
});
beforeEach(() => {
  fixture.emulator.controls.clear();
  fixture.mark();
  fixture.httpLog.length = 0;
});

async function readLive(live: LiveSide, id: string): Promise<LiveObject> {
  const object = await live.read(fixture.context, id);
  if (!object) throw new Error(`${id} not found`);
  return object;
}

describe('TrunkCredential live side', () => {
  const live = credentialKind.live;

  it('creates, lists and reads a credential normalised to exactly the manifest spec', async () => {
    const desired = await manifestSpec('TrunkCredential', 'pbx-creds', {
      username: 'pbxuser01',
      password: { fromEnv: 'PBX_PASSWORD' },
    });
    const { id } = await live.create(fixture.context, { ...desired, password: 'S3cret!x' });
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({ id, spec: { name: 'pbx-creds', username: 'pbxuser01' } });
    expect(await readLive(live, id)).toEqual(listed);
    expect(diffSpecs(listed?.spec ?? {}, desired, diffRulesOf(credentialKind))).toEqual({
      patch: [],
      changedFields: [],
    });
    expect(fixture.httpLog[0]).toBe(
      `http → POST ${fixture.base}/Zentrunk/Credential/ {"name":"pbx-creds","username":"pbxuser01","password":"(sensitive)"}`,
    );
  });

  it('updates only the changed fields, and the password only when asked', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'upd-creds',
      username: 'pbxuser02',
      password: 'S3cret!x',
    });
    const current = await readLive(live, id);
    fixture.httpLog.length = 0;
    const desired = { name: 'upd-creds', username: 'pbxuser03', password: 'N3w!pass' };
    await live.update(fixture.context, { id, desired, live: current, changedFields: ['username'], secretFields: [] });
    await live.update(fixture.context, { id, desired, live: current, changedFields: [], secretFields: ['password'] });
    await live.update(fixture.context, { id, desired, live: current, changedFields: [], secretFields: [] });
    expect(fixture.httpLog.filter((line) => line.startsWith('http →'))).toEqual([
      `http → POST ${fixture.base}/Zentrunk/Credential/${id}/ {"username":"pbxuser03"}`,
      `http → POST ${fixture.base}/Zentrunk/Credential/${id}/ {"password":"(sensitive)"}`,
    ]);
    expect((await readLive(live, id)).spec).toEqual({ name: 'upd-creds', username: 'pbxuser03' });
  });

  it('deletes idempotently even while a trunk uses it (that breaks the trunk auth)', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'del-creds',
      username: 'pbxuser04',
      password: 'S3cret!x',
    });
    await fixture.client.request('POST', '/Zentrunk/Trunk/', {
      body: { name: 'uses-creds', trunk_direction: 'outbound', credential_uuid: id },
      mode: 'create',
    });
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
    expect(live.whenInUse).toBe('breaks_auth');
  });

  it('normalises an unnamed credential without a name', () => {
    expect(normaliseTrunkCredential({ credential_uuid: 'c', name: '', username: 'abcde' })).toEqual({
      id: 'c',
      spec: { username: 'abcde' },
    });
  });
});

describe('TrunkIpAcl live side', () => {
  const live = aclKind.live;

  it('creates, lists and reads an ACL normalised to exactly the manifest spec', async () => {
    const desired = await manifestSpec('TrunkIpAcl', 'office-pbx', {
      ip_addresses: ['203.0.113.10', '198.51.100.0/24'],
    });
    const { id } = await live.create(fixture.context, desired);
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({ id, spec: { name: 'office-pbx', ip_addresses: ['203.0.113.10', '198.51.100.0/24'] } });
    expect(await readLive(live, id)).toEqual(listed);
    const reordered = { ...desired, ip_addresses: ['198.51.100.0/24', '203.0.113.10'] };
    expect(diffSpecs(listed?.spec ?? {}, reordered, diffRulesOf(aclKind))).toEqual({ patch: [], changedFields: [] });
  });

  it('adds one address as one patch operation and one request replacing the whole list', async () => {
    const { id } = await live.create(fixture.context, { name: 'grow', ip_addresses: ['192.0.2.1'] });
    const current = await readLive(live, id);
    const desired = { name: 'grow', ip_addresses: ['192.0.2.1', '192.0.2.2'] };
    const diff = diffSpecs(current.spec, desired, diffRulesOf(aclKind));
    expect(diff.patch).toEqual([{ op: 'add', path: '/ip_addresses/192.0.2.2', value: '192.0.2.2' }]);
    fixture.mark();
    await live.update(fixture.context, {
      id,
      desired,
      live: current,
      changedFields: diff.changedFields,
      secretFields: [],
    });
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual([
      `POST /Zentrunk/IPAccessControlList/${id}/`,
    ]);
    expect(fixture.httpLog.at(-2)).toBe(
      `http → POST ${fixture.base}/Zentrunk/IPAccessControlList/${id}/ {"ip_addresses":["192.0.2.1","192.0.2.2"]}`,
    );
    expect((await readLive(live, id)).spec).toEqual(desired);
  });

  it('adopts the ACL a create made when its answer was lost', async () => {
    fixture.emulator.controls.update({ faults: 'lost=1,methods=POST,seed=5' });
    const { id } = await live.create(fixture.context, { name: 'lost-acl', ip_addresses: ['192.0.2.77'] });
    fixture.emulator.controls.clear();
    expect(
      (await live.list(fixture.context))
        .filter((object) => object.spec['name'] === 'lost-acl')
        .map((object) => object.id),
    ).toEqual([id]);
  });

  it('deletes idempotently', async () => {
    const { id } = await live.create(fixture.context, { name: 'gone', ip_addresses: ['192.0.2.1'] });
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
  });

  it('normalises an unnamed list and ignores members that are not strings', () => {
    expect(normaliseTrunkIpAcl({ ipacl_uuid: 'a', name: null, ip_addresses: ['192.0.2.1', 7] })).toEqual({
      id: 'a',
      spec: { ip_addresses: ['192.0.2.1'] },
    });
  });
});
