// Runs the 10DLC lint (campaign-lint-rules.ts) over the campaigns of the manifests, offline: what the
// registry would decline, found before a registration or a billed update is submitted.
import type { PlanFinding } from '../engine/plan-types.js';
import { campaignLintRules, type CampaignLintRule } from './campaign-lint-rules.js';
import { isRef, lazyPlaceOfValue, type ManifestResource } from './model.js';
import type { Pacer } from '../util/pace.js';
import type { Problem } from './problems.js';

/** The names a campaign's brand is known by, from the Brand and Profile documents its refs name. */
function brandNames(campaign: ManifestResource, byAddress: ReadonlyMap<string, ManifestResource>): string[] {
  const brandRef = campaign.spec['brand_id'];
  const brand = isRef(brandRef) ? byAddress.get(`Brand/${brandRef.ref}`) : undefined;
  if (!brand) return [];
  const names = [brand.spec['brand_alias']];
  const profileRef = brand.spec['profile_uuid'];
  const profile = isRef(profileRef) ? byAddress.get(`Profile/${profileRef.ref}`) : undefined;
  if (profile) names.push(profile.spec['company_name'], profile.spec['profile_alias']);
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name.trim() !== ''))];
}

/**
 * Every finding of every rule on every registered campaign (an imported one holds no content), in
 * manifest order, each placed on its field (or where the field would go).
 */
export function lintCampaigns(
  resources: readonly ManifestResource[],
  rules: readonly CampaignLintRule[] = campaignLintRules,
): PlanFinding[] {
  const byAddress = new Map(resources.map((resource) => [resource.address, resource]));
  const findings: PlanFinding[] = [];
  for (const resource of resources) lintCampaign(resource, byAddress, rules, findings);
  return findings;
}

/** `lintCampaigns` in slices (`Pacer`): the event loop turns between campaigns when due. */
export async function lintCampaignsPaced(resources: readonly ManifestResource[], pacer: Pacer): Promise<PlanFinding[]> {
  const byAddress = new Map(resources.map((resource) => [resource.address, resource]));
  const findings: PlanFinding[] = [];
  for (const resource of resources) {
    if (pacer.due()) await pacer.breathe();
    lintCampaign(resource, byAddress, campaignLintRules, findings);
  }
  // Every renderer of the plan shows a finding's place: found here, between slices, while the lists
  // are still read, rather than after the last page, when the plan waits for them.
  for (const finding of findings) {
    if (pacer.due()) await pacer.breathe();
    // Reading the line of a lazily found place (`lazyPlaceOf`) looks it up and keeps it.
    void finding.source_place?.line;
  }
  return findings;
}

function lintCampaign(
  resource: ManifestResource,
  byAddress: ReadonlyMap<string, ManifestResource>,
  rules: readonly CampaignLintRule[],
  findings: PlanFinding[],
): void {
  if (resource.kind !== 'Campaign' || resource.spec['import'] !== undefined) return;
  const view = { spec: resource.spec, brandNames: brandNames(resource, byAddress) };
  for (const rule of rules) {
    for (const hit of rule.check(view)) {
      findings.push({
        source: 'lint',
        rule: rule.id,
        severity: rule.severity,
        address: resource.address,
        message: hit.message,
        field: `spec.${hit.field}`,
        // Looked up when read (finding a place may read the file again, see yaml-fast.ts): the
        // paced lint looks them up in its slices, a lint of the findings alone only when shown.
        source_place: lazyPlaceOfValue(
          resource,
          ['spec', hit.field],
          resource.spec[hit.field] === undefined ? 'key' : 'value',
        ),
        reference: rule.source,
      });
    }
  }
}

/**
 * A finding as a validation problem: `validate` reports it with the others, the rule named. Always a
 * warning: a campaign the account holds may predate the rule (a held value, docs/real-accounts.md);
 * an error-level finding is refused by the plan when the campaign would be submitted.
 */
export function findingProblem(finding: PlanFinding): Problem {
  const held = finding.severity === 'error' ? '; plan and apply refuse to submit the campaign with it' : '';
  return {
    severity: 'warning',
    code: 'lint',
    message: `${finding.message} (10DLC lint ${finding.rule}; ${finding.reference ?? 'telform'})${held}`,
    address: finding.address,
    ...(finding.source_place ? { source: finding.source_place } : {}),
    ...(finding.field ? { field: finding.field } : {}),
  };
}
