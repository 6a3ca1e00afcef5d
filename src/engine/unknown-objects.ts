// One object's failure is that object's (docs/real-accounts.md): a ledger object whose read by id
// failed is unknown, so the plan blocks it and what refers to it, and plans the rest.
import type { ChangeDraft } from './change-draft.js';
import type { Match } from './match.js';
import type { DesiredResource, PlannerKinds } from './model.js';
import { referencedNames } from './references.js';
import { unreadableKey } from './unread.js';

/** The ledger object of a match whose read by id failed: its address, id and why; undefined otherwise. */
export function unreadableOf(
  match: Match,
  unreadable: ReadonlyMap<string, string> | undefined,
): { address: string; name: string; id: string; why: string } | undefined {
  if (!unreadable || unreadable.size === 0) return undefined;
  const owned =
    match.type === 'missing' && match.entry
      ? { address: match.desired.address, name: match.desired.name, entry: match.entry, id: match.entry.id }
      : match.type === 'orphaned' && !match.live
        ? { address: match.address, name: match.entry.name, entry: match.entry, id: match.entry.id }
        : match.type === 'superseded' && !match.live
          ? { address: `${match.address}#old:${match.id}`, name: match.entry.name, entry: match.entry, id: match.id }
          : undefined;
  const why = owned && unreadable.get(unreadableKey(owned.entry.kind, owned.id));
  return owned && why !== undefined ? { address: owned.address, name: owned.name, id: owned.id, why } : undefined;
}

/** A change for an object whose read failed: blocked, since what the account holds of it is unknown. */
export function unknownObject(unknown: { id: string; why: string }, change: ChangeDraft): ChangeDraft {
  change.action = 'blocked';
  change.id = unknown.id;
  change.reasons.push(
    `${unknown.id} could not be read (${unknown.why}): unknown, so nothing is planned for it this run`,
  );
  return change;
}

/** Changes that refer to a resource whose object could not be read wait for it: blocked, with why. */
export function blockDependents(
  drafts: ChangeDraft[],
  unknown: ReadonlySet<string>,
  kinds: PlannerKinds,
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
): void {
  if (unknown.size === 0) return;
  for (const draft of drafts) {
    if (draft.action === 'noop' || draft.action === 'blocked' || unknown.has(draft.address)) continue;
    const kind = kinds.get(draft.kind);
    const desired = desiredByAddress.get(draft.address);
    if (!kind || !desired) continue;
    const waiting = referencedNames(kind, desired.spec)
      .map(({ target, name }) => `${target}/${name}`)
      .filter((address) => unknown.has(address));
    if (waiting.length === 0) continue;
    draft.action = 'blocked';
    draft.reasons.push(`refers to ${waiting.join(', ')}, which could not be read; planned again once it can be`);
  }
}
