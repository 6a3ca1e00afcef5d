import * as z from 'zod';
import { planFormatVersion, type Plan } from './plan-types.js';

/**
 * The plan's JSON shape as a zod schema, from which `schemas/plan.schema.json` is generated (a test
 * fails when the committed file is stale). The type check at the bottom keeps it equal to `Plan`.
 */
const action = z.enum(['create', 'update', 'replace', 'delete', 'adopt', 'wait', 'blocked', 'noop']);

const operation = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test', '_get']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  })
  .describe('An RFC 6902 operation on the normalised spec; secrets never appear in it.');

const secretSource = z
  .union([
    z.object({ fromEnv: z.string().describe('The environment variable the secret is read from.') }),
    z.object({ fromFile: z.string().describe('The file the secret is read from, relative to the directory telform ran in.') }),
    z.object({ literal: z.literal(true) }),
  ])
  .describe('Where a secret comes from; never its value.');

const secretChange = z
  .object({
    value: z
      .enum(['changed', 'unverifiable', 'same'])
      .describe('changed: differs from the value last applied; unverifiable: cannot be compared (never applied with this token); same: only the source changed.'),
    source_before: secretSource.optional().describe('The source recorded when it was last applied, when it differs from the manifest\'s.'),
  })
  .describe('Why a write-only field is sent.');

const change = z.object({
  address: z.string().describe('Kind/name, or Kind/#id for an unmanaged object.'),
  kind: z.string(),
  name: z.string(),
  action,
  id: z.string().optional().describe('Live id, when the object exists.'),
  replace_strategy: z.enum(['create_before_delete', 'delete_before_create']).optional(),
  reasons: z.array(z.string()),
  flags: z.object({
    billable_usd: z.number(),
    irreversible: z.boolean(),
    breaks_auth: z.boolean(),
    breaks_calls: z.boolean(),
    needs_unassign: z.boolean(),
  }),
  patch: z.array(operation),
  before: z.record(z.string(), z.unknown()).optional(),
  after: z.record(z.string(), z.unknown()).optional().describe('Desired spec; a secret shows as "(sensitive, from env NAME)", never its value.'),
  secrets: z.record(z.string(), secretChange).optional(),
  depends_on: z.array(z.string()),
  delete_after: z.array(z.string()).optional(),
  superseded_of: z.string().optional(),
  source: z.object({ file: z.string(), line: z.number(), column: z.number() }).optional(),
  secret_sources: z.record(z.string(), secretSource).optional().describe('Where each secret of the desired resource comes from.'),
  protect: z.boolean().optional(),
  registry: z
    .object({
      registration_status: z.string(),
      declined_reasons: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
      error_code: z.string().optional(),
      error_reason: z.string().optional(),
    })
    .optional(),
  drifted: z.boolean().optional(),
  api_requests: z.number(),
  moved_from: z.string().optional().describe('The address the state holds this resource under (metadata.moved_from); apply records the new one.'),
  blast: z
    .object({
      calls: z.number().describe('Phone numbers whose calls stop being answered.'),
      messages: z.number().describe('Phone numbers that lose their 10DLC campaign link.'),
      numbers: z.number().describe('Distinct numbers among both.'),
      trunks: z.array(z.string()).describe('Outbound trunks whose PBX loses authentication.'),
      applications: z.array(z.string()).describe('Applications that lose SIP auth.'),
    })
    .optional()
    .describe('The traffic this change breaks, counted from the live account; absent when it breaks none.'),
  refusal_fields: z
    .record(z.string(), z.object({ file: z.string(), line: z.number(), column: z.number() }))
    .optional()
    .describe('The spec fields a registry refusal names, with where each is written.'),
});

const finding = z
  .object({
    source: z.enum(['lint', 'policy']),
    rule: z.string(),
    severity: z.enum(['error', 'warning', 'info']),
    address: z.string(),
    message: z.string(),
    field: z.string().optional(),
    source_place: z.object({ file: z.string(), line: z.number(), column: z.number() }).optional(),
    reference: z.string().optional().describe('The guidance a lint rule follows, or the policy file a rule is from.'),
  })
  .describe('A finding of the 10DLC lint or of a policy; an error-level one makes apply refuse.');

export const planSchema = z
  .object({
    format_version: z.literal(planFormatVersion),
    created_at: z.string(),
    endpoint: z.string().describe('"local" for the embedded emulator, else the base URL.'),
    account: z.string(),
    changes: z.array(change).describe('In execution order.'),
    unmanaged: z.array(z.object({ kind: z.string(), id: z.string(), name: z.string(), prune: z.boolean() })),
    summary: z.object({
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
      api_reads: z
        .number()
        .optional()
        .describe('Of api_requests, the reads of the account apply makes first to plan again (as many as this plan sent to read it).'),
      blast_radius: z
        .object({ calls: z.number(), messages: z.number(), numbers: z.number(), trunks: z.number(), applications: z.number() })
        .optional()
        .describe('Totals of the changes\' blast radius.'),
    }),
    warnings: z.array(z.string()),
    approvals: z.object({
      allow_irreversible: z.array(z.string()),
      max_cost_usd: z.number().nullable(),
      force_deletes: z.boolean(),
      allow_empty: z.boolean(),
      prune_unmanaged: z.array(z.string()),
      max_numbers_affected: z.number().nullable().optional().describe('--max-numbers-affected: numbers the plan may break.'),
      allow_lint: z.array(z.string()).optional().describe('--allow-lint: lint rules whose errors do not stop apply.'),
    }),
    required_approvals: z
      .array(z.object({ flag: z.string(), given: z.boolean() }))
      .optional()
      .describe('The approvals apply asks for (e.g. "--max-cost 15"), and whether the approvals recorded here give them.'),
    findings: z.array(finding).optional().describe('Findings of the 10DLC lint and the policies.'),
    targets: z.array(z.string()).optional().describe('--target: the plan covers only these resources and what they depend on.'),
    excluded: z.array(z.string()).optional().describe('--exclude: these resources and what depends on them are left out of the plan.'),
    destroy: z
      .boolean()
      .optional()
      .describe('--destroy: a teardown that deletes everything the state manages; irreversible, protect and billable gates still need their own approvals.'),
    reverts: z
      .number()
      .optional()
      .describe('telform revert N: the number of the apply in the state\'s history this plan puts back; applying it is recorded as a revert of #N.'),
    values: z
      .array(
        z.object({
          name: z.string(),
          value: z.unknown(),
          origin: z.string().describe('Where the value was given: file:line:col of the accounts or values file, or --value.'),
          used_by: z.array(z.string()).describe('Addresses of the resources whose manifests use it.'),
        }),
      )
      .optional()
      .describe('The values the manifests used ({ value: NAME }), each with where it was given.'),
    basis: z.object({ ledger_lineage: z.string(), ledger_serial: z.number(), objects: z.record(z.string(), z.string()) }),
    seal: z
      .object({
        algorithm: z.literal('hmac-sha256'),
        key_id: z.string().describe('Id of the key, derived from the auth token the plan was made with.'),
        value: z.string().describe('HMAC-SHA256 (hex) over every other field of the plan as canonical JSON (sorted keys, no whitespace).'),
      })
      .optional()
      .describe('Written by plan -o: apply FILE refuses a plan whose seal does not match (an edited plan, or one made with another token).'),
  })
  .describe('A telform plan (telform plan --format json, or plan -o FILE).');

export function renderPlanJsonSchema(): string {
  const json = z.toJSONSchema(planSchema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, title: `telform plan (format ${planFormatVersion})` }, null, 2)}\n`;
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// Fails to compile when the schema and the Plan type drift apart (field names and optionality).
export const planSchemaMatchesType: Equal<keyof z.infer<typeof planSchema>, keyof Plan> = true;
