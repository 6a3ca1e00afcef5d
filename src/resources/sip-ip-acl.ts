import * as z from 'zod';
import { createWithRecovery } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import { friendlyName, ipv4 } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { keepFields, textFields, type SnapshotJson } from './snapshot-record.js';
import {
  integer,
  itemPath,
  listRecords,
  present,
  readRecord,
  text,
  type ApiRecord,
  type CreateAnswer,
} from './api-records.js';
import { createOnce, deleteAt, findCreated, pick } from './collection-crud.js';
import type { LiveContext, LiveObject, LiveSide, PatchOperation } from './live-side.js';
import {
  isMarkerRecord,
  isOwnershipMarkerName,
  ownershipMarkerPrefix,
  separateOwnershipMarkers,
} from './ownership-marker-name.js';

/** A SIP IP access control list holds at most 50 entries (the API refuses more). */
export const maxSipAclEntries = 50;

const entry = z
  .strictObject({
    ip: ipv4.describe('IPv4 address (with cidr_prefix, the start of the range).'),
    cidr_prefix: z
      .int()
      .min(0)
      .max(32)
      .default(32)
      .describe('CIDR prefix 0–32; 32 is the single address, 0 allows every address.'),
    description: z.string().max(255).optional().describe('Free text, up to 255 characters.'),
  })
  .describe('An entry of the list; ip and cidr_prefix together identify it.');

/** The key of an entry: `ip/cidr_prefix`, the same range written the same way. */
function entryKey(member: unknown): string {
  const value = member as { ip?: unknown; cidr_prefix?: unknown };
  return `${String(value.ip)}/${String(value.cidr_prefix ?? 32)}`;
}

const collection = '/SipAuth/IpAccessControlList/';

/** An entry as the API returns it, with the id needed to remove it. */
interface LiveEntry {
  entry_id: string;
  ip: string | undefined;
  cidr_prefix: number;
  description: string | undefined;
}

function liveEntries(raw: ApiRecord): LiveEntry[] {
  const entries = Array.isArray(raw['entries']) ? (raw['entries'] as unknown[]) : [];
  return entries
    .filter((item): item is ApiRecord => item !== null && typeof item === 'object')
    .map((item) => ({
      entry_id: String(item['entry_id']),
      ip: text(item['ip']),
      // The API takes cidr_prefix 32 when it is not given.
      cidr_prefix: integer(item['cidr_prefix']) ?? 32,
      description: text(item['description']),
    }));
}

/** An entry as the manifest spells it (no id; an empty description is no description). */
function specEntry(entry: { ip?: unknown; cidr_prefix?: unknown; description?: unknown }): Record<string, unknown> {
  return present({
    ip: text(entry.ip),
    cidr_prefix: integer(entry.cidr_prefix) ?? 32,
    description: text(entry.description),
  });
}

/**
 * A live list in the manifest's shape. A read that leaves out the entries, or an entry's `cidr_prefix`, leaves
 * the entries unknown (`unread`), never the schema's defaults (no entries, a single address).
 */
export function normaliseSipIpAcl(raw: ApiRecord): LiveObject {
  const listed = Array.isArray(raw['entries']) ? (raw['entries'] as unknown[]) : undefined;
  const unknownEntries =
    listed === undefined ||
    listed.some(
      (item) => item !== null && typeof item === 'object' && integer((item as ApiRecord)['cidr_prefix']) === undefined,
    );
  return {
    id: String(raw['ip_acl_uuid']),
    spec: present({ name: text(raw['name']), entries: unknownEntries ? undefined : liveEntries(raw).map(specEntry) }),
    ...(unknownEntries ? { unread: ['entries'] } : {}),
  };
}

const naturalKey = (spec: Record<string, unknown>): string | undefined => text(spec['name']);

function desiredEntries(spec: Record<string, unknown>): Array<Record<string, unknown>> {
  const entries = Array.isArray(spec['entries']) ? (spec['entries'] as Array<Record<string, unknown>>) : [];
  return entries.map(specEntry);
}

function sameEntry(live: LiveEntry, wanted: Record<string, unknown>): boolean {
  return (
    live.ip === wanted['ip'] && live.cidr_prefix === wanted['cidr_prefix'] && live.description === wanted['description']
  );
}

/** Settles every task before reporting the first failure, so no request is left running unseen. */
async function allSettled(tasks: ReadonlyArray<() => Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => task()));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Adds one entry. An add whose answer was lost is looked for (an entry with the same ip, prefix
 * and description that was not there before) before it is sent again (docs/commands.md, connecting to the API).
 */
async function addEntry(
  context: LiveContext,
  aclId: string,
  entry: Record<string, unknown>,
  before: ReadonlySet<string>,
): Promise<void> {
  await createWithRecovery(
    context.client,
    `${itemPath(collection, aclId)}Entry/`,
    pick(entry, ['ip', 'cidr_prefix', 'description']),
    async () => {
      const raw = await readRecord(context.client, itemPath(collection, aclId));
      return raw ? liveEntries(raw).find((live) => !before.has(live.entry_id) && sameEntry(live, entry)) : undefined;
    },
  );
}

/**
 * Brings the list's entries to the desired set (keyed by ip/cidr_prefix) with one request per
 * entry added or removed; the API has no entry update, so a new description is an add and a remove.
 * Adds go first, so an address that stays trusted is never untrusted in between, unless the
 * 50-entry cap leaves no room; then removals go first.
 */
async function syncEntries(
  context: LiveContext,
  aclId: string,
  desired: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  const raw = await readRecord(context.client, itemPath(collection, aclId));
  if (!raw) throw new TelformError('vanished', `SIP IP ACL ${aclId} disappeared while its entries were being changed`);
  const current = liveEntries(raw);
  const wanted = new Map(desired.map((entry) => [entryKey(entry), entry]));
  const kept = new Set<string>();
  const removals: string[] = [];
  for (const live of current) {
    const key = entryKey(live);
    const want = wanted.get(key);
    if (want && !kept.has(key) && sameEntry(live, want)) kept.add(key);
    else removals.push(live.entry_id);
  }
  const additions = [...wanted].filter(([key]) => !kept.has(key)).map(([, entry]) => entry);
  const before = new Set(current.map((live) => live.entry_id));
  const add = () => allSettled(additions.map((entry) => () => addEntry(context, aclId, entry, before)));
  const remove = () =>
    allSettled(
      removals.map(
        (entryId) => () => deleteAt(context, `${itemPath(collection, aclId)}Entry/${encodeURIComponent(entryId)}/`),
      ),
    );
  if (current.length + additions.length <= maxSipAclEntries) {
    await add();
    await remove();
  } else {
    await remove();
    await add();
  }
}

/**
 * Requests of an update with these patch operations (see `syncEntries`): one for a rename; for
 * entries, the read of the list, one per entry added or removed, two per entry whose description
 * changes (the API has no entry update).
 */
function updateRequests(patch: readonly PatchOperation[]): number {
  let requests = 0;
  const entries = new Map<string, number>();
  for (const operation of patch) {
    const [field, key, ...rest] = operation.path.split('/').slice(1);
    if (field === 'name') requests += 1;
    if (field !== 'entries') continue;
    if (key === undefined) {
      const members = operation.op === 'remove' ? 1 : Object.keys((operation as { value?: object }).value ?? {}).length;
      entries.set('', (entries.get('') ?? 0) + members);
    } else {
      entries.set(key, rest.length === 0 ? 1 : 2);
    }
  }
  if (entries.size === 0) return requests;
  return requests + 1 + [...entries.values()].reduce((sum, count) => sum + count, 0);
}

/** Where a create answer holds the new list's id (the field's name there is not documented: see `createOwnershipMarker`). */
const createAnswer: CreateAnswer = { idField: 'ip_acl_uuid', under: ['ip_acl', 'object'] };

/**
 * The live side: created with its entries in one request;
 * a rename is the list update; entries are added and removed one by one.
 */
export const sipIpAclLive: LiveSide = {
  naturalKey,
  // Ownership markers are SIP IP ACLs that are not the account's: left out of every list and read.
  alwaysRead: true,
  list: async (context) =>
    separateOwnershipMarkers(context, await listRecords(context.client, collection, 'ip_acl_uuid')).map(
      normaliseSipIpAcl,
    ),
  read: async (context, id) => {
    const raw = await readRecord(context.client, itemPath(collection, id));
    return raw && !isMarkerRecord(raw) ? normaliseSipIpAcl(raw) : undefined;
  },
  createAnswer,
  create: (context, spec) => {
    const entries = desiredEntries(spec).map((entry) => pick(entry, ['ip', 'cidr_prefix', 'description']));
    const body = { name: spec['name'], ...(entries.length > 0 ? { entries } : {}) };
    return createOnce(context, collection, body, createAnswer, async () =>
      findCreated(
        await sipIpAclLive.list(context),
        naturalKey,
        { ...spec, entries: desiredEntries(spec) },
        ['entries'],
        'SipIpAcl',
      ),
    );
  },
  update: async (context, request) => {
    if (request.changedFields.includes('name')) {
      await context.client.request('POST', itemPath(collection, request.id), {
        body: { name: request.desired['name'] },
        mode: 'idempotent',
      });
    }
    if (request.changedFields.includes('entries'))
      await syncEntries(context, request.id, desiredEntries(request.desired));
  },
  // A 409 (still assigned to an application) surfaces with the API's own message.
  delete: (context, id) => deleteAt(context, itemPath(collection, id)),
  fields: { updatable: ['name', 'entries'], replaceOn: [], immutable: [], unreadable: [], mayBeUnread: ['entries'] },
  requests: { update: updateRequests },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  whenInUse: 'needs_unassign',
};

const sipIpAclSpec = builtOnce(() =>
  z
    .strictObject({
      name: friendlyName('Name of the list, 1–120 characters. Defaults to metadata.name.', 120).optional(),
      entries: z
        .array(entry)
        .max(maxSipAclEntries)
        .default([])
        .describe(`Entries, at most ${maxSipAclEntries}; a set keyed by ip/cidr_prefix.`),
    })
    .describe('SipIpAcl spec.'),
);

/**
 * A SIP IP access control list (SipAuth) of trusted IPv4 addresses or ranges, assigned to
 * applications by `ApplicationSipAuth`. Entries are a set keyed by `ip/cidr_prefix`.
 */
const aclEntrySnapshotFields = textFields(['entry_id', 'ip', 'description'], { cidr_prefix: 'number' });

/** A SIP IP ACL as a snapshot keeps it: each entry cut to its documented fields. */
function withAclEntries(record: Readonly<Record<string, unknown>>, kept: Record<string, SnapshotJson>): SnapshotJson {
  const entries = Array.isArray(record.entries) ? (record.entries as unknown[]) : [];
  return {
    ...kept,
    entries: entries
      .filter((entry): entry is Record<string, unknown> => entry !== null && typeof entry === 'object')
      .map((entry) => keepFields(entry, aclEntrySnapshotFields)),
  };
}

export const sipIpAcl = {
  name: 'SipIpAcl',
  description: 'SIP IP access control list: trusted IPv4 addresses or ranges for calls to an application.',
  get spec() {
    return sipIpAclSpec();
  },
  nameField: 'name',
  references: {},
  secrets: {},
  setFields: { entries: entryKey },
  uniqueFields: [],
  rules: [],
  checks: [
    (spec, report) => {
      if (isOwnershipMarkerName(spec['name'])) {
        report(['name'], {
          severity: 'error',
          message: `names starting "${ownershipMarkerPrefix}" are telform's ownership markers; a manifest cannot manage one`,
        });
      }
      const entries = spec['entries'] as ReadonlyArray<{ ip: string; cidr_prefix: number }>;
      entries.forEach((item, index) => {
        // Like plivo-cli's risky-range warning: legal, rarely meant.
        if (item.cidr_prefix === 0)
          report(['entries', index, 'cidr_prefix'], {
            severity: 'warning',
            message: 'prefix 0 trusts every IPv4 address',
          });
        else if (item.cidr_prefix < 8)
          report(['entries', index, 'cidr_prefix'], {
            severity: 'warning',
            message: `prefix ${item.cidr_prefix} trusts a range wider than a /8`,
          });
      });
    },
  ],
  live: sipIpAclLive,
  // An address taken out of the list is a caller no longer let in.
  traffic: { admits: { members: 'entries' } },
  snapshot: {
    collection: 'sip_ip_acls',
    path: collection,
    itemsKey: 'objects',
    idField: 'ip_acl_uuid',
    seed: 'existing',
    fields: textFields(['ip_acl_uuid', 'name', 'created_at'], { entries: 'list' }),
    project: withAclEntries,
  },
  scope: { code: 'sa', preset: 'voice' },
} as const satisfies Kind;
