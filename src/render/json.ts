import type { Plan } from '../engine/plan-types.js';

/** The plan as versioned JSON (`format_version`), documented by `schemas/plan.schema.json`. */
export function renderJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
