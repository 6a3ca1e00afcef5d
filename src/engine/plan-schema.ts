// The plan's shape, written once: a zod schema per part, from which the TypeScript types are
// inferred and `schemas/plan.schema.json` is generated (`npm run schemas`; a test fails when the
// committed file is stale). `saved-plan.ts` checks a plan file read back against the same schema.
// The version, the actions and which fields each carries are in plan-format.ts, which loads no zod.
// Comments here are for readers of the code; `.describe()` text is what the JSON Schema shows.
// Building these schemas costs a plan ~10 ms, so the code that only needs the types imports them
// from plan-types.ts, which loads nothing; this module is loaded by what checks or describes a plan.
import * as z from 'zod';
import type { SourcePlace } from '../util/errors.js';
import type { RegistryStatus } from '../resources/live-side.js';
import type { SecretSourceRef } from './model.js';
import {
  changeFieldsByAction,
  planActions,
  planFormatVersion,
  type ActionField,
  type PlanAction,
} from './plan-format.js';

const planAction = z.enum(planActions);
export type { PlanAction };

const operation = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test', '_get']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  })
  .describe('An RFC 6902 operation on the normalised spec; secrets never appear in it.');

/** Where a secret comes from (the ledger's `SecretSourceRef`; a check below keeps them equal). */
const secretSource = z
  .union([
    z.object({ fromEnv: z.string().describe('The environment variable the secret is read from.') }),
    z.object({
      fromFile: z.string().describe('The file the secret is read from, relative to the directory telform ran in.'),
    }),
    z.object({ literal: z.literal(true) }),
  ])
  .describe('Where a secret comes from; never its value.');

/**
 * Why a secret is sent. `value`: `changed` when it differs from the one telform last applied,
 * `unverifiable` when it cannot be compared (first set after import or a token change), `same`
 * when only its source changed. A change of source is a change even when the value may be equal:
 * the reviewer approves where a secret comes from, not only whether it differs.
 */
const secretChange = z
  .object({
    value: z
      .enum(['changed', 'unverifiable', 'same'])
      .describe(
        'changed: differs from the value last applied; unverifiable: cannot be compared (never applied with this token); same: only the source changed.',
      ),
    source_before: secretSource
      .optional()
      .describe("The source recorded when it was last applied, when it differs from the manifest's."),
  })
  .describe('Why a write-only field is sent.');
export type SecretChange = z.infer<typeof secretChange>;

const changeFlags = z.object({
  /** Cost of this change in USD (campaign vetting reviews: 15 each). */
  billable_usd: z.number(),
  /** Brand/campaign delete or replace: cannot be undone. */
  irreversible: z.boolean(),
  /** Deleting an ACL or credential a live trunk or application still uses. */
  breaks_auth: z.boolean(),
  /** Deleting an origination URI a trunk uses, or a trunk numbers are attached to. */
  breaks_calls: z.boolean(),
  /** An application binding must be cleared before this delete (telform does it when it manages the binding). */
  needs_unassign: z.boolean(),
});
export type ChangeFlags = z.infer<typeof changeFlags>;

/** A place in the manifests (util/errors' `SourcePlace`; a check below keeps them equal). */
const sourcePlace = z.object({ file: z.string(), line: z.number(), column: z.number() });

/** Registry outcome of a 10DLC object (resources' `RegistryStatus`; a check below keeps them equal). */
const registryStatus = z.object({
  registration_status: z.string(),
  declined_reasons: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
  error_code: z.string().optional(),
  error_reason: z.string().optional(),
});

/**
 * The traffic a change breaks, counted from the live account (docs/state-and-safety.md, blast
 * radius). Present only on changes that break something.
 */
const blastRadius = z
  .object({
    calls: z.number().describe('Phone numbers whose calls stop being answered.'),
    messages: z.number().describe('Phone numbers that lose their 10DLC campaign link.'),
    numbers: z.number().describe('Distinct numbers among both.'),
    /** Outbound trunks whose PBX loses authentication (ACL addresses removed, credential swapped or changed). */
    trunks: z.array(z.string()).describe('Outbound trunks whose PBX loses authentication.'),
    /** `Application/<app_id>`. */
    applications: z.array(z.string()).describe('Applications that lose SIP auth.'),
  })
  .optional()
  .describe('The traffic this change breaks, counted from the live account; absent when it breaks none.');
export type BlastRadius = NonNullable<z.infer<typeof blastRadius>>;

/** A normalised spec: the live one (`before`) or the desired one (`after`). */
const spec = z.record(z.string(), z.unknown());

/**
 * Every field a change can carry, whatever its action: the flat shape the JSON Schema describes.
 * Which of the action's own fields (`id` … `superseded_of`) each action carries is the table
 * `changeFieldsByAction` (plan-format.ts).
 */
const change = z.object({
  address: z.string().describe('Kind/name, or Kind/#id for an unmanaged object.'),
  kind: z.string(),
  name: z.string(),
  action: planAction,
  id: z.string().optional().describe('Live id, when the object exists.'),
  /** Both may exist at once (create first) or not (delete first). */
  replace_strategy: z.enum(['create_before_delete', 'delete_before_create']).optional(),
  /** Why this action: one sentence each. */
  reasons: z.array(z.string()),
  flags: changeFlags,
  /** From the normalised live spec to the desired one; secrets as `(sensitive)`. */
  patch: z.array(operation),
  before: spec.optional(),
  after: spec.optional().describe('Desired spec; a secret shows as "(sensitive, from env NAME)", never its value.'),
  /** Write-only fields that will be sent, and why. */
  secrets: z.record(z.string(), secretChange).optional(),
  /** Addresses this change must wait for. */
  depends_on: z.array(z.string()),
  /** What must be re-pointed or removed before a replaced object is deleted. */
  delete_after: z.array(z.string()).optional(),
  /** For the delete of an object a replace superseded: the resource that replaced it. */
  superseded_of: z.string().optional(),
  /** Where the resource is declared. */
  source: sourcePlace.optional(),
  /**
   * How each secret of the desired resource is obtained (never its value), so a saved plan can be
   * applied; a file is named relative to the directory telform ran in.
   */
  secret_sources: z
    .record(z.string(), secretSource)
    .optional()
    .describe('Where each secret of the desired resource comes from.'),
  /** `metadata.protect` of the desired resource. */
  protect: z.boolean().optional(),
  registry: registryStatus.optional(),
  /** Whether the live account differs from what telform last applied (drift), not only the manifest. */
  drifted: z.boolean().optional(),
  /** Requests the apply of this change will send (estimate). */
  api_requests: z.number(),
  moved_from: z
    .string()
    .optional()
    .describe('The address the state holds this resource under (metadata.moved_from); apply records the new one.'),
  blast: blastRadius,
  /**
   * A registry refusal (`registry` FAILED) whose reasons name spec fields: where each is written, so
   * CI annotations show the refusal on the field as well as on the document.
   */
  refusal_fields: z
    .record(z.string(), sourcePlace)
    .optional()
    .describe('The spec fields a registry refusal names, with where each is written.'),
});

/** A change with every action's own field optional: the planner's draft (change-draft.ts). */
export type ChangeFields = z.infer<typeof change>;

/** What every change carries, whatever its action. */
type ChangeBase = Omit<ChangeFields, 'action' | ActionField>;

type FieldsOf<A extends PlanAction> = (typeof changeFieldsByAction)[A];
/** The change of one action: the base, its action, and only the action's own fields. */
type ChangeOf<A extends PlanAction> = ChangeBase & { action: A } & {
  [K in FieldsOf<A>['required'][number]]-?: NonNullable<ChangeFields[K]>;
} & {
  [K in FieldsOf<A>['optional'][number]]?: ChangeFields[K];
};
export type CreateChange = ChangeOf<'create'>;
export type UpdateChange = ChangeOf<'update'>;
export type ReplaceChange = ChangeOf<'replace'>;
export type DeleteChange = ChangeOf<'delete'>;
export type WaitChange = ChangeOf<'wait'>;

/** One change of a plan: a union on `action`, so each action carries only its own fields. */
export type PlannedChange = { [A in PlanAction]: ChangeOf<A> }[PlanAction];

/**
 * A finding of a check over the plan: the 10DLC lint of a campaign's content, or a policy rule.
 * An error-level one makes apply refuse (a lint finding unless `--allow-lint RULE`).
 */
const finding = z
  .object({
    source: z.enum(['lint', 'policy']),
    /** The rule's id, e.g. `tcr-optout-in-samples` or a policy's own. */
    rule: z.string(),
    severity: z.enum(['error', 'warning', 'info']),
    address: z.string(),
    message: z.string(),
    /** The field it is about, e.g. `spec.sample1`. */
    field: z.string().optional(),
    /** Where in the manifests (the field, else the document). */
    source_place: sourcePlace.optional(),
    reference: z.string().optional().describe('The guidance a lint rule follows, or the policy file a rule is from.'),
    held: z
      .literal(true)
      .optional()
      .describe(
        'A lint error on a campaign the plan does not submit: the registry holds it as it is, and a resubmission would have to meet the rule. Not an error of this plan.',
      ),
  })
  .describe('A finding of the 10DLC lint or of a policy; an error-level one makes apply refuse.');
export type PlanFinding = z.infer<typeof finding>;

const unmanagedObject = z.object({
  kind: z.string(),
  id: z.string(),
  /** The API's name field, if any. */
  name: z.string(),
  /** Will be deleted (`--prune-unmanaged`); false when the delete is refused (a blocked change says why). */
  prune: z.boolean(),
});
export type UnmanagedObject = z.infer<typeof unmanagedObject>;

/** The plan's blast radius: sums of its changes' (each broken thing is counted against one change). */
const blastTotals = z
  .object({
    calls: z.number(),
    messages: z.number(),
    numbers: z.number(),
    trunks: z.number(),
    applications: z.number(),
  })
  .optional()
  .describe("Totals of the changes' blast radius.");
export type BlastTotals = NonNullable<z.infer<typeof blastTotals>>;

const planSummary = z.object({
  create: z.number(),
  update: z.number(),
  replace: z.number(),
  delete: z.number(),
  adopt: z.number(),
  wait: z.number(),
  blocked: z.number(),
  noop: z.number(),
  cost_usd: z.number(),
  irreversible: z.number(),
  api_requests: z.number().describe('Requests apply will send (estimate): api_reads, then the writes of every change.'),
  /**
   * Of `api_requests`, the reads of the account apply makes first to plan again (every kind's list,
   * the ledger's objects the lists did not show): as many as this plan's own read sent. Absent in
   * plans saved before telform counted them.
   */
  api_reads: z
    .number()
    .optional()
    .describe(
      'Of api_requests, the reads of the account apply makes first to plan again (as many as this plan sent to read it).',
    ),
  /** Always set by the planner; absent in plans of older versions. */
  blast_radius: blastTotals,
});
export type PlanSummary = z.infer<typeof planSummary>;

const planApprovals = z.object({
  allow_irreversible: z.array(z.string()),
  max_cost_usd: z.number().nullable(),
  force_deletes: z.boolean(),
  allow_empty: z.boolean(),
  prune_unmanaged: z.array(z.string()),
  /** How many numbers the plan may break (null: none). */
  max_numbers_affected: z
    .number()
    .nullable()
    .optional()
    .describe('--max-numbers-affected: numbers the plan may break.'),
  /** Lint rules whose error-level findings do not stop apply (`all` for every rule). */
  allow_lint: z.array(z.string()).optional().describe('--allow-lint: lint rules whose errors do not stop apply.'),
});
export type PlanApprovals = z.infer<typeof planApprovals>;

/**
 * What the approval rules of the policy files ask of each change (docs/approvals.md), and who had
 * signed when the plan was made. Left out of the digest approvals sign, like `created_at`.
 */
const approvalTable = z
  .object({
    digest: z
      .string()
      .describe('The digest approvals sign: sha256 of the plan without seal, created_at and approval_rules.'),
    changes: z.array(
      z.object({
        address: z.string(),
        rules: z.array(
          z.object({
            rule: z.string(),
            needs: z.string().describe('"2 of messaging-leads", or "none".'),
            ttl: z.string(),
            windows: z.array(z.string()).describe('When it may be applied (empty: any time).'),
            approved_by: z.array(z.string()),
            missing: z.number().describe('How many more people of the role must approve.'),
            expired: z.array(z.string()).describe('People whose approval is past its TTL.'),
            window_open: z.boolean(),
          }),
        ),
        frozen: z.array(z.string()).describe('The reasons of the freezes covering it.'),
      }),
    ),
    refusals: z.array(z.string()).describe('Why apply would refuse it now (empty: approved).'),
  })
  .optional()
  .describe('The approval rules over this plan (plan --policy with approval rules).');
export type ApprovalTable = NonNullable<z.infer<typeof approvalTable>>;

/** Fingerprint of what a saved plan was computed from, so `apply plan.json` can refuse if it changed. */
const planBasis = z.object({
  ledger_lineage: z.string(),
  ledger_serial: z.number(),
  /**
   * By address: a hash of the live object (registry statuses left out), or `absent:<natural key>`
   * for creates; by `address#field`, `secret:<hmac>:<where it was read>` for each secret.
   */
  objects: z.record(z.string(), z.string()),
});

/** A saved plan's integrity seal (see plan-seal.ts); only `plan -o` writes one. */
const planSeal = z
  .object({
    algorithm: z.literal('hmac-sha256'),
    key_id: z.string().describe('Id of the key, derived from the auth token the plan was made with.'),
    value: z
      .string()
      .describe('HMAC-SHA256 (hex) over every other field of the plan as canonical JSON (sorted keys, no whitespace).'),
  })
  .optional()
  .describe(
    'Written by plan -o: apply FILE refuses a plan whose seal does not match (an edited plan, or one made with another token).',
  );
export type PlanSeal = NonNullable<z.infer<typeof planSeal>>;

export const planSchema = z
  .object({
    format_version: z.literal(planFormatVersion),
    created_at: z.string(),
    endpoint: z.string().describe('"local" for the embedded emulator, else the base URL.'),
    account: z.string(),
    changes: z.array(change).describe('In execution order.'),
    unmanaged: z.array(unmanagedObject),
    summary: planSummary,
    /** Non-blocking observations about what the plan does (literal secrets, short passwords, pending registrations). */
    warnings: z.array(z.string()),
    notes: z
      .array(z.string())
      .optional()
      .describe(
        'What a reviewer may want to know about objects the plan leaves as they are (a registration declined or under review): notes, not warnings.',
      ),
    approvals: planApprovals,
    required_approvals: z
      .array(z.object({ flag: z.string(), given: z.boolean() }))
      .optional()
      .describe(
        'The approvals apply asks for (e.g. "--max-cost 15"), and whether the approvals recorded here give them.',
      ),
    /** By address then rule. */
    findings: z.array(finding).optional().describe('Findings of the 10DLC lint and the policies.'),
    targets: z
      .array(z.string())
      .optional()
      .describe('--target: the plan covers only these resources and what they depend on.'),
    excluded: z
      .array(z.string())
      .optional()
      .describe('--exclude: these resources and what depends on them are left out of the plan.'),
    /**
     * A teardown, the reviewed intent to delete everything the state manages (the manifests are not
     * read). The empty-manifests and mass-delete gates give way to it.
     */
    destroy: z
      .boolean()
      .optional()
      .describe(
        '--destroy: a teardown that deletes everything the state manages; irreversible, protect and billable gates still need their own approvals.',
      ),
    /** Applying this plan, saved or not, is recorded as a revert of #N. */
    reverts: z
      .number()
      .optional()
      .describe(
        "telform revert N: the number of the apply in the state's history this plan puts back; applying it is recorded as a revert of #N.",
      ),
    /** `revert N --over N2`: later applies whose changes to the same fields this plan takes back. */
    reverts_over: z
      .array(z.number())
      .optional()
      .describe(
        'telform revert N --over N2: the later applies whose changes to the fields N changed this plan takes back anyway; recorded with the revert.',
      ),
    values: z
      .array(
        z.object({
          name: z.string(),
          value: z.unknown(),
          origin: z
            .string()
            .describe('Where the value was given: file:line:col of the accounts or values file, or --value.'),
          used_by: z.array(z.string()).describe('Addresses of the resources whose manifests use it.'),
        }),
      )
      .optional()
      .describe('The values the manifests used ({ value: NAME }), each with where it was given.'),
    approval_rules: approvalTable,
    basis: planBasis,
    seal: planSeal,
  })
  .describe('A telform plan (telform plan --format json, or plan -o FILE).');

/** A plan: the schema's shape, with each change narrowed to its action's fields. */
export type Plan = Omit<z.infer<typeof planSchema>, 'changes'> & { changes: PlannedChange[] };

export function renderPlanJsonSchema(): string {
  const json = z.toJSONSchema(planSchema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, title: `telform plan (format ${planFormatVersion})` }, null, 2)}\n`;
}

// Three parts of the plan are also named by lower layers, which cannot import this file: they
// fail to compile here when either side changes shape.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
type SharedShapesMatch = [
  Holds<Equal<z.infer<typeof sourcePlace>, SourcePlace>>,
  Holds<Equal<z.infer<typeof registryStatus>, RegistryStatus>>,
  Holds<Equal<z.infer<typeof secretSource>, SecretSourceRef>>,
];
