// One owner per account: which ledger the account's marker names, and the explicit hand-over.
import { TelformError } from '../util/errors.js';
import type { LiveContext } from '../resources/live-side.js';
import { createOwnershipMarker, deleteOwnershipMarker, readOwnershipMarkers, type OwnershipMarker } from '../resources/ownership-marker.js';
import type { Ledger } from './ledger.js';
import type { LedgerStore } from './ledger-store.js';

/**
 * The account records which ledger owns it (an ownership marker, `resources/ownership-marker.ts`).
 * A ledger of another lineage may read the account but never write to it; `telform state claim`
 * and `release` hand it over, explicitly, and each ledger records its hand-overs.
 *
 * An account nobody has claimed is claimed by the first ledger that writes to it (apply, import),
 * as that write's first request — except by a ledger that released it: that one must claim it
 * again, explicitly.
 */
export type Ownership =
  | { status: 'unclaimed' }
  | { status: 'ours'; marker: OwnershipMarker }
  /** Another lineage's marker; `ours` when this ledger's marker is there too (an interrupted claim). */
  | { status: 'other'; owners: OwnershipMarker[]; ours: OwnershipMarker | undefined };

export function ownershipOf(markers: readonly OwnershipMarker[], lineage: string): Ownership {
  const ours = markers.find((marker) => marker.lineage === lineage);
  const owners = markers.filter((marker) => marker.lineage !== lineage);
  if (owners.length > 0) return { status: 'other', owners, ours };
  return ours ? { status: 'ours', marker: ours } : { status: 'unclaimed' };
}

/** Whether the last hand-over this ledger recorded gave the account away. */
export function releasedByLedger(ledger: Ledger): boolean {
  return ledger.ownership?.at(-1)?.action === 'release';
}

/** One line naming the owner(s), for refusals and for the reads that still work. */
export function describeOwners(owners: readonly OwnershipMarker[]): string {
  const lineages = owners.map((owner) => owner.lineage).join(', ');
  return owners.length === 1 ? `the telform ledger of lineage ${lineages}` : `the telform ledgers of lineages ${lineages} (several claims: one must go)`;
}

/**
 * Refuses a write by a ledger that does not own the account (`what`: the command, for the message).
 * Nothing has been sent when it throws.
 */
export function assertMayWrite(ownership: Ownership, store: LedgerStore, account: string, what: string): void {
  if (ownership.status === 'ours') return;
  const ledger = store.ledger;
  if (ownership.status === 'unclaimed') {
    if (!releasedByLedger(ledger)) return;
    throw new TelformError(
      'account_released',
      `${what} refused: the state ${store.file} released account ${account} (telform state release, ${ledger.ownership?.at(-1)?.at ?? ''}) and no longer writes to it; run telform state claim to take it back`,
    );
  }
  throw new TelformError(
    'account_owned',
    `${what} refused: account ${account} is owned by ${describeOwners(ownership.owners)}, not by ${store.existed ? `the state ${store.file} (lineage ${ledger.lineage})` : `a new state ${store.file}`}; ${handOverAdvice(ownership.owners)}`,
  );
}

/**
 * Whether this ledger's first write claims the account: nobody owns it and this ledger did not
 * release it (a released ledger is refused instead, by `assertMayWrite`).
 */
export function claimsOnWrite(ownership: Ownership, ledger: Ledger): boolean {
  return ownership.status === 'unclaimed' && !releasedByLedger(ledger);
}

/**
 * Said by a plan or apply whose first write will claim the account (`adopted`: how many objects
 * already in the account it takes over). A ledger never written yet gets its lineage when it is
 * first stored, so the plan names the state rather than a lineage that would not last.
 */
export function claimNote(store: LedgerStore, account: string, adopted: number): string {
  const whose = store.existed ? `the state ${store.file} (lineage ${store.ledger.lineage})` : `the new state ${store.file}`;
  const taken = adopted === 0 ? '' : ` and takes over ${adopted} object${adopted === 1 ? '' : 's'} already in it`;
  return `note: this apply claims account ${account} for ${whose}${taken}: nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read the account (hand-over: telform state release and telform state claim)`;
}

/**
 * Requests a claim on the first write sends: a fresh read of the markers (the plan's may be old by
 * the time apply starts), the marker's create, and the read that checks no other state claimed the
 * account at the same moment.
 */
export const claimRequests = 3;

/**
 * Claims the account for this ledger before its first write (apply, import): a ledger never
 * stored is stored first (the marker must name a lineage that lasts; its first apply so ends at
 * serial 2), the marker is made, and the markers are read
 * again. Another lineage's marker then means another ledger claimed the account at the same time:
 * this one removes its own marker and refuses, before anything else is written. Each racer that
 * sees the other backs off, so two ledgers never both go on (the API lists markers in no order a
 * tie could be broken by safely: one that saw only its own marker has already gone on); when both
 * back off, the account stays unclaimed and the next run claims it.
 */
export async function claimOnFirstWrite(store: LedgerStore, live: LiveContext, account: string, what: string): Promise<void> {
  const lineage = store.ledger.lineage;
  const before = ownershipOf(await readOwnershipMarkers(live, true), lineage);
  if (before.status === 'ours') return;
  assertMayWrite(before, store, account, what);
  await store.persist();
  const mine = await createOwnershipMarker(live, lineage);
  const after = ownershipOf(await readOwnershipMarkers(live, true), lineage);
  if (after.status === 'other') {
    await deleteOwnershipMarker(live, mine);
    throw new TelformError(
      'account_owned',
      `${what} refused: account ${account} was claimed by ${describeOwners(after.owners)} while the state ${store.file} (lineage ${lineage}) was claiming it; nothing else was written; if that state backed off too (the account then has no marker), the next apply claims it; otherwise ${handOverAdvice(after.owners)}`,
    );
  }
  // Written with the run's own changes (the store compacts when it closes): one serial, not two.
  store.recordOwnership({ action: 'claim', at: store.timestamp() });
}

/** How to hand an account over, said in every refusal. */
export function handOverAdvice(owners: readonly OwnershipMarker[]): string {
  const from = owners.map((owner) => owner.lineage).join(',');
  return `drift and telform state list still read it; to hand it over, run telform state release with the owner's state and then telform state claim with this one, or, if the owner's state is lost, telform state claim --take-over ${from}`;
}

export interface ClaimResult {
  /** Whether this ledger owned the account already (nothing was changed). */
  already: boolean;
  /** The lineages the account was taken from (`--take-over`). */
  from: string[];
}

/**
 * Makes this ledger the account's owner. Refused while another ledger owns it unless `takeOver`
 * names exactly the owners' lineages (explicit: a typo or a stale command cannot take an account).
 * The ledger is stored first (a marker must never name a lineage a crash could lose), this
 * ledger's marker is made before the others' are removed (the account is never without an owner
 * in between), and the claim is recorded in the ledger.
 */
export async function claimAccount(store: LedgerStore, live: LiveContext, account: string, takeOver: readonly string[]): Promise<ClaimResult> {
  const ownership = ownershipOf(await readOwnershipMarkers(live, true), store.ledger.lineage);
  if (ownership.status === 'ours') return { already: true, from: [] };
  const owners = ownership.status === 'other' ? ownership.owners : [];
  const named = [...new Set(takeOver)].sort();
  const lineages = owners.map((owner) => owner.lineage);
  if (owners.length > 0 && (named.length !== lineages.length || named.some((lineage, index) => lineage !== lineages[index]))) {
    throw new TelformError(
      'account_owned',
      named.length === 0
        ? `account ${account} is owned by ${describeOwners(owners)}; to take it from that ledger, run telform state release with it first, or, if it is lost, telform state claim --take-over ${lineages.join(',')}`
        : `--take-over ${named.join(',')} does not name the owner of account ${account}: it is owned by ${describeOwners(owners)}`,
    );
  }
  if (owners.length === 0 && named.length > 0) {
    throw new TelformError('bad_option', `--take-over ${named.join(',')}: account ${account} has no owner to take it from; run telform state claim without it`);
  }
  await store.persist();
  if (!(ownership.status === 'other' && ownership.ours)) await createOwnershipMarker(live, store.ledger.lineage);
  for (const owner of owners) await deleteOwnershipMarker(live, owner);
  store.recordOwnership({ action: 'claim', at: store.timestamp(), ...(lineages.length > 0 ? { from_lineage: lineages.join(',') } : {}) });
  await store.compact();
  return { already: false, from: lineages };
}

/**
 * Gives the account up: removes this ledger's marker and records the release, after which this
 * ledger refuses to write to the account until it claims it again. Refused when it is not the owner.
 */
export async function releaseAccount(store: LedgerStore, live: LiveContext, account: string): Promise<void> {
  const ownership = ownershipOf(await readOwnershipMarkers(live, true), store.ledger.lineage);
  if (ownership.status === 'unclaimed') {
    throw new TelformError('account_not_owned', `the state ${store.file} does not own account ${account}: nobody has claimed it, so there is nothing to release`);
  }
  if (ownership.status === 'other' && !ownership.ours) {
    throw new TelformError('account_not_owned', `the state ${store.file} does not own account ${account}: ${describeOwners(ownership.owners)} does`);
  }
  const marker = ownership.status === 'ours' ? ownership.marker : (ownership.ours as OwnershipMarker);
  await deleteOwnershipMarker(live, marker);
  store.recordOwnership({ action: 'release', at: store.timestamp() });
  await store.compact();
}
