// Reconcile's transforms stage: the ordered rewrites of the fresh plan (teardown, targets,
// excludes, the producer's own), each a function of the plan.
import type { Loaded } from './inputs.js';
import type { LedgerStore } from '../../state/ledger-store.js';
import type { PlannerKinds } from '../../engine/model.js';
import type { Plan } from '../../engine/plan-types.js';
import { limitToTargets } from '../../engine/targets.js';
import { excludeFromPlan } from '../../engine/exclude.js';
import { asTeardown } from '../../engine/destroy.js';
import { type DesiredSet } from '../../manifest/desired.js';
import type { ReconcileOptions } from './types.js';

interface TransformInputs {
  saved: Loaded['saved'];
  teardown: boolean;
  options: ReconcileOptions;
  kinds: PlannerKinds;
  desired: DesiredSet;
  ledger: LedgerStore['ledger'];
}

/**
 * The transforms stage, in order: a teardown deletes everything, `--target` keeps what the targets
 * need, `--exclude` leaves addresses out, and the producer's own (a revert marks what cannot come
 * back). A saved plan is transformed as it was when made (its targets and excludes).
 */
export function transformStage(whole: Plan, inputs: TransformInputs): Plan {
  const { saved, options, kinds } = inputs;
  const resources = inputs.desired.resources;
  const ledgerResources = inputs.ledger.resources;
  // Read only by a --target that names nothing (for its suggestion): not built otherwise.
  const knownAddresses: Iterable<string> = {
    *[Symbol.iterator]() {
      for (const resource of resources) yield resource.address;
      yield* Object.keys(ledgerResources);
    },
  };
  const transforms: Array<(plan: Plan) => Plan> = [
    (plan) => (inputs.teardown ? asTeardown(plan) : plan),
    (plan) => limitToTargets(plan, saved ? (saved.plan.targets ?? []) : (options.targets ?? []), kinds, knownAddresses),
    (plan) =>
      excludeFromPlan(plan, saved ? (saved.plan.excluded ?? []) : (options.excludes ?? []), kinds, ledgerResources),
    (plan) => (options.adjust && !saved ? options.adjust(plan, kinds) : plan),
  ];
  return transforms.reduce((plan, transform) => transform(plan), whole);
}
