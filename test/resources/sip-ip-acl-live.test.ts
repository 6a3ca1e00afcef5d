import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/api/errors.js';
import { diffSpecs } from '../../src/engine/diff.js';
import type { LiveObject } from '../../src/resources/live-side.js';
import { normaliseSipIpAcl } from '../../src/resources/sip-ip-acl.js';
import {
  diffRulesOf,
  kindNamed,
  manifestSpec,
  requestLines,
  startLiveFixture,
  type LiveFixture,
} from './live-fixture.js';

const kind = kindNamed('SipIpAcl');
const live = kind.live;
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

async function readLive(id: string): Promise<LiveObject> {
  const object = await live.read(fixture.context, id);
  if (!object) throw new Error(`ACL ${id} not found`);
  return object;
}

/** Runs the update the planner would ask for, from the live object to `desired`. */
async function updateTo(id: string, desired: Record<string, unknown>): Promise<string[]> {
  const current = await readLive(id);
  const { changedFields } = diffSpecs(current.spec, desired, diffRulesOf(kind));
  fixture.mark();
  await live.update(fixture.context, { id, desired, live: current, changedFields, secretFields: [] });
  return requestLines(fixture.requestsSinceMark(), fixture.base).map((line) =>
    line.replace(id, '{acl}').replace(/Entry\/[0-9a-f-]+\//, 'Entry/{entry}/'),
  );
}

describe('SipIpAcl live side', () => {
  it('creates a list with its entries in one request, normalised to exactly the manifest spec', async () => {
    const desired = await manifestSpec('SipIpAcl', 'office', {
      entries: [{ ip: '203.0.113.10' }, { ip: '198.51.100.0', cidr_prefix: 24, description: 'branch' }],
    });
    const { id } = await live.create(fixture.context, desired);
    expect(requestLines(fixture.requestsSinceMark(), fixture.base)).toEqual(['POST /SipAuth/IpAccessControlList/']);
    const listed = (await live.list(fixture.context)).find((object) => object.id === id);
    expect(listed).toEqual({
      id,
      spec: {
        name: 'office',
        entries: [
          { ip: '203.0.113.10', cidr_prefix: 32 },
          { ip: '198.51.100.0', cidr_prefix: 24, description: 'branch' },
        ],
      },
    });
    expect(await readLive(id)).toEqual(listed);
    expect(diffSpecs(listed?.spec ?? {}, desired, diffRulesOf(kind))).toEqual({ patch: [], changedFields: [] });
  });

  it('creates a list without entries', async () => {
    const desired = await manifestSpec('SipIpAcl', 'empty-list', {});
    const { id } = await live.create(fixture.context, desired);
    expect((await readLive(id)).spec).toEqual({ name: 'empty-list', entries: [] });
  });

  it('renames with the list update and touches no entry', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'to-rename',
      entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }],
    });
    expect(await updateTo(id, { name: 'renamed', entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }] })).toEqual([
      'POST /SipAuth/IpAccessControlList/{acl}/',
    ]);
    expect((await readLive(id)).spec).toEqual({ name: 'renamed', entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }] });
  });

  it('adds one entry as one patch operation and one request', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'add-one',
      entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }],
    });
    const desired = {
      name: 'add-one',
      entries: [
        { ip: '192.0.2.1', cidr_prefix: 32 },
        { ip: '192.0.2.2', cidr_prefix: 32 },
      ],
    };
    const { patch } = diffSpecs((await readLive(id)).spec, desired, diffRulesOf(kind));
    expect(patch).toEqual([{ op: 'add', path: '/entries/192.0.2.2~132', value: { ip: '192.0.2.2', cidr_prefix: 32 } }]);
    expect(await updateTo(id, desired)).toEqual([
      'GET /SipAuth/IpAccessControlList/{acl}/',
      'POST /SipAuth/IpAccessControlList/{acl}/Entry/',
    ]);
    expect(diffSpecs((await readLive(id)).spec, desired, diffRulesOf(kind)).patch).toEqual([]);
  });

  it('removes one entry with one delete', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'remove-one',
      entries: [
        { ip: '192.0.2.1', cidr_prefix: 32 },
        { ip: '192.0.2.2', cidr_prefix: 32 },
      ],
    });
    const desired = { name: 'remove-one', entries: [{ ip: '192.0.2.2', cidr_prefix: 32 }] };
    expect(await updateTo(id, desired)).toEqual([
      'GET /SipAuth/IpAccessControlList/{acl}/',
      'DELETE /SipAuth/IpAccessControlList/{acl}/Entry/{entry}/',
    ]);
    expect((await readLive(id)).spec).toEqual(desired);
  });

  it('changes a description by adding the new entry before removing the old one', async () => {
    const { id } = await live.create(fixture.context, {
      name: 'describe',
      entries: [{ ip: '192.0.2.1', cidr_prefix: 32, description: 'old' }],
    });
    const desired = { name: 'describe', entries: [{ ip: '192.0.2.1', cidr_prefix: 32, description: 'new' }] };
    expect(await updateTo(id, desired)).toEqual([
      'GET /SipAuth/IpAccessControlList/{acl}/',
      'POST /SipAuth/IpAccessControlList/{acl}/Entry/',
      'DELETE /SipAuth/IpAccessControlList/{acl}/Entry/{entry}/',
    ]);
    expect((await readLive(id)).spec).toEqual(desired);
  });

  it('removes first when the 50-entry cap leaves no room to add first', async () => {
    const full = Array.from({ length: 50 }, (_, index) => ({ ip: `10.0.0.${index + 1}`, cidr_prefix: 32 }));
    const { id } = await live.create(fixture.context, { name: 'full', entries: full });
    const desired = { name: 'full', entries: [...full.slice(1), { ip: '10.0.1.1', cidr_prefix: 32 }] };
    expect(await updateTo(id, desired)).toEqual([
      'GET /SipAuth/IpAccessControlList/{acl}/',
      'DELETE /SipAuth/IpAccessControlList/{acl}/Entry/{entry}/',
      'POST /SipAuth/IpAccessControlList/{acl}/Entry/',
    ]);
    expect(diffSpecs((await readLive(id)).spec, desired, diffRulesOf(kind)).patch).toEqual([]);
  });

  it('looks for an entry whose add answer was lost instead of adding it twice', async () => {
    const { id } = await live.create(fixture.context, { name: 'lost-entry', entries: [] });
    fixture.emulator.controls.update({ faults: 'lost=1,methods=POST,seed=3' });
    const lines = await updateTo(id, { name: 'lost-entry', entries: [{ ip: '192.0.2.9', cidr_prefix: 32 }] });
    fixture.emulator.controls.clear();
    expect(lines).toEqual([
      'GET /SipAuth/IpAccessControlList/{acl}/',
      'POST /SipAuth/IpAccessControlList/{acl}/Entry/',
      'GET /SipAuth/IpAccessControlList/{acl}/',
    ]);
    expect((await readLive(id)).spec).toEqual({ name: 'lost-entry', entries: [{ ip: '192.0.2.9', cidr_prefix: 32 }] });
  });

  it('deletes idempotently and surfaces the 409 of a list still assigned to an application', async () => {
    const { id } = await live.create(fixture.context, { name: 'assigned', entries: [] });
    await fixture.client.request('POST', '/Application/77700000000000003/', {
      body: { sip_auth_type: 'ip_acl', ip_acl_uuid: id },
    });
    const failure = await live.delete(fixture.context, id, undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiRequestError);
    expect((failure as ApiRequestError).apiMessage).toBe(
      'This IP access control list is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.',
    );
    await fixture.client.request('POST', '/Application/77700000000000003/', { body: { sip_auth_type: '' } });
    await live.delete(fixture.context, id, undefined);
    await live.delete(fixture.context, id, undefined);
    expect(await live.read(fixture.context, id)).toBeUndefined();
  });

  it('normalises entries without an id and without empty descriptions; a prefix left out leaves the entries unknown', () => {
    expect(
      normaliseSipIpAcl({
        ip_acl_uuid: 'a1',
        name: 'n',
        entries: [{ entry_id: 'e1', ip: '192.0.2.1', cidr_prefix: 32, description: '' }],
        resource_uri: '/v1/Account/X/SipAuth/IpAccessControlList/a1/',
      }),
    ).toEqual({ id: 'a1', spec: { name: 'n', entries: [{ ip: '192.0.2.1', cidr_prefix: 32 }] } });
    // Not the schema's default (a single address): unknown, compared with what telform applied.
    expect(
      normaliseSipIpAcl({
        ip_acl_uuid: 'a1',
        name: 'n',
        entries: [{ entry_id: 'e1', ip: '192.0.2.1', cidr_prefix: null, description: '' }],
      }),
    ).toEqual({ id: 'a1', spec: { name: 'n' }, unread: ['entries'] });
  });
});
