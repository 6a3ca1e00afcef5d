// What an ownership marker's name looks like, and the SIP IP ACL list's share of the markers: the part
// of the marker the SIP IP ACL kind needs. It reads no kind (a marker's scope names kinds by their
// codes, which `ownership-marker.ts` reads against the catalog), so the kinds can use it.
import { text, type ApiRecord } from './api-records.js';
import type { LiveContext } from './live-side.js';

/** Where a marker's name starts (see `ownership-marker.ts`). */
export const ownershipMarkerPrefix = 'telform-owner:';

/** The run's memo of the account's SIP IP ACL records, markers included, as the kind's list read them. */
export const markerRecordsMemoKey = 'ownership-markers';

/** A lineage as `state/ledger.ts` makes it: `crypto.randomUUID()`, lower case. */
const lineagePattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
/** The scope after the lineage: two-letter kind codes (`ownership-scope.ts`), a prefix, or neither. */
const scopeSuffixPattern = /^(?: kinds=([a-z]{2}(?:\.[a-z]{2})*))?(?: prefix=([A-Za-z0-9._-]{1,20}))?$/;

/** A marker's name taken apart: the lineage, and the scope's kind codes (none: every kind) and prefix. */
interface MarkerNameParts {
  lineage: string;
  codes?: string[];
  prefix?: string;
}

/** Whether an ACL name is in the markers' namespace (also what a manifest may not use). */
export function isOwnershipMarkerName(name: unknown): boolean {
  return typeof name === 'string' && name.startsWith(ownershipMarkerPrefix);
}

/** The parts of a name of exactly the form telform writes for a marker; undefined for any other name. */
export function markerNameParts(name: string): MarkerNameParts | undefined {
  if (!name.startsWith(ownershipMarkerPrefix)) return undefined;
  const rest = name.slice(ownershipMarkerPrefix.length);
  const lineage = lineagePattern.exec(rest)?.[0];
  if (lineage === undefined) return undefined;
  const match = scopeSuffixPattern.exec(rest.slice(lineage.length));
  if (!match) return undefined;
  return {
    lineage,
    ...(match[1] === undefined ? {} : { codes: match[1].split('.') }),
    ...(match[2] === undefined ? {} : { prefix: match[2] }),
  };
}

/** Whether a SIP IP ACL record is an ownership marker. */
export function isMarkerRecord(record: ApiRecord): boolean {
  const name = text(record['name']);
  return name !== undefined && markerNameParts(name) !== undefined;
}

/**
 * Splits a SIP IP ACL list into the markers and the rest, and remembers the whole list for the run
 * (the kind's list is read by every plan: the ownership check needs no request of its own).
 * An ACL named like a marker that is not one stays in the list: it is an ordinary ACL.
 */
export function separateOwnershipMarkers(context: LiveContext, records: readonly ApiRecord[]): ApiRecord[] {
  context.memo?.set(markerRecordsMemoKey, Promise.resolve(records));
  return records.filter((record) => !isMarkerRecord(record));
}
