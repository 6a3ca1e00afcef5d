import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { plannerKinds } from '../../src/engine/kinds.js';
import { checkSafety } from '../../src/engine/safety.js';
import type { DesiredResource } from '../../src/engine/model.js';
import type { LiveObject } from '../../src/resources/live-side.js';
import { catalog } from '../../src/resources/index.js';
import { renderText } from '../../src/render/text.js';
import { desired, ledgerWith, live, noApprovals, planInputs } from './builders.js';

// The blast radius with the real kinds: numbers on trunks, ACLs on outbound trunks, campaign links.
const kinds = plannerKinds(catalog);
const uriA = '11111111-1111-4111-8111-111111111111';
const uriB = '22222222-2222-4222-8222-222222222222';
const aclId = '33333333-3333-4333-8333-333333333333';
const numbers = Array.from({ length: 37 }, (_, index) => `1512555${String(1000 + index)}`);

const inbound = (name: string, uri: string) => ({
  name,
  trunk_direction: 'inbound',
  trunk_status: 'enabled',
  secure: false,
  primary_uri_uuid: uri,
});
const uriSpec = (name: string, uri: string) => ({ name, uri, priority: 1, weight: 10 });

function attached(trunkId: string): LiveObject[] {
  return numbers.map((number) => live(number, { number, app_id: trunkId }, { facts: { attachment: 'trunk' } }));
}

/** Two inbound trunks (main, spare) managed with their URIs; the 37 numbers are on main. */
function account(desiredResources: DesiredResource[], phoneNumbers: LiveObject[] = attached('TRMAIN')) {
  const ledger = ledgerWith([
    { kind: 'OriginationUri', name: 'a', id: uriA, spec: uriSpec('a', 'a.example.com') },
    { kind: 'OriginationUri', name: 'b', id: uriB, spec: uriSpec('b', 'b.example.com') },
    { kind: 'Trunk', name: 'main', id: 'TRMAIN', spec: inbound('main', uriA) },
    { kind: 'Trunk', name: 'spare', id: 'TRSPARE', spec: inbound('spare', uriB) },
  ]);
  const liveModel = new Map<string, LiveObject[]>([
    ['OriginationUri', [live(uriA, uriSpec('a', 'a.example.com')), live(uriB, uriSpec('b', 'b.example.com'))]],
    [
      'Trunk',
      [
        live('TRMAIN', inbound('main', uriA), { facts: { numbers: 37 } }),
        live('TRSPARE', inbound('spare', uriB), { facts: { numbers: 0 } }),
      ],
    ],
    ['PhoneNumber', phoneNumbers],
  ]);
  return buildPlan(planInputs({ kinds, desired: desiredResources, live: liveModel, ledger }));
}

const uris = [
  desired('OriginationUri', 'a', uriSpec('a', 'a.example.com')),
  desired('OriginationUri', 'b', uriSpec('b', 'b.example.com')),
];
const spare = desired('Trunk', 'spare', { ...inbound('spare', uriB), primary_uri_uuid: { ref: 'b' } });
const main = desired('Trunk', 'main', { ...inbound('main', uriA), primary_uri_uuid: { ref: 'a' } });

describe('blast radius', () => {
  it('counts the 37 numbers on a deleted trunk, and apply refuses it without --max-numbers-affected', () => {
    const plan = account([...uris, spare]);
    const removed = plan.changes.find((change) => change.address === 'Trunk/main');
    expect(removed?.action).toBe('delete');
    expect(removed?.blast).toEqual({ calls: 37, messages: 0, numbers: 37, trunks: [], applications: [] });
    expect(plan.summary.blast_radius).toEqual({ calls: 37, messages: 0, numbers: 37, trunks: 0, applications: 0 });
    const text = renderText(plan, { color: false });
    expect(text).toContain('  #   traffic: breaks calls to 37 numbers\n');
    expect(text).toContain('\nBlast radius: breaks calls to 37 numbers.\n');
    const ledger = ledgerWith([]);
    const refused = checkSafety(plan, { ...noApprovals, force_deletes: true }, [...uris, spare], ledger);
    expect(refused.map((violation) => violation.message)).toEqual([
      'the plan breaks calls to 37 numbers and the approved maximum is 0; approve it with --max-numbers-affected 37',
    ]);
    expect(
      checkSafety(plan, { ...noApprovals, force_deletes: true, max_numbers_affected: 36 }, [...uris, spare], ledger),
    ).toHaveLength(1);
    expect(
      checkSafety(plan, { ...noApprovals, force_deletes: true, max_numbers_affected: 37 }, [...uris, spare], ledger),
    ).toEqual([]);
  });

  it('counts 0 when the same numbers are re-pointed to another inbound trunk first', () => {
    const repointed = numbers.map((number) =>
      desired('PhoneNumber', `n${number}`, { number, app_id: { ref: 'spare' } }),
    );
    const plan = account([...uris, spare, ...repointed]);
    expect(plan.changes.find((change) => change.address === 'Trunk/main')?.action).toBe('delete');
    expect(plan.changes.filter((change) => change.action === 'adopt' || change.action === 'update')).toHaveLength(37);
    expect(plan.changes.filter((change) => change.blast)).toEqual([]);
    expect(plan.summary.blast_radius).toEqual({ calls: 0, messages: 0, numbers: 0, trunks: 0, applications: 0 });
  });

  it('counts numbers whose trunk is disabled, or left with no origination URI', () => {
    const disabled = account([...uris, spare, { ...main, spec: { ...main.spec, trunk_status: 'disabled' } }]);
    expect(disabled.changes.find((change) => change.address === 'Trunk/main')?.blast?.calls).toBe(37);
    const uriGone = account([uris[1] as DesiredResource, spare, main]);
    // Deleting the URI the trunk answers with: the count goes to the URI's delete, not to the trunk.
    expect(uriGone.changes.find((change) => change.address === 'OriginationUri/a')?.blast?.calls).toBe(37);
    const withFallback = account([
      uris[1] as DesiredResource,
      spare,
      { ...main, spec: { ...main.spec, fallback_uri_uuid: { ref: 'b' } } },
    ]);
    expect(withFallback.summary.blast_radius?.calls).toBe(0);
  });

  it('counts a number detached by its own document, and a lost campaign link', () => {
    const numberLive = [
      live(
        '15125550101',
        { number: '15125550101', app_id: 'TRMAIN', campaign_id: 'CAAAAAA' },
        { facts: { attachment: 'trunk' } },
      ),
    ];
    const ledger = ledgerWith([
      {
        kind: 'PhoneNumber',
        name: 'one',
        id: '15125550101',
        spec: { number: '15125550101', app_id: 'TRMAIN', campaign_id: 'CAAAAAA' },
      },
    ]);
    const plan = buildPlan(planInputs({ kinds, desired: [], live: new Map([['PhoneNumber', numberLive]]), ledger }));
    expect(plan.changes.find((change) => change.address === 'PhoneNumber/one')?.blast).toEqual({
      calls: 1,
      messages: 1,
      numbers: 1,
      trunks: [],
      applications: [],
    });
  });

  it('counts an outbound trunk whose ACL loses an address it used', () => {
    const outbound = {
      name: 'out',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: true,
      ipacl_uuid: aclId,
    };
    const ledger = ledgerWith([
      {
        kind: 'TrunkIpAcl',
        name: 'office',
        id: aclId,
        spec: { name: 'office', ip_addresses: ['203.0.113.10', '203.0.113.11'] },
      },
      { kind: 'Trunk', name: 'out', id: 'TROUT', spec: outbound },
    ]);
    const liveModel = new Map<string, LiveObject[]>([
      ['TrunkIpAcl', [live(aclId, { name: 'office', ip_addresses: ['203.0.113.10', '203.0.113.11'] })]],
      ['Trunk', [live('TROUT', outbound)]],
    ]);
    const trunk = desired('Trunk', 'out', { ...outbound, ipacl_uuid: { ref: 'office' } });
    const shrink = buildPlan(
      planInputs({
        kinds,
        desired: [desired('TrunkIpAcl', 'office', { name: 'office', ip_addresses: ['203.0.113.10'] }), trunk],
        live: liveModel,
        ledger,
      }),
    );
    expect(shrink.changes.find((change) => change.address === 'TrunkIpAcl/office')?.blast).toEqual({
      calls: 0,
      messages: 0,
      numbers: 0,
      trunks: ['Trunk/out'],
      applications: [],
    });
    expect(renderText(shrink, { color: false })).toContain('Blast radius: 1 outbound trunk loses authentication.');
    const grow = buildPlan(
      planInputs({
        kinds,
        desired: [
          desired('TrunkIpAcl', 'office', {
            name: 'office',
            ip_addresses: ['203.0.113.10', '203.0.113.11', '203.0.113.12'],
          }),
          trunk,
        ],
        live: liveModel,
        ledger,
      }),
    );
    expect(grow.summary.blast_radius?.trunks).toBe(0);
  });
  it('finds nothing in a plan that changes nothing, and still judges a messaging link that names nothing', () => {
    const outbound = {
      name: 'out',
      trunk_direction: 'outbound',
      trunk_status: 'enabled',
      secure: true,
      ipacl_uuid: aclId,
    };
    const aclSpec = { name: 'office', ip_addresses: ['203.0.113.10'] };
    const ledger = ledgerWith([
      { kind: 'TrunkIpAcl', name: 'office', id: aclId, spec: aclSpec },
      { kind: 'Trunk', name: 'out', id: 'TROUT', spec: outbound },
      { kind: 'PhoneNumber', name: 'one', id: '15125550101', spec: { number: '15125550101', app_id: 'TROUT' } },
    ]);
    const converged = [
      desired('TrunkIpAcl', 'office', aclSpec),
      desired('Trunk', 'out', { ...outbound, ipacl_uuid: { ref: 'office' } }),
      desired('PhoneNumber', 'one', { number: '15125550101', app_id: { ref: 'out' } }),
    ];
    const accountWith = (campaign: unknown) =>
      new Map<string, LiveObject[]>([
        ['TrunkIpAcl', [live(aclId, aclSpec)]],
        ['Trunk', [live('TROUT', outbound)]],
        [
          'PhoneNumber',
          [
            live(
              '15125550101',
              { number: '15125550101', app_id: 'TROUT', ...(campaign === undefined ? {} : { campaign_id: campaign }) },
              { facts: { attachment: 'trunk' } },
            ),
          ],
        ],
      ]);
    const plan = buildPlan(planInputs({ kinds, desired: converged, live: accountWith(undefined), ledger }));
    expect(plan.changes.map((change) => change.action)).toEqual(['noop', 'noop', 'noop']);
    expect(plan.changes.filter((change) => change.blast !== undefined)).toEqual([]);
    // A link the account holds that names no campaign: counted against the number's own change, as in any plan.
    const unlinked = buildPlan(planInputs({ kinds, desired: converged, live: accountWith(''), ledger }));
    expect(unlinked.changes.map((change) => change.action)).toEqual(['noop', 'noop', 'noop']);
    expect(unlinked.changes.find((change) => change.address === 'PhoneNumber/one')?.blast?.messages).toBe(1);
  });
});
