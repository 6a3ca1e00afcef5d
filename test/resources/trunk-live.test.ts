import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { diffSpecs } from '../../src/engine/diff.js';
import type { LiveObject, LiveSide } from '../../src/resources/live-side.js';
import { normaliseOriginationUri } from '../../src/resources/origination-uri.js';
import { normaliseTrunk } from '../../src/resources/trunk.js';
import {
  diffRulesOf,
  kindNamed,
  manifestSpec,
  requestLines,
  startLiveFixture,
  type LiveFixture,
} from './live-fixture.js';

const uriKind = kindNamed('OriginationUri');
const trunkKind = kindNamed('Trunk');
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

async function makeUri(name: string): Promise<string> {
  return (
    await uriKind.live.create(fixture.context, { name, uri: `${name}.example.com`, authentication_needed: false })
  ).id;
}

describe('OriginationUri live side', () => {
  const live = uriKind.live;

  it('creates a URI with authentication, normalised to exactly the manifest spec', async () => {
    const desired = await manifestSpec('OriginationUri', 'pbx-primary', {
      uri: 'sip:pbx@pbx.example.com:5060;transport=tls',
      authentication_needed: true,
      username: 'inbound',
      password: { fromFile: 'uri-password.txt' },
    });
    const { id } = await live.create(fixture.context, { ...desired, password: 'uri-pass-1' });
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({
      id,
      spec: {
        name: 'pbx-primary',
        uri: 'sip:pbx@pbx.example.com:5060;transport=tls',
        authentication_needed: true,
        username: 'inbound',
      },
    });
    expect(await readLive(live, id)).toEqual(listed);
    expect(diffSpecs(listed?.spec ?? {}, desired, diffRulesOf(uriKind))).toEqual({ patch: [], changedFields: [] });
  });

  it('normalises a URI without authentication to the manifest defaults', async () => {
    const desired = await manifestSpec('OriginationUri', 'plain', { uri: '192.0.2.50:5080' });
    const { id } = await live.create(fixture.context, desired);
    expect((await readLive(live, id)).spec).toEqual({
      name: 'plain',
      uri: '192.0.2.50:5080',
      authentication_needed: false,
    });
    expect(diffSpecs((await readLive(live, id)).spec, desired, diffRulesOf(uriKind)).patch).toEqual([]);
  });

  it('turns authentication off and on again, sending the password the API needs to turn it on', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'toggle',
      uri: 'toggle.example.com',
      authentication_needed: true,
      username: 'u1',
      password: 'p-1',
    });
    const on = await readLive(live, id);
    const off = { name: 'toggle', uri: 'toggle.example.com', authentication_needed: false };
    await live.update(fixture.context, {
      id,
      desired: off,
      live: on,
      changedFields: diffSpecs(on.spec, off, diffRulesOf(uriKind)).changedFields,
      secretFields: [],
    });
    expect((await readLive(live, id)).spec).toEqual(off);
    const current = await readLive(live, id);
    const again = { ...off, authentication_needed: true, username: 'u1', password: 'p-1' };
    fixture.httpLog.length = 0;
    const { changedFields } = diffSpecs(current.spec, again, diffRulesOf(uriKind));
    expect(changedFields).toEqual(['authentication_needed', 'username']);
    await live.update(fixture.context, { id, desired: again, live: current, changedFields, secretFields: [] });
    expect(fixture.httpLog[0]).toBe(
      `http → POST ${fixture.base}/Zentrunk/URI/${id}/ {"authentication_needed":true,"username":"u1","password":"(sensitive)"}`,
    );
    expect((await readLive(live, id)).spec).toEqual({
      name: 'toggle',
      uri: 'toggle.example.com',
      authentication_needed: true,
      username: 'u1',
    });
  });

  it('deletes idempotently; a URI a trunk uses breaks its calls', async () => {
    const id = await makeUri('to-delete');
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
    expect(live.whenInUse).toBe('breaks_calls');
  });

  it('leaves out a username returned without authentication', () => {
    expect(
      normaliseOriginationUri({ uri_uuid: 'u', name: 'n', uri: 'h', authentication_needed: false, username: 'stale' }),
    ).toEqual({
      id: 'u',
      spec: { name: 'n', uri: 'h', authentication_needed: false },
    });
  });
});

describe('Trunk live side', () => {
  const live = trunkKind.live;

  it('creates an outbound trunk normalised to exactly the manifest spec, with literal ids', async () => {
    const acl = await fixture.client.request<{ ipacl_uuid: string }>('POST', '/Zentrunk/IPAccessControlList/', {
      body: { ip_addresses: ['192.0.2.1'] },
      mode: 'create',
    });
    const desired = await manifestSpec('Trunk', 'pbx-out', {
      trunk_direction: 'outbound',
      ipacl_uuid: acl.body.ipacl_uuid,
    });
    const { id } = await live.create(fixture.context, desired);
    expect(id).toMatch(/^\d{17}$/);
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({
      id,
      spec: {
        name: 'pbx-out',
        trunk_direction: 'outbound',
        trunk_status: 'enabled',
        secure: false,
        ipacl_uuid: acl.body.ipacl_uuid,
      },
      facts: { numbers: 0 },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(await readLive(live, id)).toEqual(listed);
    expect(diffSpecs(listed?.spec ?? {}, desired, diffRulesOf(trunkKind))).toEqual({ patch: [], changedFields: [] });
    expect(fixture.httpLog.find((line) => line.startsWith(`http → POST ${fixture.base}/Zentrunk/Trunk/`))).toBe(
      `http → POST ${fixture.base}/Zentrunk/Trunk/ {"name":"pbx-out","trunk_direction":"outbound","trunk_status":"enabled","secure":false,"ipacl_uuid":"${acl.body.ipacl_uuid}"}`,
    );
  });

  it('counts the phone numbers attached to an inbound trunk', async () => {
    const primary = await makeUri('count-primary');
    const { id } = await live.create(fixture.context, {
      name: 'pbx-in',
      trunk_direction: 'inbound',
      trunk_status: 'enabled',
      secure: true,
      primary_uri_uuid: primary,
    });
    await fixture.seedNumber('14155550101', id);
    await fixture.seedNumber('14155550102', id);
    await fixture.seedNumber('14155550103', '77700000000000001');
    expect((await readLive(live, id)).facts).toEqual({ numbers: 2 });
    expect((await live.list(fixture.context)).find((object) => object.id === id)?.facts).toEqual({ numbers: 2 });
    expect(live.whenInUse).toBe('breaks_calls');
  });

  it('updates only what changed, clearing a dropped fallback URI with ""', async () => {
    const primary = await makeUri('upd-primary');
    const fallback = await makeUri('upd-fallback');
    const { id } = await live.create(fixture.context, {
      name: 'upd-in',
      trunk_direction: 'inbound',
      trunk_status: 'enabled',
      secure: false,
      primary_uri_uuid: primary,
      fallback_uri_uuid: fallback,
    });
    const current = await readLive(live, id);
    const desired = {
      name: 'upd-in',
      trunk_direction: 'inbound',
      trunk_status: 'disabled',
      secure: false,
      primary_uri_uuid: primary,
    };
    const { changedFields } = diffSpecs(current.spec, desired, diffRulesOf(trunkKind));
    expect(changedFields).toEqual(['fallback_uri_uuid', 'trunk_status']);
    fixture.httpLog.length = 0;
    fixture.mark();
    await live.update(fixture.context, { id, desired, live: current, changedFields, secretFields: [] });
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual([`POST /Zentrunk/Trunk/${id}/`]);
    expect(fixture.httpLog[0]).toBe(
      `http → POST ${fixture.base}/Zentrunk/Trunk/${id}/ {"fallback_uri_uuid":"","trunk_status":"disabled"}`,
    );
    expect((await readLive(live, id)).spec).toEqual(desired);
  });

  it('turns an outbound trunk into an inbound one in one update', async () => {
    const acl = await fixture.client.request<{ ipacl_uuid: string }>('POST', '/Zentrunk/IPAccessControlList/', {
      body: { ip_addresses: ['192.0.2.3'] },
      mode: 'create',
    });
    const primary = await makeUri('turn-primary');
    const { id } = await live.create(fixture.context, {
      name: 'turn',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: true,
      ipacl_uuid: acl.body.ipacl_uuid,
    });
    const current = await readLive(live, id);
    const desired = {
      name: 'turn',
      trunk_direction: 'inbound',
      trunk_status: 'enabled',
      secure: false,
      primary_uri_uuid: primary,
    };
    const { changedFields } = diffSpecs(current.spec, desired, diffRulesOf(trunkKind));
    await live.update(fixture.context, { id, desired, live: current, changedFields, secretFields: [] });
    expect((await readLive(live, id)).spec).toEqual(desired);
  });

  it('deletes idempotently', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'bye',
      trunk_direction: 'inbound',
      primary_uri_uuid: await makeUri('bye-primary'),
    });
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
  });

  it('normalises case and the fields of the other direction; a defaulted field it does not give is unknown', () => {
    expect(
      normaliseTrunk(
        {
          trunk_id: '1',
          name: '',
          trunk_direction: 'Outbound',
          trunk_status: 'ENABLED',
          secure: null,
          ipacl_uuid: 'a',
          credential_uuid: '',
          primary_uri_uuid: 'stale',
          fallback_uri_uuid: null,
          trunk_domain: '1.zt.plivo.com',
        },
        0,
      ),
    ).toEqual({
      id: '1',
      // `secure: null` says nothing: unknown (unread), never the schema's default.
      spec: { trunk_direction: 'outbound', trunk_status: 'enabled', ipacl_uuid: 'a' },
      unread: ['secure'],
      facts: { numbers: 0 },
    });
  });
});

describe('Trunk GET shapes', () => {
  it('reads a trunk served flat as well as under `object`', async () => {
    const flat = await startLiveFixture({ trunkGetShape: 'flat' });
    try {
      const primary = (
        await uriKind.live.create(flat.context, {
          name: 'flat-primary',
          uri: 'flat.example.com',
          authentication_needed: false,
        })
      ).id;
      const { id } = await trunkKind.live.create(flat.context, {
        name: 'flat',
        trunk_direction: 'inbound',
        primary_uri_uuid: primary,
      });
      expect(await trunkKind.live.read(flat.context, id)).toEqual({
        id,
        spec: {
          name: 'flat',
          trunk_direction: 'inbound',
          trunk_status: 'enabled',
          secure: false,
          primary_uri_uuid: primary,
        },
        facts: { numbers: 0 },
        createdAt: expect.any(String),
      });
    } finally {
      await flat.close();
    }
  });
});
