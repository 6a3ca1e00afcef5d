// What the approval rules and drift acknowledgements leave to people when `serve --apply safe` would
// heal a plan (docs/approvals.md): serve heals only changes a `needs: none` rule covers, inside its
// windows and not frozen, and never drift a person acknowledged. Each reason names the rule (or the
// acknowledgement), and serve turns them into its `apply_held` event.
import type { Clock } from '../util/clock.js';
import { judgePlanApprovals } from './approval-gate.js';
import { driftFingerprint, readAcknowledgements } from './drift-acks.js';
import type { Reconciliation } from './reconcile.js';

const writing = new Set(['create', 'update', 'replace', 'delete']);

export async function approvalHolds(
  run: Reconciliation,
  input: { policies: readonly string[]; clock: Clock; cwd: string },
): Promise<string[]> {
  const reasons: string[] = [];
  const nowMs = input.clock.now();
  const acks = await readAcknowledgements(run.store);
  for (const change of run.plan.changes) {
    if (!change.drifted) continue;
    const fingerprint = driftFingerprint(change);
    const ack = [...acks]
      .reverse()
      .find(
        (item) =>
          item.ack.address === change.address &&
          item.ack.fingerprint === fingerprint &&
          Date.parse(item.ack.until) > nowMs,
      );
    if (ack)
      reasons.push(
        `${change.address}: its drift was acknowledged by ${ack.ack.person} until ${ack.ack.until} (${ack.ack.reason}), so serve leaves it`,
      );
  }
  const judged = await judgePlanApprovals(run.plan, { policies: input.policies, clock: input.clock, cwd: input.cwd });
  if (!judged) return reasons;
  const verdicts = new Map(judged.judgement.changes.map((change) => [change.address, change]));
  for (const change of run.plan.changes) {
    if (!writing.has(change.action)) continue;
    const verdict = verdicts.get(change.address);
    if (!verdict || verdict.rules.length === 0)
      reasons.push(`${change.address}: no approval rule lets serve heal it (only a rule with needs: none does)`);
    for (const rule of verdict?.rules ?? []) {
      if (rule.rule.needs)
        reasons.push(
          `${change.address}: rule ${rule.rule.id} gives it to people (needs ${rule.rule.needs.count} of ${rule.rule.needs.role}): apply a signed plan`,
        );
      else if (!rule.inWindow)
        reasons.push(
          `${change.address}: rule ${rule.rule.id} lets serve heal it only within ${rule.rule.windows.map((window) => window.text).join(' or ')}`,
        );
    }
    for (const freeze of verdict?.frozen ?? [])
      reasons.push(`${change.address}: the fleet is frozen (${freeze.reason})`);
  }
  return reasons;
}
