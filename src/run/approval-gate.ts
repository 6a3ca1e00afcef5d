// The approval rules as a gate of apply (docs/approvals.md): before any request, a reconciled plan
// is judged against the policy files' approval rules and freezes, with the signed approvals beside a
// saved plan. It refuses naming the rule, the people missing and the approvals that expired or do not
// count; what it lets through is recorded with the apply. A change the approvals cover needs no flag
// for being irreversible, billable or breaking numbers: the people the rule names approved it.
import type { ApprovalTable, Plan } from '../engine/plan-types.js';
import type { SafetyViolation } from '../engine/safety.js';
import { loadApprovalPolicy, type ApprovalPolicy } from '../manifest/approval-policy.js';
import type { HistorySignoff } from '../state/history.js';
import type { Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import {
  approvalDigest,
  approvalsFolderOf,
  isVerified,
  readApprovals,
  verifyApproval,
  type RejectedApproval,
  type VerifiedApproval,
} from './approval-files.js';
import { judgeApprovals, type ApprovalJudgement } from './approval-judge.js';

export interface ApprovalGateInput {
  /** The policy files (`--policy`, the accounts file's). */
  policies: readonly string[];
  /** A saved plan's file: its approvals are in the folder beside it. */
  planFile?: string;
  /** `--approvals DIR`, instead of the folder beside the plan. */
  approvalsFolder?: string;
  /** `--emergency REASON`. */
  emergency?: string;
  /** The saved plan as reviewed, when what runs is only the rest of it (run/plan-resume.ts): the approvals sign its digest. */
  reviewed?: Plan;
  clock: Clock;
  cwd: string;
}

interface ApprovalGateOutcome {
  /** The safety violations left once the approvals given waived theirs. */
  violations: SafetyViolation[];
  signoff?: HistorySignoff;
}

/** The approvals of a plan, verified, and the judgement now. Undefined when the policies hold no approval rule or freeze. */
export async function judgePlanApprovals(
  plan: Plan,
  input: ApprovalGateInput,
): Promise<{ policy: ApprovalPolicy; judgement: ApprovalJudgement; approvals: VerifiedApproval[] } | undefined> {
  if (input.policies.length === 0) return undefined;
  const policy = await loadApprovalPolicy(input.policies, input.cwd);
  if (policy.rules.length === 0 && policy.freezes.length === 0) return undefined;
  const nowMs = input.clock.now();
  const digest = approvalDigest(input.reviewed ?? plan);
  const folder = input.approvalsFolder ?? (input.planFile ? approvalsFolderOf(input.planFile) : undefined);
  const approvals: VerifiedApproval[] = [];
  const rejected: RejectedApproval[] = [];
  for (const { file, content } of folder ? await readApprovals(folder, input.cwd) : []) {
    const checked = verifyApproval(file, content, { digest, account: plan.account }, policy.people, nowMs);
    if (isVerified(checked)) approvals.push(checked);
    else rejected.push(checked);
  }
  const judgement = judgeApprovals({
    plan,
    digest,
    policy,
    approvals,
    rejected,
    nowMs,
    ...(input.emergency === undefined ? {} : { emergency: input.emergency }),
  });
  return { policy, judgement, approvals };
}

/**
 * Refuses (`approval_refused`) a plan the approval rules do not let through now; otherwise the
 * safety violations the approvals waive are dropped and the signoff to record is returned.
 */
export async function passApprovalGate(
  plan: Plan,
  violations: readonly SafetyViolation[],
  input: ApprovalGateInput,
): Promise<ApprovalGateOutcome> {
  const judged = await judgePlanApprovals(plan, input);
  if (!judged) {
    if (input.emergency !== undefined)
      throw new TelformError('bad_option', '--emergency: the policies hold no approval rule or freeze to apply past');
    return { violations: [...violations] };
  }
  const { judgement, approvals } = judged;
  if (judgement.refusals.length > 0) {
    const hint = input.planFile
      ? ''
      : '; a change people must approve is applied from a saved plan: telform plan -o plan.json --policy …, telform approve plan.json by each approver, then telform apply plan.json';
    throw new TelformError(
      'approval_refused',
      `apply refused by the approval rules, nothing was sent: ${judgement.refusals.join('. ')}${hint}`,
      { details: { refusals: judgement.refusals } },
    );
  }
  if (input.emergency !== undefined && !judgement.emergency)
    throw new TelformError(
      'bad_option',
      '--emergency: every change is inside its window and not frozen, so no emergency applies; leave it out',
    );
  return { violations: waived(plan, violations, judgement), signoff: signoffOf(judgement, approvals) };
}

/** The violations left once changes approved by people are taken out (irreversible, cost, blast radius). */
function waived(plan: Plan, violations: readonly SafetyViolation[], judgement: ApprovalJudgement): SafetyViolation[] {
  const approved = new Set(
    judgement.changes
      .filter((change) => change.rules.some((verdict) => verdict.rule.needs && verdict.missing === 0))
      .map((change) => change.address),
  );
  const allApproved = (test: (change: Plan['changes'][number]) => boolean) =>
    plan.changes.filter(test).every((change) => approved.has(change.address));
  return violations.filter((violation) => {
    switch (violation.code) {
      case 'irreversible':
        return !(violation.address && approved.has(violation.address));
      case 'cost':
        return !allApproved((change) => change.flags.billable_usd > 0);
      case 'blast_radius':
        return !allApproved((change) => (change.blast?.numbers ?? 0) > 0);
      default:
        return true;
    }
  });
}

function signoffOf(judgement: ApprovalJudgement, approvals: readonly VerifiedApproval[]): HistorySignoff {
  const used = new Set<VerifiedApproval>();
  const changes = judgement.changes.map((change) => ({
    address: change.address,
    rules: change.rules.map((verdict) => {
      for (const approval of verdict.approvers) used.add(approval);
      return {
        rule: verdict.rule.id,
        needs: verdict.rule.needs ? `${verdict.rule.needs.count} of ${verdict.rule.needs.role}` : 'none',
        approvers: verdict.approvers.map((approval) => ({
          person: approval.person.name,
          roles: [...approval.person.roles],
          key: approval.key,
        })),
      };
    }),
  }));
  if (judgement.emergency) used.add(judgement.emergency.by);
  return {
    digest: judgement.digest,
    changes,
    approvals: approvals.filter((approval) => used.has(approval)).map((approval) => ({ ...approval.approval })),
    ...(judgement.emergency
      ? {
          emergency: {
            reason: judgement.emergency.reason,
            by: judgement.emergency.by.person.name,
            role: judgement.emergency.role,
          },
        }
      : {}),
  };
}

/** The judgement as the plan's table (`approval_rules`): what each rule needs and what is missing. */
export function approvalTableOf(judgement: ApprovalJudgement): ApprovalTable {
  return {
    digest: judgement.digest,
    changes: judgement.changes.map((change) => ({
      address: change.address,
      rules: change.rules.map((verdict) => ({
        rule: verdict.rule.id,
        needs: verdict.rule.needs ? `${verdict.rule.needs.count} of ${verdict.rule.needs.role}` : 'none',
        ttl: verdict.rule.ttlText,
        windows: verdict.rule.windows.map((window) => window.text),
        approved_by: verdict.approvers.map((approval) => approval.person.name),
        missing: verdict.missing,
        expired: verdict.expired.map((approval) => approval.person.name),
        window_open: verdict.inWindow,
      })),
      frozen: change.frozen.map((freeze) => freeze.reason),
    })),
    refusals: judgement.refusals,
  };
}
