// Which profiles have registered a brand. The API lets a profile register one brand only, even after
// that brand is deleted, and no read says which profiles did: the account's brands tell it for the live
// ones, the state's ledger and history for those telform made or saw and that are gone since. The plan
// refuses a brand from such a profile before any write, and a replica (snapshot, rehearsal) is told them
// so that it refuses it as the API would.
import type { DesiredResource } from '../engine/model.js';
import { isReference } from '../engine/model.js';
import { openStateBackend } from '../state/backends/registry.js';
import { parseHistory } from '../state/history.js';
import { parseLedger, type Ledger } from '../state/ledger.js';
import type { GlobalOptions, RunIo } from './context.js';
import { stateLocation } from './state-location.js';

/** The brand a profile registered, and the apply that deleted it when the history recorded one. */
interface BrandMade {
  brand: string;
  deletedBy?: number;
}

/** Profile uuid → the brand it registered, from the ledger's brands and the history's brand changes (latest wins). */
function brandsMadeOf(ledger: Ledger | undefined, historyLines: readonly string[]): Map<string, BrandMade> {
  const made = new Map<string, BrandMade>();
  // Specs name a managed profile by `{ ref }`: its id is the ledger's.
  const profileOf = (value: unknown): string | undefined =>
    typeof value === 'string' ? value : isReference(value) ? ledger?.resources[`Profile/${value.ref}`]?.id : undefined;
  for (const record of parseHistory([...historyLines])) {
    if (record.type !== 'apply') continue;
    for (const change of record.changes) {
      if (change.kind !== 'Brand' || change.result !== 'done' || change.id === undefined) continue;
      const profile = profileOf(change.before?.['profile_uuid'] ?? change.after?.['profile_uuid']);
      if (profile === undefined) continue;
      made.set(profile, {
        brand: change.id,
        ...(change.action === 'delete' ? { deletedBy: record.seq } : {}),
      });
    }
  }
  for (const entry of Object.values(ledger?.resources ?? {})) {
    const profile = entry.kind === 'Brand' ? profileOf(entry.applied_spec['profile_uuid']) : undefined;
    if (profile !== undefined && !made.has(profile)) made.set(profile, { brand: entry.id });
  }
  return made;
}

/**
 * The brands the run's state knows of (its ledger and history), read without the lock; none when
 * there is no state or it cannot be read (a snapshot needs no state).
 */
export async function brandsMadeInState(globals: GlobalOptions, io: RunIo): Promise<Map<string, BrandMade>> {
  try {
    const backend = await openStateBackend(stateLocation(globals, io.env), io.env);
    try {
      const stored = await backend.read();
      const ledger = stored.ledger === undefined ? undefined : parseLedger(stored.ledger, backend.location);
      return brandsMadeOf(ledger, await backend.readHistory());
    } finally {
      await backend.close();
    }
  } catch {
    return new Map();
  }
}

/**
 * Each Brand document whose profile (a literal id, or a `{ ref }` to a Profile the ledger holds) already
 * registered a brand carries that as a broken create rule: creating it is refused by the plan's gates, as
 * the API would refuse it; a brand that exists (adopted or managed) is no create and is not concerned.
 */
export async function markUsedProfiles(
  resources: readonly DesiredResource[],
  ledger: Ledger,
  readHistory: () => Promise<string[]>,
): Promise<DesiredResource[]> {
  // The history is read only when a brand is declared.
  if (!resources.some((resource) => resource.kind === 'Brand')) return [...resources];
  const made = brandsMadeOf(ledger, await readHistory().catch(() => []));
  return resources.map((resource) => {
    if (resource.kind !== 'Brand') return resource;
    const value = resource.spec['profile_uuid'];
    const profile =
      typeof value === 'string' ? value : isReference(value) ? ledger.resources[`Profile/${value.ref}`]?.id : undefined;
    const earlier = profile === undefined ? undefined : made.get(profile);
    if (!earlier) return resource;
    const source = resource.placeOfField?.('profile_uuid') ?? resource.source;
    const rule = {
      field: 'profile_uuid',
      message: `names profile ${profile}, which registered brand ${earlier.brand}${earlier.deletedBy === undefined ? '' : ` (deleted by apply #${earlier.deletedBy})`}; the API lets a profile register one brand only, even after that brand is deleted: name another profile`,
      ...(source ? { source } : {}),
    };
    return { ...resource, held: [...(resource.held ?? []), rule] };
  });
}
