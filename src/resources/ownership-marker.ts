// The ownership marker: the object in the account that names the ledger owning it (its lineage).
import { createWithRecovery } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import { itemPath, listRecords, text, type ApiRecord } from './api-records.js';
import { deleteAt } from './collection-crud.js';
import type { LiveContext } from './live-side.js';
import {
  isOwnershipMarkerName,
  markerNameParts,
  markerRecordsMemoKey,
  ownershipMarkerPrefix,
} from './ownership-marker-name.js';
import { everything, scopeFromCodes, scopeSuffix, type Scope } from './ownership-scope.js';

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
 * The name is the prefix, the ledger's lineage (a random UUID, as `state/ledger.ts` makes it) and,
 * for a ledger that owns part of the account, its scope (`ownership-scope.ts`). Only a name of
 * exactly that form is a marker: any other ACL whose name starts with the prefix is somebody's
 * ordinary ACL (it could name anything, shell text included), reported as such and never trusted.
 *
 * It takes one of the account's 100 SIP IP ACLs. The SIP IP ACL kind leaves markers out of its
 * lists (so plans, imports, unmanaged lists and `--prune-unmanaged` never see one) and a manifest
 * may not name one; the API and the emulator treat it as any other ACL.
 */
const collection = '/SipAuth/IpAccessControlList/';

/** The SIP IP ACLs an account may hold (the API's limit): a claim needs one of them free. */
export const maxSipIpAcls = 100;

export interface OwnershipMarker {
  /** The ACL's id. */
  id: string;
  /** The lineage of the ledger it names. */
  lineage: string;
  /** The part of the account it claims (everything for a marker without a scope). */
  scope: Scope;
}

/** An ACL named like a marker that is not one: live text, never trusted. */
export interface ForeignMarkerName {
  id: string;
  name: string;
}

/** What the account's SIP IP ACL list says about ownership. */
export interface MarkerReading {
  markers: OwnershipMarker[];
  /** ACLs whose name starts like a marker's but is not one. */
  foreign: ForeignMarkerName[];
  /** Every SIP IP ACL of the account, markers included (the API allows `maxSipIpAcls`). */
  total: number;
}

/** The name of the marker of a lineage and scope (within the API's 120 characters: `ownership-scope.ts`). */
export function ownershipMarkerName(lineage: string, scope: Scope = everything): string {
  return `${ownershipMarkerPrefix}${lineage}${scopeSuffix(scope)}`;
}

/** The marker a name is, if it has exactly the form telform writes. */
export function parseMarkerName(name: string): { lineage: string; scope: Scope } | undefined {
  const parts = markerNameParts(name);
  return parts && { lineage: parts.lineage, scope: scopeFromCodes(parts.codes, parts.prefix) };
}

/** The marker a SIP IP ACL record is, if it is one. */
function markerOf(record: ApiRecord): OwnershipMarker | undefined {
  const name = text(record['name']);
  const parsed = name === undefined ? undefined : parseMarkerName(name);
  return parsed ? { id: String(record['ip_acl_uuid']), ...parsed } : undefined;
}

function readingOf(records: readonly ApiRecord[]): MarkerReading {
  const markers = records.flatMap((record) => markerOf(record) ?? []);
  const foreign = records.flatMap((record) => {
    const name = text(record['name']);
    return name !== undefined && isOwnershipMarkerName(name) && markerOf(record) === undefined
      ? [{ id: String(record['ip_acl_uuid']), name }]
      : [];
  });
  const byLineage = (a: OwnershipMarker, b: OwnershipMarker) =>
    a.lineage < b.lineage ? -1 : a.lineage > b.lineage ? 1 : a.id < b.id ? -1 : 1;
  return { markers: markers.sort(byLineage), foreign, total: records.length };
}

/**
 * The account's markers, the ACLs named like one that are not, and how many ACLs it holds: as
 * the run's list of SIP IP ACLs saw them, or (`fresh`, or no list read yet) read now.
 */
export async function readMarkerReading(context: LiveContext, fresh = false): Promise<MarkerReading> {
  const seen = fresh ? undefined : context.memo?.get(markerRecordsMemoKey);
  if (seen) return readingOf((await seen) as readonly ApiRecord[]);
  const records = await listRecords(context.client, collection, 'ip_acl_uuid');
  context.memo?.set(markerRecordsMemoKey, Promise.resolve(records));
  return readingOf(records);
}

/** The account's markers, sorted by lineage, so a message naming several is stable. */
export async function readOwnershipMarkers(context: LiveContext, fresh = false): Promise<OwnershipMarker[]> {
  return (await readMarkerReading(context, fresh)).markers;
}

/**
 * Creates the marker of `lineage` (never twice: a create whose answer was lost is looked for
 * first). The create answer's id field is not documented: an answer without `ip_acl_uuid` is
 * followed by a read of the markers, which finds the new one by its name.
 */
export async function createOwnershipMarker(
  context: LiveContext,
  lineage: string,
  scope: Scope = everything,
): Promise<OwnershipMarker> {
  const name = ownershipMarkerName(lineage, scope);
  const find = async () =>
    (await readOwnershipMarkers(context, true)).find(
      (marker) => marker.lineage === lineage && ownershipMarkerName(marker.lineage, marker.scope) === name,
    );
  const outcome = await createWithRecovery<unknown>(context.client, collection, { name }, find);
  context.memo?.delete(markerRecordsMemoKey);
  if (outcome.kind === 'recovered') return outcome.found as OwnershipMarker;
  const body = outcome.response.body as ApiRecord | undefined;
  const id = body && typeof body === 'object' ? text(body['ip_acl_uuid']) : undefined;
  if (id !== undefined) return { id, lineage, scope };
  const found = await find();
  if (found) return found;
  throw new TelformError(
    'unexpected_response',
    `the API answered the creation of the ownership marker ${name} without its id, and no SIP IP ACL of that name could be read back`,
  );
}

/** Deletes a marker (one already gone is done). */
export async function deleteOwnershipMarker(context: LiveContext, marker: Pick<OwnershipMarker, 'id'>): Promise<void> {
  await deleteAt(context, itemPath(collection, marker.id));
  context.memo?.delete(markerRecordsMemoKey);
}
