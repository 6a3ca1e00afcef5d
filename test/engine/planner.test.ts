import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import type { LiveObject } from '../../src/resources/live-side.js';
import { aclKind, brandKind, campaignKind, desired, ledgerWith, live, planInputs, trunkKind } from './builders.js';
import { kindsByName } from '../../src/engine/kinds.js';

const acl = desired('TrunkIpAcl', 'office', { name: 'office', ip_addresses: ['203.0.113.10'] });
const trunk = desired('Trunk', 'pbx-out', {
  name: 'pbx-out',
  trunk_direction: 'outbound',
  secure: false,
  ipacl_uuid: { ref: 'office' },
});

function actions(plan: ReturnType<typeof buildPlan>) {
  return plan.changes.map((change) => [change.address, change.action]);
}

describe('buildPlan', () => {
  it('creates what does not exist, ACL before trunk, the trunk depending on the ACL', () => {
    const plan = buildPlan(planInputs({ desired: [trunk, acl] }));
    expect(actions(plan)).toEqual([
      ['TrunkIpAcl/office', 'create'],
      ['Trunk/pbx-out', 'create'],
    ]);
    expect(plan.changes[1]?.depends_on).toEqual(['TrunkIpAcl/office']);
    expect(plan.summary).toMatchObject({ create: 2, update: 0, api_requests: 2 });
  });

  it('plans nothing when the account matches, reading ids back as refs', () => {
    const plan = buildPlan(
      planInputs({
        desired: [acl, trunk],
        live: new Map([
          ['TrunkIpAcl', [live('acl-1', { name: 'office', ip_addresses: ['203.0.113.10'] })]],
          [
            'Trunk',
            [
              live('t-1', {
                name: 'pbx-out',
                trunk_direction: 'outbound',
                secure: false,
                ipacl_uuid: 'acl-1',
                fallback_uri_uuid: null,
              }),
            ],
          ],
        ]),
        ledger: ledgerWith([
          { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec },
          { kind: 'Trunk', name: 'pbx-out', id: 't-1', spec: trunk.spec },
        ]),
      }),
    );
    expect(actions(plan)).toEqual([
      ['TrunkIpAcl/office', 'noop'],
      ['Trunk/pbx-out', 'noop'],
    ]);
    expect(plan.summary.api_requests).toBe(0);
  });

  it('adopts an object with the same name that nobody owns', () => {
    const plan = buildPlan(
      planInputs({
        desired: [acl],
        live: new Map([['TrunkIpAcl', [live('acl-9', { name: 'office', ip_addresses: ['203.0.113.10'] })]]]),
      }),
    );
    expect(actions(plan)).toEqual([['TrunkIpAcl/office', 'adopt']]);
    expect(plan.changes[0]).toHaveProperty('id', 'acl-9');
  });

  it('updates in place with a one-operation patch and tells drift from manifest changes', () => {
    const liveAcl = live('acl-1', { name: 'office', ip_addresses: ['203.0.113.10'] });
    const changed = desired('TrunkIpAcl', 'office', { name: 'office', ip_addresses: ['203.0.113.10', '203.0.113.11'] });
    const manifestOnly = buildPlan(
      planInputs({
        desired: [changed],
        live: new Map([['TrunkIpAcl', [liveAcl]]]),
        ledger: ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec }]),
      }),
    );
    expect(manifestOnly.changes[0]).toMatchObject({
      action: 'update',
      patch: [{ op: 'add', path: '/ip_addresses/203.0.113.11', value: '203.0.113.11' }],
    });
    expect(manifestOnly.changes[0]?.drifted).toBeUndefined();

    const outOfBand = buildPlan(
      planInputs({
        desired: [acl],
        live: new Map([['TrunkIpAcl', [live('acl-1', { name: 'office', ip_addresses: ['198.51.100.1'] })]]]),
        ledger: ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec }]),
      }),
    );
    expect(outOfBand.changes[0]).toMatchObject({ action: 'update', drifted: true });
  });

  it('recreates an owned object deleted outside telform, flagged as drift', () => {
    const plan = buildPlan(
      planInputs({
        desired: [acl],
        live: new Map([['TrunkIpAcl', []]]),
        fetchedById: new Map([['TrunkIpAcl/office', null]]),
        ledger: ledgerWith([{ kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec }]),
      }),
    );
    expect(plan.changes[0]).toMatchObject({ action: 'create', drifted: true });
    expect(plan.changes[0]?.reasons[0]).toBe(
      'was deleted outside telform (id acl-1 is gone); it will be created again',
    );
  });

  it('deletes what left the manifests after whatever still used it is re-pointed, flagging broken auth for unmanaged users', () => {
    const newAcl = desired('TrunkIpAcl', 'new-office', { name: 'new-office', ip_addresses: ['203.0.113.12'] });
    const repointed = desired('Trunk', 'pbx-out', { ...trunk.spec, ipacl_uuid: { ref: 'new-office' } });
    const plan = buildPlan(
      planInputs({
        desired: [newAcl, repointed],
        live: new Map([
          ['TrunkIpAcl', [live('acl-1', { name: 'office', ip_addresses: ['203.0.113.10'] })]],
          [
            'Trunk',
            [
              live('t-1', { ...trunk.spec, ipacl_uuid: 'acl-1' }),
              live('t-2', { name: 'hand-made', trunk_direction: 'outbound', ipacl_uuid: 'acl-1' }),
            ],
          ],
        ]),
        ledger: ledgerWith([
          { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl.spec },
          { kind: 'Trunk', name: 'pbx-out', id: 't-1', spec: trunk.spec },
        ]),
      }),
    );
    expect(actions(plan)).toEqual([
      ['TrunkIpAcl/new-office', 'create'],
      ['Trunk/pbx-out', 'update'],
      ['TrunkIpAcl/office', 'delete'],
    ]);
    const deletion = plan.changes[2];
    expect(deletion?.depends_on).toEqual(['Trunk/pbx-out']);
    expect(deletion?.flags.breaks_auth).toBe(true);
    expect(deletion?.reasons).toContain('still used by Trunk t-2');
    expect(plan.unmanaged).toEqual([{ kind: 'Trunk', id: 't-2', name: 'hand-made', prune: false }]);
  });

  it('refuses to guess between two live objects with the same name', () => {
    expect(() =>
      buildPlan(
        planInputs({
          desired: [acl],
          live: new Map([['TrunkIpAcl', [live('a', { name: 'office' }), live('b', { name: 'office' })]]]),
        }),
      ),
    ).toThrow('2 live objects match TrunkIpAcl/office by name (a, b)');
  });

  it('blocks brand changes, makes campaigns wait for a brand under review, and bills failed-campaign updates', () => {
    const brand = desired('Brand', 'acme', { profile_uuid: 'p1', brand_alias: 'acme-renamed' });
    const campaign = desired('Campaign', 'alerts', {
      brand_id: { ref: 'acme' },
      campaign_alias: 'alerts',
      description: 'new',
      usecase: 'MIXED',
    });
    const pending = buildPlan(
      planInputs({
        desired: [brand, campaign],
        live: new Map([
          [
            'Brand',
            [
              live(
                'B1',
                { profile_uuid: 'p1', brand_alias: 'acme' },
                { registry: { registration_status: 'PROCESSING' } },
              ),
            ],
          ],
          ['Campaign', []],
        ]),
        ledger: ledgerWith([
          { kind: 'Brand', name: 'acme', id: 'B1', spec: { profile_uuid: 'p1', brand_alias: 'acme' } },
        ]),
      }),
    );
    expect(actions(pending)).toEqual([
      ['Brand/acme', 'blocked'],
      ['Campaign/alerts', 'wait'],
    ]);
    expect(pending.changes[0]?.reasons[0]).toBe(
      'brand_alias cannot be changed on an existing Brand (the API has no update for it); delete it or revert the manifest',
    );

    const failedCampaign = buildPlan(
      planInputs({
        desired: [desired('Brand', 'acme', { profile_uuid: 'p1', brand_alias: 'acme' }), campaign],
        live: new Map([
          [
            'Brand',
            [
              live(
                'B1',
                { profile_uuid: 'p1', brand_alias: 'acme' },
                { registry: { registration_status: 'COMPLETED' } },
              ),
            ],
          ],
          [
            'Campaign',
            [
              live(
                'C1',
                { brand_id: 'B1', campaign_alias: 'alerts', description: 'old', usecase: 'MIXED' },
                {
                  registry: { registration_status: 'FAILED', error_code: '1001', error_reason: 'bad sample' },
                },
              ),
            ],
          ],
        ]),
      }),
    );
    expect(failedCampaign.changes[1]).toMatchObject({ action: 'update', flags: { billable_usd: 15 } });
    expect(failedCampaign.summary.cost_usd).toBe(15);
    expect(failedCampaign.warnings).toContain('Campaign/alerts was declined by the registry (1001: bad sample)');
  });

  it('replaces a campaign whose use case changed, irreversibly, creating the new one first', () => {
    const plan = buildPlan(
      planInputs({
        desired: [desired('Campaign', 'alerts', { brand_id: 'B1', campaign_alias: 'alerts', usecase: '2FA' })],
        live: new Map([
          [
            'Campaign',
            [
              live(
                'C1',
                { brand_id: 'B1', campaign_alias: 'alerts', usecase: 'MIXED' },
                { registry: { registration_status: 'ACTIVE' } },
              ),
            ],
          ],
        ]),
        ledger: ledgerWith([
          {
            kind: 'Campaign',
            name: 'alerts',
            id: 'C1',
            spec: { brand_id: 'B1', campaign_alias: 'alerts', usecase: 'MIXED' },
          },
        ]),
      }),
    );
    expect(plan.changes[0]).toMatchObject({
      action: 'replace',
      replace_strategy: 'create_before_delete',
      flags: { irreversible: true },
    });
    expect(plan.summary).toMatchObject({ replace: 1, irreversible: 1 });
  });

  it('deletes a brand together with its campaigns, campaigns first, without predicting a refusal', () => {
    const refusingBrand = {
      ...brandKind,
      live: {
        ...brandKind.live,
        deleteRefusal: (object: LiveObject, deletedFirst: ReadonlySet<string>) =>
          (object.facts?.activeCampaigns ?? []).some((id) => !deletedFirst.has(id))
            ? 'has active campaigns'
            : undefined,
      },
    };
    const plan = buildPlan(
      planInputs({
        kinds: kindsByName([aclKind, trunkKind, refusingBrand, campaignKind]),
        desired: [],
        live: new Map([
          ['Brand', [live('B1', { profile_uuid: 'p1' }, { facts: { activeCampaigns: ['C1'] } })]],
          ['Campaign', [live('C1', { brand_id: 'B1', campaign_alias: 'alerts' })]],
        ]),
        ledger: ledgerWith([
          { kind: 'Brand', name: 'acme', id: 'B1', spec: { profile_uuid: 'p1' } },
          { kind: 'Campaign', name: 'alerts', id: 'C1', spec: { brand_id: { ref: 'acme' }, campaign_alias: 'alerts' } },
        ]),
      }),
    );
    expect(actions(plan)).toEqual([
      ['Campaign/alerts', 'delete'],
      ['Brand/acme', 'delete'],
    ]);
    expect(plan.changes[1]?.depends_on).toEqual(['Campaign/alerts']);
  });

  it('lists unmanaged objects and deletes them only for --prune-unmanaged', () => {
    const liveModel = new Map([['TrunkIpAcl', [live('x1', { name: 'by-hand' })]]]);
    expect(buildPlan(planInputs({ desired: [], live: liveModel })).changes).toEqual([]);
    const pruned = buildPlan(
      planInputs({
        desired: [],
        live: liveModel,
        approvals: {
          allow_irreversible: [],
          max_cost_usd: null,
          force_deletes: false,
          allow_empty: true,
          prune_unmanaged: ['TrunkIpAcl'],
        },
      }),
    );
    expect(actions(pruned)).toEqual([['TrunkIpAcl/#x1', 'delete']]);
  });
});
