// Reconcile's judgement stage: the findings (lint, policies), the one judgement (run/judgement.ts),
// the claim of an account nobody owns, the ACL quota, the saved plan checked against the fresh one,
// and an apply's approval rules.
import { TelformError } from '../../util/errors.js';
import { resumablePart, resumedNote, type ResumedPlan } from '../plan-resume.js';
import type { Loaded } from './inputs.js';
import type { LedgerStore } from '../../state/ledger-store.js';
import type { Plan, PlanFinding } from '../../engine/plan-types.js';
import { claimNote, claimRequests, claimsOnWrite, type Ownership } from '../../state/ownership.js';
import { assertAclQuota } from '../../engine/acl-quota.js';
import { judgeApprovalRules, judgePlan, rejudged, type JudgedPlan } from '../judgement.js';
import { type DesiredSet } from '../../manifest/desired.js';
import { type RunIo, type Session } from '../context.js';
import { assertPlanApplies } from '../saved-plan.js';
import type { ReconcileOptions } from './types.js';

interface JudgeInputs {
  loaded: Loaded;
  desired: DesiredSet;
  store: LedgerStore;
  session: Session;
  ownership: Ownership;
  markersTotal: number;
  options: ReconcileOptions;
  io: RunIo;
}

/**
 * The judgement stage: the policies' and lint findings, then the one judgement (run/judgement.ts);
 * the claim of an account nobody owns and the ACL quota; a saved plan must still be what the fresh
 * one is, and is then judged as it was reviewed; an apply under approval rules is judged by them.
 */
export async function judgeStage(
  transformed: Plan,
  inputs: JudgeInputs,
): Promise<{ judged: JudgedPlan; claims: boolean; resumed?: ResumedPlan }> {
  const { loaded, desired, store, session, options, io } = inputs;
  const { saved, approvals, policies } = loaded;
  const values = 'values' in desired ? desired.values : undefined;
  const policyFindings =
    policies.length === 0
      ? []
      : (await import('../../manifest/policy-eval.js')).evaluatePolicies(policies, transformed, desired.resources);
  const findings = [...findingsOf(transformed, desired.findings), ...policyFindings];
  const checked = {
    ...transformed,
    ...(values ? { values } : {}),
    ...(findings.length > 0 ? { findings } : {}),
  };
  const basis = {
    approvals,
    desired: desired.resources,
    ledger: store.ledger,
    ...(options.producerRefusal ? { producerRefusal: options.producerRefusal } : {}),
  };
  const fresh = judgePlan(checked, basis, true);
  // The first apply of an account nobody owns claims it: its requests are in the estimate.
  const claims = !options.readOnly && claimsOnWrite(inputs.ownership, store.ledger) && writes(fresh.plan);
  const plan = claims
    ? {
        ...fresh.plan,
        summary: { ...fresh.plan.summary, api_requests: fresh.plan.summary.api_requests + claimRequests },
      }
    : fresh.plan;
  // The API's 100 SIP IP ACLs: a plan (and its claim) that needs more is refused before anything is sent.
  if (!options.readOnly)
    assertAclQuota(plan, inputs.markersTotal, claims, session.account, options.lock ? 'apply' : 'plan');
  // A saved plan an earlier attempt applied part of is finished: only what it left is applied (run/plan-resume.ts).
  const resumed = saved ? await resumeOrAssertApplies(saved, plan, store) : undefined;
  if (resumed && saved) io.stderr(resumedNote(saved, resumed));
  const chosen = saved ? (resumed?.plan ?? saved.plan) : plan;
  // Plain adoptions only: a number the account already holds is attached by an update, and is not another ledger's.
  if (claims)
    io.stderr(claimNote(store, session.account, chosen.changes.filter((change) => change.action === 'adopt').length));
  // A saved plan is applied exactly as reviewed (or what is left of it), so it is the one judged.
  const judged = saved ? judgePlan(chosen, basis, false) : rejudged(fresh, plan);
  const gate = options.approvalRules;
  const outcome = { claims, ...(resumed ? { resumed } : {}) };
  if (!gate || !options.lock) return { judged, ...outcome };
  const rules = {
    ...gate,
    policies: options.policies ?? [],
    cwd: io.cwd,
    ...(saved ? { planFile: saved.file } : {}),
    // The approvals sign the reviewed plan's digest, also when only its rest runs.
    ...(resumed ? { reviewed: resumed.reviewed } : {}),
  };
  return { judged: await judgeApprovalRules(judged, rules), ...outcome };
}

/** The saved plan applies as it is, or what an earlier attempt left of it does; otherwise it is stale. */
async function resumeOrAssertApplies(
  saved: { file: string; plan: Plan },
  fresh: Plan,
  store: LedgerStore,
): Promise<ResumedPlan | undefined> {
  try {
    assertPlanApplies(saved.plan, fresh, saved.file);
    return undefined;
  } catch (error) {
    if (!(error instanceof TelformError) || error.code !== 'plan_stale') throw error;
    const resumed = await resumablePart(saved.plan, fresh, store, saved.file);
    if (!resumed) throw error;
    return resumed;
  }
}

/**
 * The findings about the plan's resources (a `--target` plan leaves the others out). A lint error on a
 * campaign the plan does not submit is held: the registry took the campaign as it is.
 */
function findingsOf(plan: Plan, findings: readonly PlanFinding[]): PlanFinding[] {
  const addresses = new Set(plan.changes.map((change) => change.address));
  const submitted = new Set(
    plan.changes.filter((change) => submittingActions.has(change.action)).map((change) => change.address),
  );
  return findings
    .filter((finding) => addresses.has(finding.address))
    .map((finding) =>
      finding.source === 'lint' && finding.severity === 'error' && !submitted.has(finding.address)
        ? { ...finding, held: true as const }
        : finding,
    );
}

/** Campaign changes that submit to the registry (`engine/safety.ts` judges their lint errors). */
const submittingActions = new Set(['create', 'update', 'replace', 'wait']);

/** Whether applying the plan writes (to the account or the ledger): a blocked change is never sent. */
function writes(plan: Plan): boolean {
  return plan.changes.some(
    (change) => (change.action !== 'noop' && change.action !== 'blocked') || change.moved_from !== undefined,
  );
}
