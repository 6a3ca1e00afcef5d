import { describe, expect, it } from 'vitest';
import { classifyDrift, driftExitCode } from '../../src/run/drift.js';
import { ExitCode } from '../../src/run/exit-codes.js';
import { renderDriftText } from '../../src/render/drift.js';
import { change, plan } from '../support/plan.js';

describe('drift: classification and exit code', () => {
  it('tells changes made outside telform from manifest changes waiting, and says which exit code each means', () => {
    const changes = [
      change({ address: 'Trunk/edited', action: 'update', drifted: true }),
      change({ address: 'TrunkIpAcl/new', action: 'create' }),
      change({ address: 'SipCredential/same', action: 'noop' }),
    ];
    expect(classifyDrift(plan(changes, { warnings: ['Campaign/x: EXPIRED'] }), true)).toEqual({
      status: 'drifted',
      drifted: ['Trunk/edited'],
      pending: ['TrunkIpAcl/new'],
      notes: ['Campaign/x: EXPIRED'],
    });
    expect(classifyDrift(plan(changes.slice(1)), true).status).toBe('pending');
    // Without a ledger, nothing tells an edit from a manifest change: every change to a live object is drift.
    expect(classifyDrift(plan(changes), false)).toMatchObject({
      status: 'drifted',
      drifted: ['Trunk/edited'],
      pending: ['TrunkIpAcl/new'],
    });
    // A resource never applied is not "deleted from the account" (issue 33 item 21): it waits to be applied.
    const unapplied = classifyDrift(plan(changes.slice(1)), false);
    expect(unapplied).toMatchObject({ status: 'pending', drifted: [], pending: ['TrunkIpAcl/new'] });
    expect(renderDriftText(unapplied, plan(changes.slice(1)))).toBe(
      'Manifest changes not yet applied (1):\n  TrunkIpAcl/new: create\n',
    );
    expect(classifyDrift(plan(changes.slice(2)), true).status).toBe('in_sync');
    expect([driftExitCode('in_sync'), driftExitCode('drifted'), driftExitCode('pending')]).toEqual([
      ExitCode.ok,
      ExitCode.changes,
      ExitCode.pendingManifestChanges,
    ]);
  });

  it('does not count a secret that can only be set again (no fingerprint) as drift', () => {
    const unverifiable = change({
      address: 'SipCredential/pbx',
      action: 'update',
      secrets: { password: { value: 'unverifiable' } },
    } as never);
    expect(classifyDrift(plan([unverifiable]), true).status).toBe('in_sync');
  });
});
