import type { Plan } from '../engine/plan-types.js';
import { printableJson } from '../util/printable.js';

/** The plan as versioned JSON (`format_version`), documented by `schemas/plan.schema.json`. */
export function renderJson(plan: Plan): string {
  // Live text may hold characters JSON leaves raw (bidi, C1): escaped, the data unchanged.
  return `${printableJson(JSON.stringify(plan, null, 2))}\n`;
}
