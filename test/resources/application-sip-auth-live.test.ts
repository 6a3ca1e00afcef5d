import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { diffSpecs } from '../../src/engine/diff.js';
import { normaliseApplicationSipAuth } from '../../src/resources/application-sip-auth.js';
import {
  diffRulesOf,
  kindNamed,
  manifestSpec,
  requestLines,
  startLiveFixture,
  type LiveFixture,
} from './live-fixture.js';

const kind = kindNamed('ApplicationSipAuth');
const live = kind.live;
let fixture: LiveFixture;
let credential: string;
let acl: string;

beforeAll(async () => {
  fixture = await startLiveFixture();
  credential = (
    await kindNamed('SipCredential').live.create(fixture.context, { username: 'app-user', password: 'App-Pass-1234' })
  ).id;
  acl = (await kindNamed('SipIpAcl').live.create(fixture.context, { name: 'app-acl', entries: [] })).id;
});
afterAll(async () => {
  await fixture.close();
});
beforeEach(async () => {
  fixture.emulator.controls.clear();
  for (const appId of ['77700000000000001', '77700000000000002', '77700000000000003']) {
    await fixture.client.request('POST', `/Application/${appId}/`, { body: { sip_auth_type: '' } });
  }
  fixture.mark();
  fixture.httpLog.length = 0;
});

describe('ApplicationSipAuth live side', () => {
  it('lists nothing while no application has SIP auth', async () => {
    expect(await live.list(fixture.context)).toEqual([]);
    expect(await live.read(fixture.context, '77700000000000001')).toBeUndefined();
  });

  it('assigns with one POST to the application, normalised to exactly the manifest spec', async () => {
    const desired = await manifestSpec('ApplicationSipAuth', 'pbx-auth', {
      app_id: '77700000000000001',
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: acl,
      credential_uuid: credential,
    });
    expect(await live.create(fixture.context, desired)).toEqual({ id: '77700000000000001' });
    expect(fixture.httpLog[0]).toBe(
      `http → POST ${fixture.base}/Application/77700000000000001/ {"sip_auth_type":"ip_acl_and_credential","ip_acl_uuid":"${acl}","credential_uuid":"${credential}"}`,
    );
    const listed = await live.list(fixture.context);
    expect(listed).toEqual([
      {
        id: '77700000000000001',
        spec: {
          app_id: '77700000000000001',
          sip_auth_type: 'ip_acl_and_credential',
          ip_acl_uuid: acl,
          credential_uuid: credential,
        },
      },
    ]);
    expect(await live.read(fixture.context, '77700000000000001')).toEqual(listed[0]);
    expect(diffSpecs(listed[0]?.spec ?? {}, desired, diffRulesOf(kind))).toEqual({ patch: [], changedFields: [] });
    expect(live.naturalKey(desired)).toBe('77700000000000001');
  });

  it('updates the type, sending "" for the id it no longer uses', async () => {
    await live.create(fixture.context, {
      app_id: '77700000000000002',
      sip_auth_type: 'ip_acl_and_credential',
      ip_acl_uuid: acl,
      credential_uuid: credential,
    });
    const current = await live.read(fixture.context, '77700000000000002');
    if (!current) throw new Error('binding not found');
    fixture.httpLog.length = 0;
    const desired = { app_id: '77700000000000002', sip_auth_type: 'credential', credential_uuid: credential };
    const { changedFields } = diffSpecs(current.spec, desired, diffRulesOf(kind));
    await live.update(fixture.context, {
      id: '77700000000000002',
      desired,
      live: current,
      changedFields,
      secretFields: [],
    });
    expect(fixture.httpLog[0]).toBe(
      `http → POST ${fixture.base}/Application/77700000000000002/ {"sip_auth_type":"credential","ip_acl_uuid":"","credential_uuid":"${credential}"}`,
    );
    expect((await live.read(fixture.context, '77700000000000002'))?.spec).toEqual(desired);
  });

  it('deletes by unassigning, after which the credential can be deleted', async () => {
    await live.create(fixture.context, {
      app_id: '77700000000000003',
      sip_auth_type: 'credential',
      credential_uuid: credential,
    });
    fixture.mark();
    await live.delete(fixture.context, '77700000000000003', undefined);
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual(['POST /Application/77700000000000003/']);
    expect(fixture.httpLog.at(-2)).toBe(
      `http → POST ${fixture.base}/Application/77700000000000003/ {"sip_auth_type":""}`,
    );
    expect(await live.read(fixture.context, '77700000000000003')).toBeUndefined();
    expect(await live.list(fixture.context)).toEqual([]);
  });

  it('treats the delete of a binding whose application is gone as done', async () => {
    await expect(live.delete(fixture.context, '99999999999999999', undefined)).resolves.toBeUndefined();
  });

  it('replaces on a new app_id, binding the new application before unbinding the old', () => {
    expect(live.fields.replaceOn).toEqual(['app_id']);
    expect(live.replaceStrategy).toBe('create_before_delete');
  });

  it('keeps only the ids the type uses, whatever the API shows for the others', () => {
    expect(
      normaliseApplicationSipAuth({ app_id: '1', sip_auth_type: 'ip_acl', ip_acl_uuid: 'a', credential_uuid: 'stale' }),
    ).toEqual({
      id: '1',
      spec: { app_id: '1', sip_auth_type: 'ip_acl', ip_acl_uuid: 'a' },
    });
    expect(normaliseApplicationSipAuth({ app_id: '1', sip_auth_type: null, ip_acl_uuid: 'a' })).toBeUndefined();
    expect(normaliseApplicationSipAuth({ app_id: '1', sip_auth_type: '', credential_uuid: '' })).toBeUndefined();
  });
});
