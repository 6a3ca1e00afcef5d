// Records the moves of a plan (`metadata.moved_from`) in the state before any request is sent: the
// entry at the old address goes to the new one, so every later step of the apply (and the next
// plan) finds it there. The move itself is the state's one (`moveEntry`, also behind `state mv`),
// which keeps the secret fingerprints verifiable under the new address.
import { moveEntry } from '../state/ledger-move.js';
import type { LedgerStore } from '../state/ledger-store.js';
import type { Plan } from './plan-types.js';

export interface MoveInputs {
  plan: Plan;
  store: LedgerStore;
}

/** The moves recorded, as `[old, new]` pairs. */
export async function recordMoves(inputs: MoveInputs): Promise<Array<[string, string]>> {
  const recorded: Array<[string, string]> = [];
  for (const change of inputs.plan.changes) {
    const old = change.moved_from;
    if (old === undefined) continue;
    const entry = inputs.store.ledger.resources[old];
    if (!entry) continue;
    const current = inputs.store.ledger.resources[change.address];
    // Both addresses holding the one object: a move half done by an interrupted apply; finish it.
    if (current && current.id === entry.id) await inputs.store.recordResult(old, null);
    else await moveEntry(inputs.store, old, change.address, change.name);
    recorded.push([old, change.address]);
  }
  return recorded;
}
