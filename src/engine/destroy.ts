// `plan --destroy` / `apply --destroy`: a teardown as a reviewed intent. The plan is made with no
// desired resource at all, so every resource the state manages is an orphan and is deleted, in
// reverse dependency order (the planner's own order for deletes); this marks it as a teardown so
// every renderer says so in its headline and the safety gates know. Pure: no I/O.
import type { Plan, PlannedChange } from './plan-types.js';
import { orphanForgottenReason, orphanReason } from './planner.js';

/** The planner says why an orphan goes ("removed from the manifests"); in a teardown the reason is the teardown. */
const teardownReasons: Readonly<Record<string, string>> = {
  [orphanReason]: 'torn down by --destroy',
  [orphanForgottenReason]: 'torn down by --destroy; already gone from the account, it is only forgotten',
};

function asTeardownChange(change: PlannedChange): PlannedChange {
  return { ...change, reasons: change.reasons.map((reason) => teardownReasons[reason] ?? reason) };
}

export function asTeardown(plan: Plan): Plan {
  const deletes = plan.changes.filter((change) => change.action === 'delete').length;
  const others = plan.changes.length - deletes;
  return {
    ...plan,
    destroy: true,
    changes: plan.changes.map(asTeardownChange),
    warnings: [
      ...(others > 0
        ? [
            `--destroy: ${others} of the ${plan.changes.length} managed resources cannot be deleted now (see their reasons); the rest are`,
          ]
        : []),
      ...plan.warnings,
    ],
  };
}
