// What `telform serve` knows of an account and what it says about it: the result of one check, the
// registry status of each 10DLC object it manages, and the events a change of either produces.
// Plain data, so the loop, the status page, the metrics and the tests all read the same shapes.

/** An account's status as the last check found it; `unknown` until its first check ends. */
export type AccountStatus = 'unknown' | 'in_sync' | 'drifted' | 'pending' | 'error';

/**
 * The name of a kind whose objects' registration the registry decides (and calls back about): one
 * that declares a `registry` in the catalog (resources/registration.ts).
 */
export type RegistryKind = string;

/** The registry status of one managed 10DLC object as a read found it. */
export interface RegistryEntry {
  /** `Kind/name` of the manifest resource. */
  address: string;
  kind: RegistryKind;
  /** The live id (brand id, campaign id, or the number for a number link). */
  id: string;
  /** As the API reports it, upper case (`PROCESSING`, `COMPLETED`, `ACTIVE`, `FAILED`, `EXPIRED`…). */
  status: string;
  /** The registry's reason for a `FAILED`, when it gives one (untrusted text). */
  reason?: string;
}

/** One line of an account's latest plan, for the status page (addresses and reasons only; no values). */
export interface PlanLine {
  address: string;
  action: string;
  drifted: boolean;
  reasons: string[];
}

/** A change outside telform a check sees for the first time: between the check that last saw it in sync and this one. */
export interface DriftSeen {
  address: string;
  seen_at: string;
  /** The previous check of this serve that saw it in sync; absent: none since serve started. */
  since?: string;
}

/** What one drift check of an account found. */
export interface AccountCheck {
  /** Changes outside telform seen for the first time, with their window. */
  windows?: DriftSeen[];
  status: Exclude<AccountStatus, 'unknown'>;
  /** Changed outside telform. */
  drifted: string[];
  /** Manifest changes waiting to be applied (registry waits included). */
  pending: string[];
  /** Registry outcomes worth a look, from the plan's warnings. */
  notes: string[];
  registry: RegistryEntry[];
  /** The plan's changes other than no-ops. */
  plan: PlanLine[];
  /** When the check failed: the error's stable code and its one-line message. */
  error?: { code: string; message: string };
  /** API requests the check sent, and how many of them the API refused with 429. */
  requests: number;
  rateLimited: number;
}

/** Why serve looked at an account. */
export type EventCause = 'start' | 'interval' | 'callback' | 'apply';

interface EventBase {
  /** Unique within a serve process and stable across its outputs (stdout, `--notify`, the page). */
  id: string;
  /** When serve saw the change (ISO 8601). */
  at: string;
  account: string;
  cause: EventCause;
  /** With a queue: the replica that saw it (`--replica`). */
  replica?: string;
}

/** The account's drift status changed (including its first status after serve started). */
export interface AccountStatusEvent extends EventBase {
  type: 'account_status';
  from: AccountStatus;
  to: Exclude<AccountStatus, 'unknown'>;
  drifted: string[];
  pending: string[];
  error?: { code: string; message: string };
}

/** A managed brand, campaign or number link moved at the registry. */
export interface RegistryStatusEvent extends EventBase {
  type: 'registry_status';
  address: string;
  kind: RegistryKind;
  object_id: string;
  from: string;
  to: string;
  reason?: string;
}

/** `--apply safe` applied the account's plan. */
export interface AppliedEvent extends EventBase {
  type: 'applied';
  changes: string[];
  summary: string;
  failed: boolean;
  /** When it failed: each failed change as `Address: the API's message`. */
  errors?: string[];
}

/** `--apply safe` left the plan for a person: it needs an approval (the reasons say which). */
export interface ApplyHeldEvent extends EventBase {
  type: 'apply_held';
  changes: string[];
  reasons: string[];
}

export type ServeEvent = AccountStatusEvent | RegistryStatusEvent | AppliedEvent | ApplyHeldEvent;
export type ServeEventType = ServeEvent['type'];
export const serveEventTypes: readonly ServeEventType[] = [
  'account_status',
  'registry_status',
  'applied',
  'apply_held',
];

/** A new event without the fields the service stamps on it (id and time). */
export type EventDraft = ServeEvent extends infer E ? (E extends ServeEvent ? Omit<E, 'id' | 'at'> : never) : never;
