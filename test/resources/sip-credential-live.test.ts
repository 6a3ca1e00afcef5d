import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/api/errors.js';
import { diffSpecs } from '../../src/engine/diff.js';
import { normaliseSipCredential } from '../../src/resources/sip-credential.js';
import {
  diffRulesOf,
  kindNamed,
  manifestSpec,
  requestLines,
  startLiveFixture,
  type LiveFixture,
} from './live-fixture.js';

const kind = kindNamed('SipCredential');
const live = kind.live;
const password = 'Sip-Pass-Word-2024';
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
});

describe('SipCredential live side', () => {
  it('creates, lists and reads a credential normalised to exactly the manifest spec', async () => {
    const { id } = await live.create(fixture.context, { username: 'alice.pbx', password });
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({ id, spec: { username: 'alice.pbx' } });
    expect(await live.read(fixture.context, id)).toEqual(listed);
    const desired = await manifestSpec('SipCredential', 'alice', {
      username: 'alice.pbx',
      password: { fromEnv: 'ALICE_PASSWORD' },
    });
    expect(diffSpecs(listed?.spec ?? {}, desired, diffRulesOf(kind))).toEqual({ patch: [], changedFields: [] });
    expect(live.naturalKey(desired)).toBe(live.naturalKey(listed?.spec ?? {}));
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)[0]).toBe('POST /SipAuth/Credential/');
  });

  it('reads a credential that does not exist as undefined', async () => {
    expect(await live.read(fixture.context, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('updates the password only when it is to be set, sending nothing else', async () => {
    const { id } = await live.create(fixture.context, { username: 'bob-pbx', password });
    const current = await live.read(fixture.context, id);
    if (!current) throw new Error('created credential not found');
    fixture.mark();
    const request = {
      id,
      desired: { username: 'bob-pbx', password: 'Another-Pass-99' },
      live: current,
      changedFields: [],
    };
    await live.update(fixture.context, { ...request, secretFields: [] });
    expect(fixture.requestsSinceMark()).toEqual([]);
    fixture.httpLog.length = 0;
    await live.update(fixture.context, { ...request, secretFields: ['password'] });
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual([`POST /SipAuth/Credential/${id}/`]);
    expect(fixture.httpLog[0]).toBe(`http → POST ${fixture.base}/SipAuth/Credential/${id}/ {"password":"(sensitive)"}`);
  });

  it('says, as data, that a new username replaces the credential and the old can live meanwhile', () => {
    expect(live.fields.replaceOn).toEqual(['username']);
    expect(live.replaceStrategy).toBe('create_before_delete');
    expect(live.whenInUse).toBe('needs_unassign');
  });

  it('deletes idempotently: a credential already gone is done', async () => {
    const { id } = await live.create(fixture.context, { username: 'carol-pbx', password });
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
    expect(
      requestLines(fixture.requestsSinceMark(), fixture.base).filter((line) => line.startsWith('DELETE')),
    ).toHaveLength(2);
  });

  it('surfaces the API message of a 409 when the credential is still assigned to an application', async () => {
    const { id } = await live.create(fixture.context, { username: 'dave-pbx', password });
    await fixture.client.request('POST', '/Application/77700000000000002/', {
      body: { sip_auth_type: 'credential', credential_uuid: id },
    });
    const failure = await live.delete(fixture.context, id, undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect((failure as ApiRequestError).status).toBe(409);
    expect((failure as ApiRequestError).apiMessage).toBe(
      'This credential is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.',
    );
    expect((failure as Error).message).toBe(
      `the API answered 409 to DELETE /SipAuth/Credential/${id}/: This credential is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.`,
    );
    await fixture.client.request('POST', '/Application/77700000000000002/', { body: { sip_auth_type: '' } });
  });

  it('adopts the credential a create made when its answer was lost, and never makes a second one', async () => {
    fixture.emulator.controls.update({ faults: 'lost=1,methods=POST,seed=1' });
    const { id } = await live.create(fixture.context, { username: 'erin-pbx', password });
    fixture.emulator.controls.clear();
    const matching = (await live.list(fixture.context)).filter((object) => object.spec['username'] === 'erin-pbx');
    expect(matching.map((object) => object.id)).toEqual([id]);
    expect(requestLines(fixture.requestsSinceMark(), fixture.base).filter((line) => line.startsWith('POST'))).toEqual([
      'POST /SipAuth/Credential/',
    ]);
  });

  it('takes over a credential whose username exists (409), setting the manifest password on it', async () => {
    const first = await live.create(fixture.context, { username: 'grace-pbx', password });
    fixture.mark();
    fixture.httpLog.length = 0;
    expect(await live.create(fixture.context, { username: 'grace-pbx', password: 'Other-Pass-77' })).toEqual(first);
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual([
      'POST /SipAuth/Credential/',
      'GET /SipAuth/Credential/',
      `POST /SipAuth/Credential/${first.id}/`,
    ]);
    expect(fixture.httpLog.filter((line) => line.startsWith('http →')).at(-1)).toBe(
      `http → POST ${fixture.base}/SipAuth/Credential/${first.id}/ {"password":"(sensitive)"}`,
    );
  });

  it('normalises an empty username as absent', () => {
    expect(normaliseSipCredential({ credential_uuid: 'c1', username: '', realm: 'app.plivo.com' })).toEqual({
      id: 'c1',
      spec: {},
    });
  });
});
