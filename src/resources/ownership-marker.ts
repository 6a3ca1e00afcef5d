// The ownership marker: the object in the account that names the ledger owning it (its lineage).
import { createWithRecovery } from '../api/writes.js';
import { idFromResponse, itemPath, listRecords, text, type ApiRecord } from './api-records.js';
import { deleteAt } from './collection-crud.js';
import type { LiveContext } from './live-side.js';

/**
 * An ownership marker is a SIP IP access control list with no entries, named
 * `telform-owner:<lineage>`. It is where every ledger can see it — in the account itself, as
 * external-dns keeps its owner records among the DNS records it manages — and it is the least
 * intrusive object the API offers for it:
 *
 * - an ACL with no entries trusts no address, and one assigned to no application is on no call
 *   path: it changes nothing any call, message or registration does;
 * - it holds no secret (a credential would be a login someone could use) and costs nothing (a 10DLC
 *   object is billed, vetted and irreversible);
 * - its name says what it is to anyone who finds it in the console.
 *
 * It takes one of the account's 100 SIP IP ACLs. The SIP IP ACL kind leaves markers out of its
 * lists (so plans, imports, unmanaged lists and `--prune-unmanaged` never see one) and a manifest
 * may not name one; the API and the emulator treat it as any other ACL.
 */
export const ownershipMarkerPrefix = 'telform-owner:';

const collection = '/SipAuth/IpAccessControlList/';
const memoKey = 'ownership-markers';

export interface OwnershipMarker {
  /** The ACL's id. */
  id: string;
  /** The lineage of the ledger it names. */
  lineage: string;
}

/** Whether an ACL name is a marker's (also what a manifest may not use). */
export function isOwnershipMarkerName(name: unknown): boolean {
  return typeof name === 'string' && name.startsWith(ownershipMarkerPrefix);
}

/** The name of the marker of a lineage. */
export function ownershipMarkerName(lineage: string): string {
  return `${ownershipMarkerPrefix}${lineage}`;
}

/**
 * Splits a SIP IP ACL list into the markers and the rest, and remembers the markers for the run
 * (the kind's list is read by every plan: the ownership check needs no request of its own).
 */
export function separateOwnershipMarkers(context: LiveContext, records: readonly ApiRecord[]): ApiRecord[] {
  context.memo?.set(memoKey, Promise.resolve(markersIn(records)));
  return records.filter((record) => markerOf(record) === undefined);
}

/** The marker a SIP IP ACL record is, if it is one. */
export function markerOf(record: ApiRecord): OwnershipMarker | undefined {
  const name = text(record['name']);
  return name !== undefined && isOwnershipMarkerName(name) ? { id: String(record['ip_acl_uuid']), lineage: name.slice(ownershipMarkerPrefix.length) } : undefined;
}

function markersIn(records: readonly ApiRecord[]): OwnershipMarker[] {
  const markers = records.flatMap((record) => markerOf(record) ?? []);
  return markers.sort((a, b) => (a.lineage < b.lineage ? -1 : a.lineage > b.lineage ? 1 : 0));
}

/**
 * The account's markers: those the run's list of SIP IP ACLs saw, or (`fresh`, or no list read
 * yet) read now. Sorted by lineage, so a message naming several is stable.
 */
export async function readOwnershipMarkers(context: LiveContext, fresh = false): Promise<OwnershipMarker[]> {
  const seen = fresh ? undefined : context.memo?.get(memoKey);
  if (seen) return seen as Promise<OwnershipMarker[]>;
  const markers = markersIn(await listRecords(context.client, collection, 'ip_acl_uuid'));
  context.memo?.set(memoKey, Promise.resolve(markers));
  return markers;
}

/** Creates the marker of `lineage` (never twice: a create whose answer was lost is looked for first). */
export async function createOwnershipMarker(context: LiveContext, lineage: string): Promise<OwnershipMarker> {
  const name = ownershipMarkerName(lineage);
  const outcome = await createWithRecovery<unknown>(context.client, collection, { name }, async () =>
    (await readOwnershipMarkers(context, true)).find((marker) => marker.lineage === lineage),
  );
  const marker =
    outcome.kind === 'recovered' ? (outcome.found as OwnershipMarker) : { id: idFromResponse(outcome.response.body, 'ip_acl_uuid', collection), lineage };
  context.memo?.delete(memoKey);
  return marker;
}

/** Deletes a marker (one already gone is done). */
export async function deleteOwnershipMarker(context: LiveContext, marker: OwnershipMarker): Promise<void> {
  await deleteAt(context, itemPath(collection, marker.id));
  context.memo?.delete(memoKey);
}
