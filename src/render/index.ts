import type { DriftReport } from './drift-report.js';
import type { Plan } from '../engine/plan-types.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from './drift.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';
import { renderDot, renderMermaid } from './graph.js';
import { renderPlanGithub, renderPlanGitlab } from './plan-annotations.js';

export interface RenderOptions {
  color: boolean;
  /** `apply --wait`: how long the apply may poll the registry (the request estimate counts the polls). */
  waitMs?: number;
}

export type PlanFormat = 'text' | 'json' | 'markdown' | 'mermaid' | 'dot' | 'github' | 'gitlab';

/** What one output format renders: pure functions of the engine's results, no I/O. */
export interface Renderer {
  plan(plan: Plan, options: RenderOptions): string;
  /** `telform drift`: the report, with the plan it was classified from. */
  drift(report: DriftReport, plan: Plan, options: RenderOptions): string;
}

/** Renderers by name. */
export const renderers: Record<PlanFormat, Renderer> = {
  text: {
    plan: (plan, options) => renderText(plan, { color: options.color, ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }) }),
    drift: (report, plan) => renderDriftText(report, plan),
  },
  json: {
    plan: (plan) => renderJson(plan),
    drift: (report, plan) => renderDriftJson(report, plan),
  },
  markdown: {
    plan: (plan) => renderMarkdown(plan),
    drift: (report, plan) => renderDriftMarkdown(report, plan),
  },
  // The graph of the plan's changes: for drift, of the plan that would bring the account back.
  mermaid: {
    plan: (plan) => renderMermaid(plan),
    drift: (_report, plan) => renderMermaid(plan),
  },
  dot: {
    plan: (plan) => renderDot(plan),
    drift: (_report, plan) => renderDot(plan),
  },
  // CI annotations: registry refusals on the manifest document (and the fields they name), findings on their place.
  github: {
    plan: (plan) => renderPlanGithub(plan),
    drift: (_report, plan) => renderPlanGithub(plan),
  },
  gitlab: {
    plan: (plan) => renderPlanGitlab(plan),
    drift: (_report, plan) => renderPlanGitlab(plan),
  },
};

export const planFormats = Object.keys(renderers) as PlanFormat[];

/** Unmanaged objects are listed only when asked (or when they will be pruned); refusals are warned about. */
export function planForDisplay(plan: Plan, showUnmanaged: boolean, extraWarnings: readonly string[]): Plan {
  return {
    ...plan,
    unmanaged: showUnmanaged ? plan.unmanaged : plan.unmanaged.filter((object) => object.prune),
    warnings: [...plan.warnings, ...extraWarnings],
  };
}
