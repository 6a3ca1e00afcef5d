import type { Operation } from 'fast-json-patch';
import type { SourcePlace } from '../util/errors.js';
import type { RegistryStatus } from '../resources/live-side.js';
import type { SecretSourceRef } from './model.js';

/**
 * A plan is versioned, serialisable data. Renderers turn it into text, JSON or
 * markdown; `apply plan.json` executes exactly it. Changes are in execution order.
 */
export const planFormatVersion = 2;

/** docs/commands.md, plan. */
export type PlanAction = 'create' | 'update' | 'replace' | 'delete' | 'adopt' | 'wait' | 'blocked' | 'noop';

export interface ChangeFlags {
  /** Cost of this change in USD (campaign vetting reviews: 15 each). */
  billable_usd: number;
  /** Brand/campaign delete or replace: cannot be undone. */
  irreversible: boolean;
  /** Deleting an ACL or credential a live trunk or application still uses. */
  breaks_auth: boolean;
  /** Deleting an origination URI a trunk uses, or a trunk numbers are attached to. */
  breaks_calls: boolean;
  /** An application binding must be cleared before this delete (telform does it when it manages the binding). */
  needs_unassign: boolean;
}

/**
 * Why a secret is sent. `value`: `changed` when it differs from the one telform last applied,
 * `unverifiable` when it cannot be compared (first set after import or a token change), `same`
 * when only its source changed. A change of source is a change even when the value may be equal:
 * the reviewer approves where a secret comes from, not only whether it differs.
 */
export interface SecretChange {
  value: 'changed' | 'unverifiable' | 'same';
  /** The source recorded when it was last applied, present only when it differs from the manifest's. */
  source_before?: SecretSourceRef;
}

/** What every change carries, whatever its action. */
export interface ChangeBase {
  /** `Kind/name` for manifest and ledger resources; `Kind/#id` for unmanaged objects. */
  address: string;
  kind: string;
  name: string;
  /** Why this action: one sentence each. */
  reasons: string[];
  flags: ChangeFlags;
  /** RFC 6902 operations from the normalised live spec to the desired one; secrets as `(sensitive)`. */
  patch: Operation[];
  /** Addresses this change must wait for. */
  depends_on: string[];
  /** Where the resource is declared. */
  source?: SourcePlace;
  /**
   * How each secret of the desired resource is obtained (never its value), so a saved plan can be
   * applied; a file is named relative to the directory telform ran in.
   */
  secret_sources?: Record<string, SecretSourceRef>;
  /** `metadata.protect` of the desired resource. */
  protect?: boolean;
  registry?: RegistryStatus;
  /** Whether the live account differs from what telform last applied (drift), not only the manifest. */
  drifted?: boolean;
  /** Requests the apply of this change will send (estimate). */
  api_requests: number;
  /** `metadata.moved_from`: the address the state holds this resource under, which apply renames. */
  moved_from?: string;
  /** The traffic this change breaks; absent when it breaks none. */
  blast?: BlastRadius;
  /**
   * A registry refusal (`registry` FAILED) whose reasons name spec fields: where each is written, so
   * CI annotations show the refusal on the field as well as on the document.
   */
  refusal_fields?: Record<string, SourcePlace>;
}

/**
 * The traffic a change breaks, counted from the live account (docs/state-and-safety.md, blast
 * radius). Present only on changes that break something.
 */
export interface BlastRadius {
  /** Phone numbers whose calls stop being answered. */
  calls: number;
  /** Phone numbers that lose their 10DLC campaign link (their messages stop). */
  messages: number;
  /** Distinct numbers among both. */
  numbers: number;
  /** Outbound trunks whose PBX loses authentication (ACL addresses removed, credential swapped or changed). */
  trunks: string[];
  /** Applications that lose SIP auth (`Application/<app_id>`). */
  applications: string[];
}

/** The plan's blast radius: sums of its changes' (each broken thing is counted against one change). */
export interface BlastTotals {
  calls: number;
  messages: number;
  numbers: number;
  trunks: number;
  applications: number;
}

/**
 * A finding of a check over the plan: the 10DLC lint of a campaign's content, or a policy rule.
 * An error-level one makes apply refuse (a lint finding unless `--allow-lint RULE`).
 */
export interface PlanFinding {
  source: 'lint' | 'policy';
  /** The rule's id, e.g. `tcr-optout-in-samples` or a policy's own. */
  rule: string;
  severity: 'error' | 'warning' | 'info';
  address: string;
  message: string;
  /** The field it is about, e.g. `spec.sample1`. */
  field?: string;
  /** Where in the manifests (the field, else the document). */
  source_place?: SourcePlace;
  /** Where the rule comes from: the guidance a lint rule follows, or the policy file. */
  reference?: string;
}

/** Write-only fields that will be sent, and why. */
type SecretChanges = Record<string, SecretChange>;
/** A normalised spec: the live one (`before`) or the desired one (`after`). */
type Spec = Record<string, unknown>;

/** A resource of the manifests that is not in the account yet. */
export interface CreateChange extends ChangeBase {
  action: 'create';
  after: Spec;
  secrets?: SecretChanges;
}

/** A live object changed in place (or re-pointed to a replaced object's successor). */
export interface UpdateChange extends ChangeBase {
  action: 'update';
  id: string;
  before: Spec;
  after: Spec;
  secrets?: SecretChanges;
}

/** A live object that can only change by being created anew and the old one deleted. */
export interface ReplaceChange extends ChangeBase {
  action: 'replace';
  id: string;
  /** Both may exist at once (create first) or not (delete first). */
  replace_strategy: 'create_before_delete' | 'delete_before_create';
  before: Spec;
  after: Spec;
  secrets?: SecretChanges;
  /** What must be re-pointed or removed before the old object is deleted. */
  delete_after?: string[];
}

/** A live object (or a ledger entry already gone from the account) telform deletes or forgets. */
export interface DeleteChange extends ChangeBase {
  action: 'delete';
  id: string;
  /** Absent when the object is already gone. */
  before?: Spec;
  /** For the delete of an object a replace superseded: the resource that replaced it. */
  superseded_of?: string;
}

/** A live object telform takes over, already as the manifest says. */
export interface AdoptChange extends ChangeBase {
  action: 'adopt';
  id: string;
  before: Spec;
  after: Spec;
  secrets?: SecretChanges;
}

/** A live object already as the manifest says. */
export interface NoopChange extends ChangeBase {
  action: 'noop';
  id: string;
  before: Spec;
  after: Spec;
  secrets?: SecretChanges;
}

/** A create (no `id`) or an update (`id`) that must wait for a target's registration. */
export interface WaitChange extends ChangeBase {
  action: 'wait';
  id?: string;
  before?: Spec;
  after: Spec;
  secrets?: SecretChanges;
}

/** A change telform refuses to make; the reasons say why. */
export interface BlockedChange extends ChangeBase {
  action: 'blocked';
  id?: string;
  before?: Spec;
  after?: Spec;
  secrets?: SecretChanges;
  superseded_of?: string;
}

/** One change of a plan: a union on `action`, so each action carries only its own fields. */
export type PlannedChange = CreateChange | UpdateChange | ReplaceChange | DeleteChange | AdoptChange | NoopChange | WaitChange | BlockedChange;

export interface UnmanagedObject {
  kind: string;
  id: string;
  /** The API's name field, if any. */
  name: string;
  /** Will be deleted (`--prune-unmanaged`); false when the delete is refused (a blocked change says why). */
  prune: boolean;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  adopt: number;
  wait: number;
  blocked: number;
  noop: number;
  cost_usd: number;
  irreversible: number;
  /** Requests apply will send: the reads of `api_reads` and each change's writes (estimate). */
  api_requests: number;
  /**
   * Of `api_requests`, the reads of the account apply makes first to plan again (every kind's list,
   * the ledger's objects the lists did not show): as many as this plan's own read sent. Absent in
   * plans saved before telform counted them.
   */
  api_reads?: number;
  /** Always set by the planner; absent in plans of older versions. */
  blast_radius?: BlastTotals;
}

export interface PlanApprovals {
  allow_irreversible: string[];
  max_cost_usd: number | null;
  force_deletes: boolean;
  allow_empty: boolean;
  prune_unmanaged: string[];
  /** `--max-numbers-affected`: how many numbers the plan may break (null: none). */
  max_numbers_affected?: number | null;
  /** `--allow-lint RULE`: lint rules whose error-level findings do not stop apply (`all` for every rule). */
  allow_lint?: string[];
}

/** Fingerprint of what a saved plan was computed from, so `apply plan.json` can refuse if it changed. */
export interface PlanBasis {
  ledger_lineage: string;
  ledger_serial: number;
  /**
   * By address: a hash of the live object (registry statuses left out), or `absent:<natural key>`
   * for creates; by `address#field`, `secret:<hmac>:<where it was read>` for each secret.
   */
  objects: Record<string, string>;
}

/** A saved plan's integrity seal (see plan-seal.ts); only `plan -o` writes one. */
export interface PlanSeal {
  algorithm: 'hmac-sha256';
  /** Id of the key, derived from the auth token the plan was made with. */
  key_id: string;
  /** Hex HMAC over every other field of the plan, in canonical JSON. */
  value: string;
}

export interface Plan {
  format_version: number;
  created_at: string;
  endpoint: string;
  account: string;
  changes: PlannedChange[];
  unmanaged: UnmanagedObject[];
  summary: PlanSummary;
  /** Non-blocking observations (literal secrets, short passwords, pending registrations). */
  warnings: string[];
  approvals: PlanApprovals;
  /** The approvals apply will ask for, and whether the plan's own approvals give them. */
  required_approvals?: Array<{ flag: string; given: boolean }>;
  /** Findings of the 10DLC lint and the policies, by address then rule. */
  findings?: PlanFinding[];
  /** `--target`: the plan covers only these resources and what they depend on. */
  targets?: string[];
  /** `--exclude`: these resources and what depends on them are left out of the plan. */
  excluded?: string[];
  /**
   * `--destroy`: a teardown, the reviewed intent to delete everything the state manages (the
   * manifests are not read). The empty-manifests and mass-delete gates give way to it; the others
   * (irreversible, protect, billable) still ask for their own approvals.
   */
  destroy?: boolean;
  /**
   * `telform revert N`: the number of the apply (in the state's history) this plan puts back, so
   * applying it, saved or not, is recorded as a revert of #N.
   */
  reverts?: number;
  /** The values the manifests used (`{ value: NAME }`), with where each was given. */
  values?: Array<{ name: string; value: unknown; origin: string; used_by: string[] }>;
  basis: PlanBasis;
  /** Present in a saved plan: `apply FILE` refuses a plan whose seal does not match. */
  seal?: PlanSeal;
}
