import type { ApiClient } from '../api/client.js';
import type { CreateAnswer } from './api-records.js';

/**
 * The live side of a kind: how to read, normalise, create, update and
 * delete its objects, and — as data — which fields can change how. The engine is generic over it:
 * kinds add knowledge, not branches in the engine.
 *
 * Failure semantics (as Pulumi's providers state them): a failed `create` leaves nothing behind or
 * is recovered by natural key before it returns (so a retried apply never duplicates); after a
 * failed `delete` the object is assumed to exist; `update` may have applied part of its requests
 * (the next plan shows what is left).
 */

/** Registry outcome of a 10DLC object as the API reports it; the plan shows it, never acts on it. */
export interface RegistryStatus {
  registration_status: string;
  declined_reasons?: Array<{ code: string; message: string }>;
  error_code?: string;
  error_reason?: string;
}

/** A live object normalised to the manifest's spec shape. */
export interface LiveObject {
  id: string;
  /**
   * Same shape as a validated manifest spec: defaults filled, comma lists as arrays, `""`/`null`
   * as absent; reference fields hold live ids (the engine turns them back into refs); secrets absent.
   */
  spec: Record<string, unknown>;
  /**
   * When the API made it (ISO 8601), where the API says: settling a create an interrupted apply
   * may have sent claims only an object made after the create began.
   */
  createdAt?: string;
  /** 10DLC registration outcome, kept for the plan. */
  registry?: RegistryStatus;
  /** Facts the plan's flags and refusals need (numbers on a trunk, numbers processing on a campaign…). */
  facts?: LiveFacts;
  /**
   * Spec fields this read did not return (among the kind's `fields.mayBeUnread`): their value is
   * unknown, not absent, so the planner compares them as it compares write-only inputs (with the
   * value the ledger recorded at the last apply), never as drift or a reason to replace.
   */
  unread?: readonly string[];
}

export interface LiveFacts {
  /** Phone numbers attached (inbound trunk) or linked (campaign). */
  numbers?: number;
  /** Linked numbers whose link is still processing (a campaign delete is refused meanwhile). */
  numbersProcessing?: number;
  /** Ids of a brand's campaigns that are ACTIVE or PROCESSING (a brand delete is refused meanwhile). */
  activeCampaigns?: readonly string[];
  /** The account's primary profile (the API never deletes it). */
  primary?: boolean;
  /** Ids of the brands registered from a profile (they keep referring to it). */
  brands?: readonly string[];
  /** What a phone number's `app_id` is: an inbound trunk or an application. */
  attachment?: 'trunk' | 'application';
  /** A list these facts come from that the account refused (403): what it would tell is unknown, and the worst is assumed. */
  unreadContext?: 'campaigns' | 'brands';
  /** The campaign a phone number is linked to, being linked to, or failed to link to. */
  linkedCampaign?: string;
}

/** A flag of a change and why it is set. */
export interface ChangeImpact {
  flag: 'breaks_calls' | 'breaks_auth';
  reason: string;
}

export interface LiveContext {
  client: ApiClient;
  /**
   * Reads shared by one run (plan, then apply), by key: the account's phone numbers, which every
   * trunk and campaign read counts and which telform never changes. Without it each read lists them
   * again, so a run's cost would grow with trunks × numbers. Required, so that no caller can forget
   * it: `liveContext` is the one way to make a context.
   */
  readonly memo: Map<string, Promise<unknown>>;
}

/** A fresh view of the account for one run (plan, then apply, share it). */
export function liveContext(client: ApiClient): LiveContext {
  return { client, memo: new Map() };
}

/** `load()` once per run; a failed load is forgotten, so it is tried again. */
export function memoised<T>(context: LiveContext, key: string, load: () => Promise<T>): Promise<T> {
  const memo = context.memo;
  const known = memo.get(key);
  if (known) return known as Promise<T>;
  const loading = load();
  memo.set(key, loading);
  loading.catch(() => memo.delete(key));
  return loading;
}

/**
 * How many requests a kind's operations send, beyond the one request each (the plan's estimate of
 * what apply sends; apply orders its work by it). An update is computed from the object as the
 * plan's read found it, so it costs only its writes.
 */
export interface RequestCosts {
  /**
   * `read`: the record and what it counts that a run does not share (a brand's campaigns): what
   * each registry poll of `apply --wait` costs. Default 1.
   */
  read?: number;
  /** `delete`: brands and campaigns are read back to confirm it. Default 1. */
  delete?: number;
  /** `update` for these RFC 6902 operations (a SIP IP ACL adds and removes entries one by one). Default 1. */
  update?(patch: readonly PatchOperation[]): number;
}

/** An RFC 6902 operation of a plan's patch, as far as a kind's request count reads it. */
export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

/** A spec ready to send: refs resolved to ids, secrets resolved to their values. */
export type ResolvedSpec = Record<string, unknown>;

export interface UpdateRequest {
  id: string;
  desired: ResolvedSpec;
  live: LiveObject;
  /** Top-level spec fields that differ. */
  changedFields: readonly string[];
  /** Write-only fields to (re)send. */
  secretFields: readonly string[];
}

export interface FieldRules {
  /** Changed in place by `update`. */
  updatable: readonly string[];
  /** A change forces a replace (create a new object, delete the old). */
  replaceOn: readonly string[];
  /** Cannot change at all: a change is `blocked` (e.g. every brand field). */
  immutable: readonly string[];
  /** Create-only inputs a read does not return (callback `url`/`method`): compared with the ledger. */
  unreadable: readonly string[];
  /**
   * Fields the API leaves out of some reads although they were written (a campaign read without its
   * message flow or replies): a read that omits one says so in `LiveObject.unread`. Listed here so that
   * the plan and `explain` can say which fields of the kind may be unknown.
   */
  mayBeUnread?: readonly string[];
}

export interface LiveSide {
  /**
   * The product of the account the kind belongs to (`SIP trunking`, `10DLC`), named when the account
   * does not have it: its lists answer 403 ("not enabled"). Undefined for what every account has.
   */
  product?: string;
  /**
   * The list carries what every run reads whatever its documents (the account's ownership markers
   * are SIP IP ACLs): it is read even when no document needs the kind, once, with the rest.
   */
  alwaysRead?: boolean;
  /** The natural key of a spec (desired or live-normalised), for matching and lost-create recovery. */
  naturalKey(spec: Record<string, unknown>): string | undefined;
  /** What the plan calls the natural key ("exists … with the same profile"); `name` when left out. */
  naturalKeyWord?: string;
  /** Every object of the kind in the account, whole or an error (never a partial list). */
  list(context: LiveContext): Promise<LiveObject[]>;
  /** One object by id; undefined when it does not exist. */
  read(context: LiveContext, id: string): Promise<LiveObject | undefined>;
  /**
   * Where its create answer holds the new id (top level, camelCase, nested under the kind): the one place
   * that says it, read by `create`. Undefined for kinds telform does not create (numbers, SIP auth bindings).
   */
  createAnswer?: CreateAnswer;
  /** Creates and returns the new object's id. Recovers a lost response by natural key. */
  create(context: LiveContext, spec: ResolvedSpec): Promise<{ id: string }>;
  update(context: LiveContext, request: UpdateRequest): Promise<void>;
  /** Deletes; an object already gone is not an error. */
  delete(context: LiveContext, id: string, live: LiveObject | undefined): Promise<void>;
  fields: FieldRules;
  /**
   * USD of one vetting review of the kind's objects (campaign: 15), billed by each update; `revert`
   * also prices a deleted object registered again at it (docs/state-and-safety.md). 0: none stated.
   */
  billableUpdateUsd: number;
  /** Whether old and new can exist at once during a replace. */
  replaceStrategy: 'create_before_delete' | 'delete_before_create';
  /** Deletes cannot be undone (brands, campaigns). */
  irreversibleDelete: boolean;
  /**
   * What deleting an object that a live object still references does: trunk ACLs and credentials
   * are deleted anyway and break the trunk's auth; origination URIs break calls; SipAuth objects are
   * refused by the API (409) until the application's assignment is cleared.
   */
  whenInUse?: 'breaks_auth' | 'breaks_calls' | 'needs_unassign';
  /**
   * The field that names which of the account's objects a document manages (a phone number's
   * `number`): a document pointed at another object is no update of this one, so a change of the
   * natural key is `blocked` with `reason`, and `explain` says so. Writing the same key another way
   * (with or without a `+`) is not a change of it.
   */
  keyField?: {
    field: string;
    /** Why the change is blocked, after the field's name: `from` and `to` are natural keys. */
    reason(from: string, to: string): string;
    /** The same, for `explain`, without particular keys. */
    explain: string;
  };
  /**
   * Why the API would refuse an update of this object in its live state (campaign not FAILED), or
   * why telform refuses it (a trunk turned outbound while numbers are attached). `desired` is the
   * manifest's spec, references in `{ ref }` form where they name managed resources; `changedFields`
   * the top-level fields the update changes.
   */
  updateRefusal?(
    live: LiveObject,
    desired?: Readonly<Record<string, unknown>>,
    changedFields?: readonly string[],
  ): string | undefined;
  /**
   * What an update (`desired` given) or a delete (`desired` undefined) breaks beyond what the
   * generic flags see: a phone number detached from its trunk stops receiving calls.
   */
  impact?(live: LiveObject, desired: Readonly<Record<string, unknown>> | undefined): ChangeImpact | undefined;
  /**
   * Why a resource in the manifests that is not in the account cannot be created: telform never
   * buys phone numbers, so a number the account does not own is an error naming it. Undefined for
   * kinds telform creates.
   */
  absentError?(desired: Readonly<Record<string, unknown>>): string;
  /**
   * Objects whose own asynchronous work (a campaign link) apply `--wait` follows after a write,
   * until `readiness` says ready or failed. The reason of a failure is `registry.error_reason`.
   */
  followsReadiness?: boolean;
  /**
   * Whether a live object holds nothing telform would manage (a number attached to nothing and linked
   * to no campaign): `import` leaves it out and plans do not list it as unmanaged. Default: never idle.
   */
  idle?(live: LiveObject): boolean;
  /**
   * Why the API would refuse deleting it in its live state (numbers processing, active campaigns).
   * `deletedFirst` holds the ids of objects this plan deletes before it (e.g. a brand's campaigns).
   */
  deleteRefusal?(live: LiveObject, deletedFirst: ReadonlySet<string>): string | undefined;
  /**
   * 10DLC readiness: objects of kinds that reference this one wait until it is `ready`
   * (campaigns wait for their brand's COMPLETED). Kinds without registration are always ready.
   */
  readiness?(live: LiveObject): 'ready' | 'pending' | 'failed';
  /** Requests of reads, updates and deletes when they are not one each (the plan's estimate). */
  requests?: RequestCosts;
}
