import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/planner.js';
import { classifyDrift } from '../../src/run/drift.js';
import { desired, ledgerWith, live, planInputs, testKind } from './builders.js';

/**
 * A rename (moved_from) whose spec change needs a replace: the dependents' re-pointing to the new
 * object is a manifest change (drift exit 3), as it is without the move (issue 33 item 11).
 */
const vault = testKind('Vault', { fields: { updatable: ['name'], replaceOn: ['region'] } });
const door = testKind('Door', {
  references: [{ field: 'vault_id', target: 'Vault' }],
  fields: { updatable: ['name', 'vault_id'] },
});
const kinds = new Map([vault, door].map((kind) => [kind.kind, kind]));

function planOf(moved: boolean) {
  const state = ledgerWith([
    { kind: 'Vault', name: 'old', id: 'v-1', spec: { name: 'old', region: 'eu' } },
    { kind: 'Door', name: 'front', id: 'd-1', spec: { name: 'front', vault_id: { ref: 'old' } } },
  ]);
  const account = new Map([
    ['Vault', [live('v-1', { name: 'old', region: 'eu' })]],
    ['Door', [live('d-1', { name: 'front', vault_id: 'v-1' })]],
  ]);
  const vaultName = moved ? 'new' : 'old';
  return buildPlan(
    planInputs({
      kinds,
      desired: [
        desired('Vault', vaultName, { name: 'old', region: 'us' }, moved ? { movedFrom: ['Vault/old'] } : {}),
        desired('Door', 'front', { name: 'front', vault_id: { ref: vaultName } }),
      ],
      live: account,
      ledger: state,
    }),
  );
}

describe('a move that needs a replace', () => {
  it('leaves the dependents a manifest change, not a change made outside telform', () => {
    const without = planOf(false);
    const moved = planOf(true);
    expect(moved.changes.map((change) => [change.address, change.action])).toEqual(
      without.changes.map((change) => [change.address.replace('Vault/old', 'Vault/new'), change.action]),
    );
    expect(moved.changes.find((change) => change.address === 'Vault/new')?.action).toBe('replace');
    expect(classifyDrift(without, true).status).toBe('pending');
    expect(classifyDrift(moved, true)).toMatchObject({ status: 'pending', drifted: [] });
  });
});
