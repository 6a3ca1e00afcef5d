// `plan --destroy` / `apply --destroy`: a teardown as a reviewed intent. The plan is made with no
// desired resource at all, so every resource the state manages is an orphan and is deleted, in
// reverse dependency order (the planner's own order for deletes); this marks it as a teardown so
// every renderer says so in its headline and the safety gates know. Pure: no I/O.
import type { Plan } from './plan-types.js';

export function asTeardown(plan: Plan): Plan {
  const deletes = plan.changes.filter((change) => change.action === 'delete').length;
  const others = plan.changes.length - deletes;
  return {
    ...plan,
    destroy: true,
    warnings: [
      ...(others > 0 ? [`--destroy: ${others} of the ${plan.changes.length} managed resources cannot be deleted now (see their reasons); the rest are`] : []),
      ...plan.warnings,
    ],
  };
}
