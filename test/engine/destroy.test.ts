import { describe, expect, it } from 'vitest';
import { asTeardown } from '../../src/engine/destroy.js';
import { buildPlan } from '../../src/engine/planner.js';
import { checkSafety, requiredApprovals } from '../../src/engine/safety.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { ledgerWith, live, noApprovals, planInputs } from './builders.js';

/** `--destroy`: everything the state manages, deleted in reverse order, each usual gate still asking. */
const acl = { name: 'office', ip_addresses: ['203.0.113.10'] };
const trunk = { name: 'pbx', ipacl_uuid: { ref: 'office' } };
const brand = { profile_uuid: 'P1', brand_alias: 'acme' };
const ledger = ledgerWith([
  { kind: 'TrunkIpAcl', name: 'office', id: 'acl-1', spec: acl },
  { kind: 'Trunk', name: 'pbx', id: 'tr-1', spec: trunk },
  { kind: 'Brand', name: 'acme', id: 'B1', spec: brand },
]);
ledger.resources['Trunk/pbx'] = { ...ledger.resources['Trunk/pbx']!, protect: true };
const account = new Map([
  ['TrunkIpAcl', [live('acl-1', acl), live('acl-by-hand', { name: 'by-hand', ip_addresses: [] })]],
  ['Trunk', [live('tr-1', { name: 'pbx', ipacl_uuid: 'acl-1' })]],
  ['Brand', [live('B1', brand, { registry: { registration_status: 'COMPLETED' } })]],
]);

describe('a teardown', () => {
  const plan = asTeardown(buildPlan(planInputs({ desired: [], live: account, ledger })));

  it('deletes every managed resource, dependents first, and leaves the unmanaged alone', () => {
    expect(plan.destroy).toBe(true);
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['Trunk/pbx', 'delete'],
      ['TrunkIpAcl/office', 'delete'],
      ['Brand/acme', 'delete'],
    ]);
    expect(plan.unmanaged.map((object) => object.id)).toEqual(['acl-by-hand']);
  });

  it('needs no --allow-empty or --force-deletes, but every irreversible and protected resource still asks', () => {
    const codes = checkSafety(plan, noApprovals, [], ledger).map((violation) => [violation.code, violation.address]);
    expect(codes).toEqual([
      ['protected', 'Trunk/pbx'],
      ['irreversible', 'Brand/acme'],
    ]);
    expect(requiredApprovals(plan, { ...noApprovals, allow_irreversible: ['Brand/acme'] }, [], ledger)).toEqual([
      { flag: '--allow-irreversible Brand/acme', given: true },
    ]);
    // The same plan without the teardown mark is refused as an empty manifest and a mass delete.
    const mistaken = { ...plan, destroy: false };
    expect(checkSafety(mistaken, noApprovals, [], ledger).map((violation) => violation.code)).toContain('empty');
  });

  it('says it is a teardown at the top of the text and markdown renderings, and in JSON', () => {
    const headline =
      'TEARDOWN (--destroy): this plan deletes every resource telform manages in account MATEST (3); what telform never managed is left alone.';
    expect(renderText(plan, { color: false }).split('\n')[0]).toBe(headline);
    expect(renderMarkdown(plan).split('\n').slice(0, 4)).toEqual([
      '### telform plan: teardown',
      '',
      '> [!CAUTION]',
      `> **${headline}**`,
    ]);
    expect(JSON.parse(JSON.stringify(plan)).destroy).toBe(true);
  });

  it('gives each delete the teardown as its reason, not "removed from the manifests" (issue 33 item 26)', () => {
    for (const change of plan.changes) expect(change.reasons[0]).toBe('torn down by --destroy');
    const gone = asTeardown(buildPlan(planInputs({ desired: [], live: new Map(), ledger })));
    expect(gone.changes.map((change) => change.reasons[0])).toEqual([
      'torn down by --destroy; already gone from the account, it is only forgotten',
      'torn down by --destroy; already gone from the account, it is only forgotten',
      'torn down by --destroy; already gone from the account, it is only forgotten',
    ]);
  });
});
