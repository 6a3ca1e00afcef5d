// `telform approve plan.json` and `telform approvals plan.json` as operations (docs/approvals.md):
// a reviewer signs the saved plan's digest with their key, naming the rules they approve; anyone
// lists, per change, what each rule needs and what is still missing. Neither reads the account or
// needs its token: a reviewer holds a signing key, not the account's credentials.
import type { ApprovalTable, Plan } from '../engine/plan-types.js';
import { loadApprovalPolicy } from '../manifest/approval-policy.js';
import type { Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import {
  approvalDigest,
  approvalsFolderOf,
  signApproval,
  writeApproval,
  type ApprovalPayload,
} from './approval-files.js';
import { approvalTableOf, judgePlanApprovals } from './approval-gate.js';
import { coveringRules } from './approval-judge.js';
import { readSavedPlan } from './saved-plan.js';

interface ApproveRequest {
  planFile: string;
  policies: readonly string[];
  /** `--as NAME`: the person of the people file who signs. */
  person: string;
  /** `--key FILE`: their private key (or the .pub's private half for ssh-keygen). */
  keyFile: string;
  /** `--rule ID` (repeatable): approve only these; default every rule of the plan needing a role the person holds. */
  rules: readonly string[];
  /** `--emergency REASON`: signed into the approval, for `apply --emergency REASON`. */
  emergency?: string;
  approvalsFolder?: string;
  clock: Clock;
  cwd: string;
}

interface ApproveOutcome {
  file: string;
  digest: string;
  rules: string[];
  /** The table with this approval counted. */
  table: ApprovalTable | undefined;
}

export async function approvePlan(request: ApproveRequest): Promise<ApproveOutcome> {
  const plan = await readSavedPlan(request.planFile);
  const policy = await loadApprovalPolicy(request.policies, request.cwd);
  const person = policy.people?.people.find((candidate) => candidate.name === request.person);
  if (!person)
    throw new TelformError(
      'bad_option',
      `--as ${request.person}: not in the people file${policy.people ? ` ${policy.people.file} (people: ${policy.people.people.map((item) => item.name).join(', ')})` : ' (the policy names none: people: people.yaml)'}`,
    );
  const covering = [...new Set([...coveringRules(plan, policy).values()].flat())];
  const known = new Set(covering.map((rule) => rule.id));
  const unknown = request.rules.filter((rule) => !known.has(rule));
  if (unknown.length > 0)
    throw new TelformError(
      'bad_option',
      `--rule ${unknown.join(', ')}: no such rule covers a change of ${request.planFile} (rules here: ${[...known].join(', ') || 'none'})`,
    );
  const rules =
    request.rules.length > 0
      ? [...request.rules]
      : covering.filter((rule) => rule.needs && person.roles.includes(rule.needs.role)).map((rule) => rule.id);
  if (rules.length === 0 && request.emergency === undefined)
    throw new TelformError(
      'bad_option',
      `${request.person} holds no role a rule of ${request.planFile} needs (${person.roles.join(', ') || 'no roles'}); nothing to approve`,
    );
  const digest = approvalDigest(plan);
  const payload: ApprovalPayload = {
    format: 'telform-approval/v1',
    plan_digest: digest,
    account: plan.account,
    person: person.name,
    rules: rules.sort(),
    signed_at: new Date(request.clock.now()).toISOString(),
    ...(request.emergency === undefined ? {} : { emergency: request.emergency }),
  };
  const folder = request.approvalsFolder ?? approvalsFolderOf(request.planFile);
  const file = await writeApproval(folder, await signApproval(payload, request.keyFile, request.cwd), request.cwd);
  const judged = await judgePlanApprovals(plan, {
    policies: request.policies,
    planFile: request.planFile,
    approvalsFolder: folder,
    clock: request.clock,
    cwd: request.cwd,
  });
  return { file, digest, rules: payload.rules, table: judged ? approvalTableOf(judged.judgement) : undefined };
}

/** `telform approvals plan.json`: the table now; undefined when the policies hold no approval rule. */
export async function listApprovals(request: {
  planFile: string;
  policies: readonly string[];
  approvalsFolder?: string;
  clock: Clock;
  cwd: string;
}): Promise<{ plan: Plan; table: ApprovalTable | undefined }> {
  const plan = await readSavedPlan(request.planFile);
  const judged = await judgePlanApprovals(plan, {
    policies: request.policies,
    planFile: request.planFile,
    ...(request.approvalsFolder === undefined ? {} : { approvalsFolder: request.approvalsFolder }),
    clock: request.clock,
    cwd: request.cwd,
  });
  return { plan, table: judged ? approvalTableOf(judged.judgement) : undefined };
}
