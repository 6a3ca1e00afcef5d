import { describe, expect, it } from 'vitest';
import type { PlannedChange } from '../../src/engine/plan-types.js';
import { planLines, reasonsToHold, registryEntries } from '../../src/serve/safe-plan.js';
import { change as plannedChange, noFlags, plan } from '../support/plan.js';

/** A change of an existing object, with a reason that names its action. */
function change(address: string, action: PlannedChange['action'], extra: Partial<PlannedChange> = {}): PlannedChange {
  const name = address.split('/')[1] ?? '';
  return plannedChange({
    address,
    action,
    reasons: [`${action} because`],
    id: `${name}-id`,
    before: {},
    after: {},
    ...extra,
  });
}

describe('reasonsToHold', () => {
  it('lets a plan of updates, creates and harmless deletes through, waits included', () => {
    const safe = plan([
      change('Trunk/pbx', 'update', { drifted: true }),
      change('TrunkIpAcl/office', 'create'),
      change('OriginationUri/old', 'delete'),
      change('Campaign/next', 'wait'),
      change('Brand/acme', 'noop'),
    ]);
    expect(reasonsToHold(safe, [])).toEqual([]);
  });

  it('holds for every gate refusal, and for flags no gate stops', () => {
    const risky = plan([
      change('Campaign/promo', 'delete', { flags: { ...noFlags, irreversible: true } }),
      change('Campaign/spring', 'update', { flags: { ...noFlags, billable_usd: 15 } }),
      change('TrunkIpAcl/office', 'delete', { flags: { ...noFlags, breaks_auth: true } }),
      change('Trunk/in', 'delete', { flags: { ...noFlags, breaks_calls: true } }),
      change('Brand/acme', 'blocked', { reasons: ['brands cannot be updated'] }),
    ]);
    const violations = [
      {
        code: 'irreversible' as const,
        address: 'Campaign/promo',
        message:
          'Campaign/promo would be deleted, which cannot be undone; approve it with --allow-irreversible Campaign/promo',
      },
    ];
    expect(reasonsToHold(risky, violations)).toEqual([
      'Campaign/promo would be deleted, which cannot be undone; approve it with --allow-irreversible Campaign/promo',
      'Campaign/spring costs 15 USD',
      'TrunkIpAcl/office would break authentication of what still uses it',
      'Trunk/in would break calls',
      'Brand/acme: telform will not make this change (brands cannot be updated)',
    ]);
  });
});

describe('reasonsToHold and the registry', () => {
  it('holds the re-registration of a brand or campaign deleted or deactivated outside telform, not its first registration (issue 33 item 22)', () => {
    const recreated = plan([
      change('Campaign/spring', 'create', { drifted: true }),
      change('Brand/acme', 'replace', { drifted: true }),
      change('Campaign/new', 'create'),
      change('TrunkIpAcl/office', 'create', { drifted: true }),
    ]);
    expect(reasonsToHold(recreated, [])).toEqual([
      'Campaign/spring was deleted or deactivated outside telform: registering it again is a new vetting submission; run telform apply to make it',
      'Brand/acme was deleted or deactivated outside telform: registering it again is a new vetting submission; run telform apply to make it',
    ]);
  });
});

describe('registryEntries and planLines', () => {
  it('keeps the registry status of managed brands, campaigns and number links that exist, and the changes a person reviews', () => {
    const read = plan([
      change('Brand/acme', 'noop', { registry: { registration_status: 'completed' } }),
      change('Campaign/promo', 'noop', {
        registry: { registration_status: 'FAILED', error_code: 'CAMPAIGN_VETTING_DECLINED', error_reason: 'declined' },
      }),
      { ...change('Campaign/new', 'create'), id: undefined } as unknown as PlannedChange,
      change('Trunk/pbx', 'update', { drifted: true, registry: { registration_status: 'ACTIVE' } }),
    ]);
    expect(registryEntries(read)).toEqual([
      { address: 'Brand/acme', kind: 'Brand', id: 'acme-id', status: 'COMPLETED' },
      {
        address: 'Campaign/promo',
        kind: 'Campaign',
        id: 'promo-id',
        status: 'FAILED',
        reason: 'CAMPAIGN_VETTING_DECLINED: declined',
      },
    ]);
    expect(planLines(read)).toEqual([
      { address: 'Campaign/new', action: 'create', drifted: false, reasons: ['create because'] },
      { address: 'Trunk/pbx', action: 'update', drifted: true, reasons: ['update because'] },
    ]);
  });
});
