// Who owns the account, or which part of it: the ledgers its markers name, and the explicit hand-over.
import { TelformError } from '../util/errors.js';
import { shellQuote } from '../util/shell-quote.js';
import type { LiveContext } from '../resources/live-side.js';
import {
  createOwnershipMarker,
  deleteOwnershipMarker,
  maxSipIpAcls,
  readMarkerReading,
  type ForeignMarkerName,
  type OwnershipMarker,
} from '../resources/ownership-marker.js';
import {
  describeScope,
  everything,
  isEverything,
  sameScope,
  scopeHasKind,
  scopeKinds,
  scopeOverlap,
  type Scope,
} from '../resources/ownership-scope.js';
import type { Ledger } from './ledger.js';
import type { LedgerStore } from './ledger-store.js';

/**
 * The account records which ledger owns it, or which part of it (an ownership marker per owner,
 * `resources/ownership-marker.ts`, with the owner's scope). A ledger may write only within its
 * scope and only while no other ledger's marker claims any of it; `telform state claim` and
 * `release` hand parts over, explicitly, and each ledger records its hand-overs.
 *
 * An account (or part) nobody has claimed is claimed by the first ledger that writes to it (apply,
 * import), as that write's first request — except by a ledger that released it: that one must
 * claim it again, explicitly.
 */
export type Ownership =
  | { status: 'unclaimed' }
  | { status: 'ours'; marker: OwnershipMarker }
  /** Markers of other lineages claim part of this scope; `ours` when this ledger's marker is there too. */
  | { status: 'other'; owners: Rival[]; ours: OwnershipMarker | undefined };

/** Another ledger's marker whose scope overlaps this one's, with what they share (in words). */
export interface Rival extends OwnershipMarker {
  overlap: string;
}

/** The markers that matter to a ledger of `lineage` claiming `scope`. */
export function ownershipOf(
  markers: readonly OwnershipMarker[],
  lineage: string,
  scope: Scope = everything,
): Ownership {
  const ours = markers.filter((marker) => marker.lineage === lineage);
  const owners = markers.flatMap((marker) => {
    if (marker.lineage === lineage) return [];
    const overlap = scopeOverlap(scope, marker.scope);
    return overlap === undefined ? [] : [{ ...marker, overlap }];
  });
  // Of this ledger's own markers (two only while a claim changes its scope), the one of its scope.
  const mine = ours.find((marker) => sameScope(marker.scope, scope)) ?? ours[0];
  if (owners.length > 0) return { status: 'other', owners, ours: mine };
  return mine ? { status: 'ours', marker: mine } : { status: 'unclaimed' };
}

/** The part of the account a ledger owns, as its last hand-over recorded it (everything by default). */
export function ledgerScope(ledger: Ledger): Scope {
  return ledger.ownership?.at(-1)?.scope ?? everything;
}

/** Whether the last hand-over this ledger recorded gave all it owned away. */
export function releasedByLedger(ledger: Ledger): boolean {
  const last = ledger.ownership?.at(-1);
  return last?.action === 'release' && last.scope === undefined;
}

/** One line naming the owner(s), for refusals and for the reads that still work. */
export function describeOwners(owners: readonly (OwnershipMarker & { overlap?: string })[]): string {
  // Several owners of disjoint parts are each named with the part they hold; several of the same part must not be.
  const parts =
    owners.length > 1 &&
    owners.every((owner) => owner.overlap !== undefined) &&
    new Set(owners.map((owner) => owner.overlap)).size === owners.length;
  const named = owners.map((owner) => {
    const details = [
      ...(isEverything(owner.scope) ? [] : [`scope ${describeScope(owner.scope)}`]),
      ...(parts ? [`holding ${owner.overlap ?? ''}`] : []),
    ];
    return `${owner.lineage}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
  });
  const lineages = named.join(', ');
  if (owners.length === 1) return `the telform ledger of lineage ${lineages}`;
  return parts
    ? `the telform ledgers of lineages ${lineages}`
    : `the telform ledgers of lineages ${lineages} (several claims: one must go)`;
}

/** "account A", or "account A (<overlap>)" when the owners claim only part of what this ledger wants. */
function accountPart(account: string, owners: readonly Rival[]): string {
  const overlaps = [...new Set(owners.map((owner) => owner.overlap))].sort();
  return overlaps.length === 1 && overlaps[0] === 'every kind'
    ? `account ${account}`
    : `${overlaps.join(', ')} of account ${account}`;
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
  if (ownership.ours) throw contested(what, ownership.ours, ownership.owners, store, account);
  throw new TelformError(
    'account_owned',
    `${what} refused: ${accountPart(account, ownership.owners)} is owned by ${describeOwners(ownership.owners)}, not by ${store.existed ? `the state ${store.file} (lineage ${ledger.lineage})` : `a new state ${store.file}`}; ${handOverAdvice(ownership.owners)}`,
  );
}

/**
 * This ledger's marker and another lineage's claim the same objects: one of them was not made by
 * a claim that finished (a forged marker, or a hand-over stopped half-way). Both are named, with
 * their ACL ids, and nothing is written until one goes.
 */
function contested(
  what: string,
  ours: OwnershipMarker,
  owners: readonly Rival[],
  store: LedgerStore,
  account: string,
): TelformError {
  const theirs = owners
    .map(
      (owner) =>
        `lineage ${owner.lineage} (SIP IP ACL ${owner.id}${isEverything(owner.scope) ? '' : `, scope ${describeScope(owner.scope)}`})`,
    )
    .join(', ');
  return new TelformError(
    'account_contested',
    `${what} refused: ${accountPart(account, owners)} holds two ownership markers: this state's (${store.file}, lineage ${ours.lineage}, SIP IP ACL ${ours.id}) and ${theirs}; ` +
      `telform cannot tell which is the owner, so nothing is written; if that lineage is no telform state of yours, delete its SIP IP ACL in the console; if it is, hand over with telform state release and telform state claim`,
  );
}

/**
 * Whether this ledger's first write claims the account: nobody owns its scope and this ledger did
 * not release it (a released ledger is refused instead, by `assertMayWrite`).
 */
export function claimsOnWrite(ownership: Ownership, ledger: Ledger): boolean {
  return ownership.status === 'unclaimed' && !releasedByLedger(ledger);
}

/**
 * Said by a plan or apply whose first write will claim the account (`adopted`: how many objects
 * already in it it takes over). A ledger never written yet gets its lineage when it is first
 * stored, so the plan names the state rather than a lineage that would not last.
 */
export function claimNote(store: LedgerStore, account: string, adopted: number): string {
  const whose = store.existed
    ? `the state ${store.file} (lineage ${store.ledger.lineage})`
    : `the new state ${store.file}`;
  const taken = adopted === 0 ? '' : ` and takes over ${adopted} object${adopted === 1 ? '' : 's'} already in it`;
  const scope = ledgerScope(store.ledger);
  const part = isEverything(scope) ? `account ${account}` : `${describeScope(scope)} of account ${account}`;
  return `note: this apply claims ${part} for ${whose}${taken}: nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read ${isEverything(scope) ? 'the account' : 'that part'} (hand-over: telform state release and telform state claim)`;
}

/**
 * Said by the owner's plan and drift when the account holds no marker of its ledger although the
 * ledger's last hand-over was a claim: somebody deleted it outside telform.
 */
export function lostMarkerWarning(ownership: Ownership, store: LedgerStore, account: string): string | undefined {
  const last = store.ledger.ownership?.at(-1);
  if (last?.action !== 'claim' || ownership.status === 'ours' || (ownership.status === 'other' && ownership.ours))
    return undefined;
  return `warning: the state ${store.file} (lineage ${store.ledger.lineage}) claimed account ${account} at ${last.at}, but the account holds no ownership marker of it: it was deleted outside telform, so other states see the account as ${ownership.status === 'unclaimed' ? "nobody's" : 'theirs'}; ${ownership.status === 'unclaimed' ? 'the next apply claims it again (or run telform state claim now)' : 'hand-over: telform state release and telform state claim'}`;
}

/** Said when the account holds ACLs named like a marker that are not one: they claim nothing. */
export function foreignMarkerNotes(foreign: readonly ForeignMarkerName[]): string[] {
  return foreign.map(
    (acl) =>
      `note: SIP IP ACL ${acl.id} is named like an ownership marker (${JSON.stringify(acl.name)}) but names no telform ledger: it is an ordinary ACL and claims nothing`,
  );
}

/**
 * Requests a claim on the first write sends: a fresh read of the markers (the plan's may be old by
 * the time apply starts), the marker's create, and the read that checks no other state claimed the
 * account at the same moment.
 */
export const claimRequests = 3;

/** Refuses a claim that needs one more SIP IP ACL in an account that holds the API's maximum. */
function assertMarkerRoom(total: number, account: string, what: string): void {
  if (total < maxSipIpAcls) return;
  throw new TelformError(
    'acl_quota',
    `${what} refused: claiming account ${account} needs one SIP IP ACL for its ownership marker, and the account holds ${total} (the API allows ${maxSipIpAcls}); free one first: delete an ACL nobody needs (telform plan --show-unmanaged lists those no state manages)`,
  );
}

/**
 * Claims the account (the ledger's scope of it) before its first write (apply, import): a ledger
 * never stored is stored first (the marker must name a lineage that lasts; its first apply so ends
 * at serial 2), the marker is made, and the markers are read again. Another lineage's marker over
 * the same scope then means another ledger claimed it at the same time: this one removes its own
 * marker and refuses, before anything else is written. Each racer that sees the other backs off,
 * so two ledgers never both go on (the API lists markers in no order a tie could be broken by
 * safely: one that saw only its own marker has already gone on); when both back off, the account
 * stays unclaimed and the next run claims it.
 */
export async function claimOnFirstWrite(
  store: LedgerStore,
  live: LiveContext,
  account: string,
  what: string,
): Promise<void> {
  const lineage = store.ledger.lineage;
  const scope = ledgerScope(store.ledger);
  const reading = await readMarkerReading(live, true);
  const before = ownershipOf(reading.markers, lineage, scope);
  if (before.status === 'ours') return;
  assertMayWrite(before, store, account, what);
  assertMarkerRoom(reading.total, account, what);
  await store.persist();
  const mine = await createOwnershipMarker(live, lineage, scope);
  const after = ownershipOf((await readMarkerReading(live, true)).markers, lineage, scope);
  if (after.status === 'other') {
    await deleteOwnershipMarker(live, mine);
    throw new TelformError(
      'account_owned',
      `${what} refused: ${accountPart(account, after.owners)} was claimed by ${describeOwners(after.owners)} while the state ${store.file} (lineage ${lineage}) was claiming it; nothing else was written; if that state backed off too (the account then has no marker), the next apply claims it; otherwise ${handOverAdvice(after.owners)}`,
    );
  }
  // Written with the run's own changes (the store compacts when it closes): one serial, not two.
  store.recordOwnership({ action: 'claim', at: store.timestamp(), ...(isEverything(scope) ? {} : { scope }) });
}

/** How to hand an account over, said in every refusal; each value in the command is shell-quoted. */
export function handOverAdvice(owners: readonly OwnershipMarker[]): string {
  const from = shellQuote(owners.map((owner) => owner.lineage).join(','));
  return `drift and telform state list still read it; to hand it over, run telform state release with the owner's state and then telform state claim with this one, or, if the owner's state is lost, telform state claim --take-over ${from}`;
}

export interface ClaimResult {
  /** Whether this ledger owned the scope already (nothing was changed). */
  already: boolean;
  /** The lineages the scope was taken from (`--take-over`). */
  from: string[];
  /** The scope the ledger owns now. */
  scope: Scope;
}

/**
 * Makes this ledger the owner of `scope` (default: the scope it has). Refused while another
 * ledger's marker claims any of it unless `takeOver` names exactly those owners' lineages
 * (explicit: a typo or a stale command cannot take an account). The ledger is stored first (a
 * marker must never name a lineage a crash could lose); this ledger's new marker is made and the
 * markers read again (a rival that claimed at the same moment makes this claim back off) before
 * any other marker is removed or narrowed, so the scope is never without an owner in between and
 * never has two that may write; the claim is recorded in the ledger.
 */
export async function claimAccount(
  store: LedgerStore,
  live: LiveContext,
  account: string,
  takeOver: readonly string[],
  requested?: Scope,
): Promise<ClaimResult> {
  const lineage = store.ledger.lineage;
  const scope = requested ?? ledgerScope(store.ledger);
  const reading = await readMarkerReading(live, true);
  const ownership = ownershipOf(reading.markers, lineage, scope);
  const mineBefore = reading.markers.filter((marker) => marker.lineage === lineage);
  const exact = mineBefore.find((marker) => sameScope(marker.scope, scope));
  if (
    ownership.status === 'ours' &&
    exact &&
    mineBefore.length === 1 &&
    sameScope(ledgerScope(store.ledger), scope) &&
    !releasedByLedger(store.ledger)
  ) {
    return { already: true, from: [], scope };
  }
  const owners = ownership.status === 'other' ? ownership.owners : [];
  const named = [...new Set(takeOver)].sort();
  const lineages = [...new Set(owners.map((owner) => owner.lineage))].sort();
  if (
    owners.length > 0 &&
    (named.length !== lineages.length || named.some((item, index) => item !== lineages[index]))
  ) {
    throw new TelformError(
      'account_owned',
      named.length === 0
        ? `${accountPart(account, owners)} is owned by ${describeOwners(owners)}; to take it from that ledger, run telform state release with it first, or, if it is lost, telform state claim --take-over ${shellQuote(lineages.join(','))}`
        : `--take-over ${shellQuote(named.join(','))} does not name the owner of ${accountPart(account, owners)}: it is owned by ${describeOwners(owners)}`,
    );
  }
  if (owners.length === 0 && named.length > 0) {
    throw new TelformError(
      'bad_option',
      `--take-over ${shellQuote(named.join(','))}: ${isEverything(scope) ? `account ${account}` : `${describeScope(scope)} of account ${account}`} has no owner to take it from; run telform state claim without it`,
    );
  }
  const remainders = owners.map((owner) => ({ owner, rest: remainderOf(owner.scope, scope) }));
  const split = remainders.find(({ rest }) => rest === 'unsplittable');
  if (split) {
    throw new TelformError(
      'bad_option',
      `--take-over ${shellQuote(split.owner.lineage)}: its scope (${describeScope(split.owner.scope)}) and the one claimed (${describeScope(scope)}) differ in their name prefix, so telform cannot take part of it; claim its whole scope, or have it release the part (telform state release --scope)`,
    );
  }
  if (!exact)
    assertMarkerRoom(reading.total + remainders.filter(({ rest }) => rest !== 'none').length, account, 'claim');
  await store.persist();
  const mine = exact ?? (await createOwnershipMarker(live, lineage, scope));
  // A rival that claimed part of this scope at the same moment (and is not being taken over): back off.
  const after = ownershipOf((await readMarkerReading(live, true)).markers, lineage, scope);
  const racing = after.status === 'other' ? after.owners.filter((owner) => !named.includes(owner.lineage)) : [];
  if (racing.length > 0) {
    if (!exact) await deleteOwnershipMarker(live, mine);
    throw new TelformError(
      'account_owned',
      `claim refused: ${accountPart(account, racing)} was claimed by ${describeOwners(racing)} while the state ${store.file} (lineage ${lineage}) was claiming it; nothing else was changed`,
    );
  }
  for (const { owner, rest } of remainders) {
    // What the owner keeps gets its own marker before the old one goes.
    if (rest !== 'none' && rest !== 'unsplittable') await createOwnershipMarker(live, owner.lineage, rest);
    await deleteOwnershipMarker(live, owner);
  }
  for (const old of mineBefore) if (old.id !== mine.id) await deleteOwnershipMarker(live, old);
  store.recordOwnership({
    action: 'claim',
    at: store.timestamp(),
    ...(lineages.length > 0 ? { from_lineage: lineages.join(',') } : {}),
    ...(isEverything(scope) ? {} : { scope }),
  });
  await store.compact();
  return { already: false, from: lineages, scope };
}

/**
 * What an owner keeps of `theirs` when `taken` is claimed from it: nothing, the kinds it had that
 * were not taken, or `unsplittable` when the two differ in their prefix (a part of a prefixed
 * scope is not a scope telform can write down).
 */
function remainderOf(theirs: Scope, taken: Scope): Scope | 'none' | 'unsplittable' {
  const theirKinds = theirs.kinds === 'everything' ? undefined : theirs.kinds;
  const coversNames = taken.prefix === undefined || taken.prefix === theirs.prefix;
  const keptKinds = (theirKinds ?? scopeKinds).filter((kind) => !scopeHasKind(taken, kind));
  if (keptKinds.length === 0 && coversNames) return 'none';
  if (!coversNames) return 'unsplittable';
  return { kinds: keptKinds, ...(theirs.prefix === undefined ? {} : { prefix: theirs.prefix }) };
}

/**
 * Gives up the account, or the part `part` of this ledger's scope: the marker is removed (or
 * replaced by one of what the ledger keeps, made before the old one is removed), the release is
 * recorded, and the ledger forgets the entries of what it gave up (the objects stay in the
 * account, for the next owner to adopt). A ledger that released everything refuses to write to
 * the account until it claims it again. Refused when it is not the owner.
 */
export async function releaseAccount(
  store: LedgerStore,
  live: LiveContext,
  account: string,
  part?: Scope,
): Promise<{ forgotten: string[]; scope: Scope | undefined }> {
  const markers = (await readMarkerReading(live, true)).markers;
  const mine = markers.filter((marker) => marker.lineage === store.ledger.lineage);
  // The account's record wins over the ledger's: another state may have taken part of it over.
  const current = mine.length === 1 ? (mine[0] as OwnershipMarker).scope : ledgerScope(store.ledger);
  const ownership = ownershipOf(markers, store.ledger.lineage, current);
  if (ownership.status === 'unclaimed') {
    throw new TelformError(
      'account_not_owned',
      `the state ${store.file} does not own account ${account}: nobody has claimed it, so there is nothing to release`,
    );
  }
  if (ownership.status === 'other' && !ownership.ours) {
    throw new TelformError(
      'account_not_owned',
      `the state ${store.file} does not own account ${account}: ${describeOwners(ownership.owners)} does`,
    );
  }
  const marker = ownership.status === 'ours' ? ownership.marker : (ownership.ours as OwnershipMarker);
  const kept = part === undefined || isEverything(part) ? 'none' : remainderOf(current, part);
  if (kept === 'unsplittable') {
    throw new TelformError(
      'bad_option',
      `--scope ${describeScope(part as Scope)}: the state owns ${describeScope(current)}, and a part with another name prefix cannot be released; release its whole scope`,
    );
  }
  if (kept !== 'none' && sameScope(kept, current)) {
    throw new TelformError(
      'bad_option',
      `--scope ${describeScope(part as Scope)}: the state owns ${describeScope(current)}, which holds none of it; nothing to release`,
    );
  }
  if (kept !== 'none') await createOwnershipMarker(live, store.ledger.lineage, kept);
  await deleteOwnershipMarker(live, marker);
  const forgotten = Object.entries(store.ledger.resources)
    .filter(([, entry]) => (kept === 'none' ? false : !scopeHasKind(kept, entry.kind)))
    .map(([address]) => address)
    .sort();
  for (const address of forgotten) await store.recordResult(address, null);
  store.recordOwnership({ action: 'release', at: store.timestamp(), ...(kept === 'none' ? {} : { scope: kept }) });
  await store.compact();
  return { forgotten, scope: kept === 'none' ? undefined : kept };
}
