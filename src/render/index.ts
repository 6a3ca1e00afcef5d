import type { Plan } from '../engine/plan-types.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

export interface RenderOptions {
  color: boolean;
}

export type PlanFormat = 'text' | 'json' | 'markdown';

/** Renderers by name (STYLE.md 5): pure `(plan, options) => string`. */
export const planRenderers: Record<PlanFormat, (plan: Plan, options: RenderOptions) => string> = {
  text: (plan, options) => renderText(plan, { color: options.color }),
  json: (plan) => renderJson(plan),
  markdown: (plan) => renderMarkdown(plan),
};

export const planFormats = Object.keys(planRenderers) as PlanFormat[];
