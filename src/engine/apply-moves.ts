// Records the moves of a plan (`metadata.moved_from`) in the state before any request is sent: the
// entry at the old address goes to the new one, so every later step of the apply (and the next
// plan) finds it there. The new address is written first: a crash between the two records leaves
// both addresses holding one object, which the next plan recognises as this move half done.
import type { LedgerEntry, SecretFingerprinter } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import type { DesiredResource, ResolvedSecret } from './model.js';
import type { Plan } from './plan-types.js';

export interface MoveInputs {
  plan: Plan;
  store: LedgerStore;
  desired: ReadonlyMap<string, DesiredResource>;
  fingerprinter: SecretFingerprinter;
  resolveSecrets(resource: DesiredResource): Promise<Record<string, ResolvedSecret>>;
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
    if (!current || current.id !== entry.id) {
      const desired = inputs.desired.get(change.address);
      const secrets = desired ? await carrySecrets(entry, old, change.address, desired, inputs) : entry.secrets;
      await inputs.store.recordResult(change.address, { ...entry, name: change.name, secrets, updated_at: inputs.store.timestamp() });
    }
    await inputs.store.recordResult(old, null);
    recorded.push([old, change.address]);
  }
  return recorded;
}

/**
 * A secret's fingerprint mixes in its address (so equal passwords of two resources differ), so a
 * moved resource's fingerprints are made again under the new address, for the secrets whose value
 * is still the one recorded. A secret that changed keeps its old fingerprint, which no longer
 * matches: the plan sends it, and its update records the new one.
 */
async function carrySecrets(entry: LedgerEntry, from: string, to: string, desired: DesiredResource, inputs: MoveInputs): Promise<LedgerEntry['secrets']> {
  const fields = Object.keys(entry.secrets);
  if (fields.length === 0 || Object.keys(desired.secretSources).length === 0) return entry.secrets;
  const resolved = await inputs.resolveSecrets(desired);
  const secrets: LedgerEntry['secrets'] = {};
  for (const field of fields) {
    const stored = entry.secrets[field];
    const value = resolved[field]?.value;
    if (!stored) continue;
    const same = value !== undefined && inputs.fingerprinter.compare(stored, from, field, value) === 'same';
    secrets[field] = same ? { ...inputs.fingerprinter.fingerprint(to, field, value), ...(stored.source ? { source: stored.source } : {}) } : stored;
  }
  return secrets;
}
