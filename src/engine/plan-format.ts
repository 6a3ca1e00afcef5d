// What code needs of the plan's format without loading its schema (plan-schema.ts builds its zod
// schemas when it is loaded): the version, the actions, and the fields each action carries.

/**
 * A plan is versioned, serialisable data. Renderers turn it into text, JSON or
 * markdown; `apply plan.json` executes exactly it. Changes are in execution order.
 */
export const planFormatVersion = 2;

/** docs/commands.md, plan. */
export const planActions = ['create', 'update', 'replace', 'delete', 'adopt', 'wait', 'blocked', 'noop'] as const;
export type PlanAction = (typeof planActions)[number];

/** The fields of a change that only some actions carry. */
export type ActionField = 'id' | 'replace_strategy' | 'before' | 'after' | 'secrets' | 'delete_after' | 'superseded_of';

/**
 * The fields of each action: those it must carry, and those it may. A planned change is checked
 * against `required` (change-draft.ts), and the plan's types are made from this table (plan-schema.ts).
 */
export const changeFieldsByAction = {
  /** A resource of the manifests that is not in the account yet. */
  create: { required: ['after'], optional: ['secrets'] },
  /** A live object changed in place (or re-pointed to a replaced object's successor). */
  update: { required: ['id', 'before', 'after'], optional: ['secrets'] },
  /** A live object that can only change by being created anew and the old one deleted. */
  replace: { required: ['id', 'replace_strategy', 'before', 'after'], optional: ['secrets', 'delete_after'] },
  /** A live object (or a ledger entry already gone from the account) telform deletes or forgets; no `before` when it is already gone. */
  delete: { required: ['id'], optional: ['before', 'superseded_of'] },
  /** A live object telform takes over, already as the manifest says. */
  adopt: { required: ['id', 'before', 'after'], optional: ['secrets'] },
  /** A live object already as the manifest says. */
  noop: { required: ['id', 'before', 'after'], optional: ['secrets'] },
  /** A create (no `id`) or an update (`id`) that must wait for a target's registration. */
  wait: { required: ['after'], optional: ['id', 'before', 'secrets'] },
  /** A change telform refuses to make; the reasons say why. */
  blocked: { required: [], optional: ['id', 'before', 'after', 'secrets', 'superseded_of'] },
} as const satisfies Record<PlanAction, { required: readonly ActionField[]; optional: readonly ActionField[] }>;
