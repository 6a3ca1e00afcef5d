// The output formats: one renderer per format, each implementing the reports it can render. The
// type system checks the registry (every format is a `Renderer`, every member has its report's
// signature); a command's `--format` choices are the formats that implement its reports, and a
// format asked for a report it does not implement is refused by name, never replaced by text.
import type { DriftReport } from './drift-schema.js';
import type { Plan } from '../engine/plan-types.js';
import type { ValidationSummary } from '../manifest/report.js';
import { renderValidationJson, renderValidationText } from '../manifest/report.js';
import type { AccountOutcome, AccountsReport } from './accounts-report.js';
import type { Rehearsal } from './rehearsal-report.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from './drift.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';
import { renderDot, renderMermaid } from './graph.js';
import { renderPlanGithub, renderPlanGitlab } from './plan-annotations.js';
import { renderAccountsJson, renderAccountsMarkdown, renderAccountsText } from './accounts.js';
import { renderAccountsGithub, renderAccountsGitlab } from './accounts-annotations.js';
import { renderAppliedJson, renderAppliedText } from './apply.js';
import { renderValidationGithub, renderValidationGitlab } from './validation-annotations.js';
import {
  mergeAccountValidations,
  renderAccountsValidationJson,
  renderAccountsValidationText,
  type AccountValidation,
} from './validation-accounts.js';
import { renderHistoryJson, renderHistoryMarkdown, renderHistoryText, type HistoryView } from './history.js';
import { renderRehearsalMarkdown, renderRehearsalText } from './rehearsal.js';
import { renderTestJunit, renderTestText, type TestReport } from './test-report.js';
import { renderStateEntry, renderStateListJson, renderStateListText } from './state.js';
import type { Ledger } from '../state/ledger.js';
import { renderImportReport, type ImportReport } from './import.js';
import { renderFieldExplanation, renderKindExplanation } from './explain.js';
import type { FieldExplanation, KindExplanation } from '../resources/explain.js';
import { TelformError } from '../util/errors.js';
import { formatRefusal, reportNames, type Format, type formatReports, type Report } from './formats.js';

export { formatChoices, formatRefusal, formatsRendering, type Format, type Report } from './formats.js';

export interface RenderOptions {
  color: boolean;
  /** `apply --wait`: how long the apply may poll the registry (the request estimate counts the polls). */
  waitMs?: number;
}

/**
 * What one output format renders: a member per report, present when the format can render it.
 * Pure functions of what the operations return, no I/O.
 */
export interface Renderer {
  plan?(plan: Plan, options: RenderOptions): string;
  /** `telform drift`: the report, with the plan it was classified from. */
  drift?(report: DriftReport, plan: Plan, options: RenderOptions): string;
  /** `telform apply` of one account, as its entry of an accounts report. */
  apply?(applied: AccountOutcome): string;
  /** `plan|apply|drift --accounts`, `report show|merge`. */
  accounts?(report: AccountsReport): string;
  /** `telform validate -f`. */
  validation?(summary: ValidationSummary): string;
  /** `telform validate --accounts`. */
  accountsValidation?(accounts: readonly AccountValidation[]): string;
  /** `telform history [ADDRESS]`: one state's records, or each account's (`--accounts`), or one resource's timeline. */
  history?(views: readonly HistoryView[], query: { address?: string; accounts: boolean }): string;
  /** `plan --rehearse`: what the API of a replica did with the plan. */
  rehearsal?(rehearsal: Rehearsal): string;
  /** `telform state list`: the managed resources of a state. */
  stateList?(ledger: Ledger): string;
  /** `telform state show ADDRESS`: one managed resource, each secret by where it came from. */
  stateEntry?(address: string, entry: Ledger['resources'][string]): string;
  /** `telform import`: what it wrote and recorded, skipped and refused. */
  imported?(report: ImportReport): string;
  /** `telform explain KIND`. */
  kindExplanation?(kind: KindExplanation): string;
  /** `telform explain KIND.field`. */
  fieldExplanation?(field: FieldExplanation): string;
  /** `telform test`: the test files' results. */
  test?(report: TestReport): string;
}

/** Renderers by format: each format implements exactly the reports `formatReports` lists for it. */
export const renderers = {
  text: {
    plan: (plan, options) =>
      renderText(plan, { color: options.color, ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }) }),
    drift: (report, plan) => renderDriftText(report, plan),
    apply: renderAppliedText,
    accounts: renderAccountsText,
    validation: renderValidationText,
    accountsValidation: renderAccountsValidationText,
    history: (views, query) => views.map((view) => renderHistoryText(view, query.address)).join('\n'),
    rehearsal: renderRehearsalText,
    test: renderTestText,
    stateList: renderStateListText,
    imported: renderImportReport,
    kindExplanation: renderKindExplanation,
    fieldExplanation: renderFieldExplanation,
  },
  json: {
    plan: (plan) => renderJson(plan),
    drift: (report, plan) => renderDriftJson(report, plan),
    apply: renderAppliedJson,
    accounts: renderAccountsJson,
    validation: renderValidationJson,
    accountsValidation: renderAccountsValidationJson,
    history: (views, query) => renderHistoryJson(views, query.accounts),
    stateList: renderStateListJson,
    stateEntry: renderStateEntry,
  },
  markdown: {
    plan: (plan) => renderMarkdown(plan),
    drift: (report, plan) => renderDriftMarkdown(report, plan),
    accounts: renderAccountsMarkdown,
    history: (views, query) => renderHistoryMarkdown(views, query.address),
    rehearsal: renderRehearsalMarkdown,
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
  // CI annotations: registry refusals on the manifest document (and the fields they name), findings on their place;
  // for an accounts run, each account's, named.
  github: {
    plan: (plan) => renderPlanGithub(plan),
    drift: (_report, plan) => renderPlanGithub(plan),
    accounts: renderAccountsGithub,
    validation: renderValidationGithub,
    accountsValidation: (accounts) => renderValidationGithub(mergeAccountValidations(accounts)),
  },
  gitlab: {
    plan: (plan) => renderPlanGitlab(plan),
    drift: (_report, plan) => renderPlanGitlab(plan),
    accounts: renderAccountsGitlab,
    validation: renderValidationGitlab,
    accountsValidation: (accounts) => renderValidationGitlab(mergeAccountValidations(accounts)),
  },
  // JUnit XML: what CI test reports read.
  junit: {
    test: renderTestJunit,
  },
} satisfies Implemented;

/** What each format must implement: its listed reports, each with the renderer's signature, and nothing else. */
type Implemented = { [F in Format]: { [R in (typeof formatReports)[F][number]]-?: NonNullable<Renderer[R]> } };

/** The registry seen through the interface: a format's member may be absent. */
const registry: Record<Format, Renderer> = renderers;

/**
 * The function that renders `report` in `format`. The commands refuse the combination while parsing
 * their flags; this refusal is for a caller that did not ask first.
 */
export function rendererFor<R extends Report>(format: Format, report: R): NonNullable<Renderer[R]> {
  const render = registry[format][report];
  if (render === undefined)
    throw new TelformError(
      'bad_option',
      formatRefusal(format, report) ?? `--format ${format} cannot render ${reportNames[report]}`,
    );
  // Checked just above; TypeScript does not narrow a member picked by a generic key.
  return render as NonNullable<Renderer[R]>;
}

/** Unmanaged objects are listed only when asked (or when they will be pruned); refusals are warned about. */
export function planForDisplay(plan: Plan, showUnmanaged: boolean, extraWarnings: readonly string[]): Plan {
  return {
    ...plan,
    unmanaged: showUnmanaged ? plan.unmanaged : plan.unmanaged.filter((object) => object.prune),
    warnings: [...plan.warnings, ...extraWarnings],
  };
}
