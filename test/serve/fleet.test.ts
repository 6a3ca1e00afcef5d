import { describe, expect, it } from 'vitest';
import { Fleet, recentEventLimit } from '../../src/serve/fleet.js';
import type { AccountCheck, RegistryEntry, ServeEvent } from '../../src/serve/model.js';

function check(status: AccountCheck['status'], registry: RegistryEntry[] = [], drifted: string[] = []): AccountCheck {
  return { status, drifted, pending: [], notes: [], registry, plan: [], requests: 3, rateLimited: 0 };
}
const campaign = (status: string): RegistryEntry => ({
  address: 'Campaign/promo',
  kind: 'Campaign',
  id: 'CAB12CD',
  status,
});

describe('Fleet', () => {
  it('announces the first status and every change of it, never the same status twice', () => {
    const fleet = new Fleet(['acme']);
    expect(fleet.recordCheck('acme', check('in_sync'), fleet.beginObservation(), 'start')).toEqual([
      {
        type: 'account_status',
        account: 'acme',
        cause: 'start',
        from: 'unknown',
        to: 'in_sync',
        drifted: [],
        pending: [],
      },
    ]);
    expect(fleet.recordCheck('acme', check('in_sync'), fleet.beginObservation(), 'interval')).toEqual([]);
    expect(
      fleet.recordCheck('acme', check('drifted', [], ['Trunk/pbx']), fleet.beginObservation(), 'interval'),
    ).toEqual([
      {
        type: 'account_status',
        account: 'acme',
        cause: 'interval',
        from: 'in_sync',
        to: 'drifted',
        drifted: ['Trunk/pbx'],
        pending: [],
      },
    ]);
    const failed = { ...check('error'), error: { code: 'api_error', message: 'the API answered 401' } };
    expect(fleet.recordCheck('acme', failed, fleet.beginObservation(), 'interval')).toEqual([
      {
        type: 'account_status',
        account: 'acme',
        cause: 'interval',
        from: 'drifted',
        to: 'error',
        drifted: [],
        pending: [],
        error: failed.error,
      },
    ]);
  });

  it('announces a registry move once, whichever of a callback read and a check sees it first', () => {
    const fleet = new Fleet(['acme']);
    fleet.recordCheck('acme', check('in_sync', [campaign('ACTIVE')]), fleet.beginObservation(), 'start');
    // A check begins (reads ACTIVE, slowly); a callback read begins after it and sees EXPIRED first.
    const slowCheck = fleet.beginObservation();
    const callbackRead = fleet.beginObservation();
    const fromCallback = fleet.recordRegistry('acme', campaign('EXPIRED'), callbackRead, 'callback');
    expect(fromCallback).toEqual([
      {
        type: 'registry_status',
        account: 'acme',
        cause: 'callback',
        address: 'Campaign/promo',
        kind: 'Campaign',
        object_id: 'CAB12CD',
        from: 'ACTIVE',
        to: 'EXPIRED',
      },
    ]);
    // The older read must not turn it back (and announce EXPIRED → ACTIVE).
    expect(fleet.recordCheck('acme', check('in_sync', [campaign('ACTIVE')]), slowCheck, 'interval')).toEqual([]);
    expect(fleet.findRegistry('acme', 'Campaign', 'CAB12CD')?.status).toBe('EXPIRED');
    // The next check sees EXPIRED too: already known, no event.
    expect(
      fleet.recordCheck('acme', check('in_sync', [campaign('EXPIRED')]), fleet.beginObservation(), 'interval'),
    ).toEqual([]);
  });

  it('forgets objects no longer managed, keeps the registry through a failed check, and bounds the recent events', () => {
    const fleet = new Fleet(['acme']);
    fleet.recordCheck('acme', check('in_sync', [campaign('ACTIVE')]), fleet.beginObservation(), 'start');
    fleet.recordCheck('acme', check('error'), fleet.beginObservation(), 'interval');
    expect(fleet.findRegistry('acme', 'Campaign', 'CAB12CD')).toBeDefined();
    fleet.recordCheck('acme', check('in_sync'), fleet.beginObservation(), 'interval');
    expect(fleet.findRegistry('acme', 'Campaign', 'CAB12CD')).toBeUndefined();
    for (let index = 0; index < recentEventLimit + 50; index += 1) {
      fleet.remember({
        id: `e-${index}`,
        at: '2026-01-01T00:00:00.000Z',
        account: index % 2 ? 'acme' : 'other',
        cause: 'interval',
        type: 'apply_held',
        changes: [],
        reasons: [],
      } as ServeEvent);
    }
    expect(fleet.recentEvents()).toHaveLength(recentEventLimit);
    expect(fleet.recentEvents()[0]?.id).toBe(`e-${recentEventLimit + 49}`);
    expect(fleet.recentEvents('acme').every((event) => event.account === 'acme')).toBe(true);
  });
});
