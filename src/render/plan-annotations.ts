// A plan (or drift) where CI shows it on the pull request: registry refusals on the manifest document
// of the brand or campaign (and on each field a reason names), findings of the 10DLC lint and the
// policies on their place. GitHub workflow commands and a GitLab code-quality report.
import { createHash } from 'node:crypto';
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import type { SourcePlace } from '../util/errors.js';
import { printable } from '../util/printable.js';
import { summaryLine } from './format.js';
import { escapeData, escapeProperty } from './validation-annotations.js';

export interface PlanAnnotation {
  severity: 'error' | 'warning' | 'notice';
  /** `registry`, `lint` or `policy`. */
  check: string;
  place?: SourcePlace;
  message: string;
}

/** Why the registry refused it, in one line: declined reasons, then the error code and reason. */
function refusalText(change: PlannedChange): string | undefined {
  const registry = change.registry;
  if (!registry || registry.registration_status.toUpperCase() !== 'FAILED') return undefined;
  const why = [
    ...(registry.declined_reasons ?? []).map((reason) => `${reason.code}: ${reason.message}`),
    ...(registry.error_code || registry.error_reason
      ? [[registry.error_code, registry.error_reason].filter(Boolean).join(': ')]
      : []),
  ];
  return `${change.address} was declined by the registry${why.length > 0 ? `: ${why.join('; ')}` : ''}`;
}

/** Every annotation of a plan, refusals first, in plan order. Live text is escaped (it is untrusted). */
export function planAnnotations(plan: Pick<Plan, 'changes' | 'findings'>): PlanAnnotation[] {
  const annotations: PlanAnnotation[] = [];
  for (const change of plan.changes) {
    const refusal = refusalText(change);
    if (!refusal) continue;
    annotations.push({
      severity: 'error',
      check: 'registry',
      ...(change.source ? { place: change.source } : {}),
      message: printable(refusal),
    });
    for (const [field, place] of Object.entries(change.refusal_fields ?? {})) {
      annotations.push({
        severity: 'error',
        check: 'registry',
        place,
        message: printable(`spec.${field}: named by the registry's refusal of ${refusal}`),
      });
    }
  }
  for (const finding of plan.findings ?? []) {
    annotations.push({
      severity: finding.severity === 'info' || finding.held ? 'notice' : finding.severity,
      check: finding.source,
      ...(finding.source_place ? { place: finding.source_place } : {}),
      message: `${finding.address}  ${finding.field ? `${finding.field}: ` : ''}${finding.message} (${finding.source} ${finding.rule})`,
    });
  }
  return annotations;
}

export function githubAnnotation(annotation: PlanAnnotation): string {
  const properties: string[] = [];
  if (annotation.place)
    properties.push(
      `file=${escapeProperty(annotation.place.file)}`,
      `line=${annotation.place.line}`,
      `col=${annotation.place.column}`,
    );
  properties.push(`title=${escapeProperty(`telform ${annotation.check}`)}`);
  return `::${annotation.severity} ${properties.join(',')}::${escapeData(annotation.message)}`;
}

/** One workflow command per annotation, then the plan's summary line for the log. */
export function renderPlanGithub(plan: Plan): string {
  return `${[...planAnnotations(plan).map(githubAnnotation), summaryLine(plan.summary)].join('\n')}\n`;
}

/** GitLab's code-quality report of the same annotations, each with a stable fingerprint. */
export function renderPlanGitlab(plan: Plan): string {
  return gitlabReport(planAnnotations(plan));
}

/** Annotations as GitLab's code-quality report: a JSON array of issues, each with a stable fingerprint. */
export function gitlabReport(annotations: readonly PlanAnnotation[]): string {
  const issues = annotations.map((annotation) => ({
    description: annotation.message,
    check_name: `telform ${annotation.check}`,
    fingerprint: createHash('sha256')
      .update(
        [annotation.check, annotation.place?.file ?? '', annotation.place?.line ?? 0, annotation.message].join(
          '\u0000',
        ),
      )
      .digest('hex'),
    severity: annotation.severity === 'error' ? 'major' : 'minor',
    location: { path: annotation.place?.file ?? '', lines: { begin: annotation.place?.line ?? 1 } },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
