import type { LiveObject } from '../resources/live-side.js';
import type { Match } from './match.js';
import { isReference, type LiveModel, type PlannerKind } from './model.js';
import type { PlanAction } from './plan-types.js';

/**
 * What a resource's reference fields point at, as the planner sees it: the live object behind a
 * `{ ref }` or a literal id, or the fact that the target is created by this plan. Two questions are
 * answered from it: must the change wait for the target (a registry approval), and does the target
 * fit (a phone number needs an inbound trunk).
 */
export interface Target {
  /** `Kind/name` of a managed target, `Kind #id` of a literal one. */
  label: string;
  /** The target's live object; undefined when it is created by this plan or not found. */
  live: LiveObject | undefined;
  /** The target is created in this plan. */
  creating: boolean;
}

export class TargetIndex {
  private readonly byAddress = new Map<string, Match>();

  constructor(
    matches: readonly Match[],
    private readonly live: LiveModel,
  ) {
    for (const match of matches)
      if (match.type === 'matched' || match.type === 'missing') this.byAddress.set(match.desired.address, match);
  }

  /** The target of `value` (a `{ ref }` or a literal id) in a field referring to `kind`. */
  of(kind: string, value: unknown): Target | undefined {
    if (isReference(value)) {
      const label = `${kind}/${value.ref}`;
      const match = this.byAddress.get(label);
      if (match?.type === 'matched') return { label, live: match.live, creating: false };
      if (match?.type === 'missing') return { label, live: undefined, creating: true };
      return undefined;
    }
    if (typeof value !== 'string' || value === '') return undefined;
    const live = this.live.get(kind)?.find((object) => object.id === value);
    return live ? { label: `${kind} ${value}`, live, creating: false } : undefined;
  }
}

export interface TargetVerdict {
  action: Extract<PlanAction, 'wait' | 'blocked'>;
  reason: string;
}

/**
 * Verdicts on the targets of `fields` (all reference fields when undefined): `wait` while a target
 * awaits the registry (or is registered by this apply), `blocked` when it was declined or does not
 * fit the kind's reference rules.
 */
export function judgeTargets(
  kind: PlannerKind,
  spec: Readonly<Record<string, unknown>>,
  kinds: ReadonlyMap<string, PlannerKind>,
  targets: TargetIndex,
  fields?: readonly string[],
): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  for (const { field, target } of kind.references) {
    if (fields && !fields.includes(field)) continue;
    const found = targets.of(target, spec[field]);
    if (!found) continue;
    const rule = kind.referenceRules[field];
    const misfit = found.live && rule ? rule(found.live.spec) : undefined;
    if (misfit) {
      verdicts.push({ action: 'blocked', reason: `${field}: ${found.label}, as the account has it, ${misfit}` });
      continue;
    }
    const readiness = kinds.get(target)?.live.readiness;
    if (!readiness) continue;
    if (found.creating) {
      verdicts.push({
        action: 'wait',
        reason: `waits for ${found.label}, which is created in this apply and must be approved by the registry first`,
      });
      continue;
    }
    if (!found.live || !isReference(spec[field])) continue;
    const state = readiness(found.live);
    if (state === 'pending') {
      verdicts.push({
        action: 'wait',
        reason: `waits for ${found.label} to be approved by the registry (now ${found.live.registry?.registration_status ?? 'pending'})`,
      });
    } else if (state === 'failed') {
      verdicts.push({
        action: 'blocked',
        reason: `${found.label} was declined by the registry; fix it before using it`,
      });
    }
  }
  return verdicts;
}
