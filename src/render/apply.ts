import { liveIdOf } from '../engine/change-fields.js';
import type { ApplyEvent, ApplyResult, ChangeOutcome } from '../engine/apply.js';
import type { Plan, PlannedChange } from '../engine/plan-types.js';
import { printable, printableJson } from '../util/printable.js';
import type { AccountOutcome } from './accounts-report.js';

/**
 * Apply results as text: one line per finished operation (the progress on stderr), the waiting
 * and status lines of a running apply, the closing summary (stdout) and what was not applied.
 */

const pastTense: Record<PlannedChange['action'], string> = {
  create: 'created',
  update: 'updated',
  replace: 'replaced',
  delete: 'deleted',
  adopt: 'adopted',
  wait: 'created',
  blocked: 'blocked',
  noop: 'unchanged',
};

/** A `wait` on an object that exists (a number waiting for its campaign) ends in an update, else in a create. */
function pastTenseOf(change: PlannedChange): string {
  return change.action === 'wait' && change.id !== undefined ? 'updated' : pastTense[change.action];
}

/**
 * One finished operation. A create-before-delete replace finishes twice: the new object is
 * created, then the old one (`oldDeleted`) is deleted; each line says which.
 */
export function renderOutcome(change: PlannedChange, outcome: ChangeOutcome, oldDeleted = false): string {
  switch (outcome.status) {
    case 'done': {
      if (oldDeleted)
        return `deleted  ${printable(change.address)} (the replaced one, id ${printable(liveIdOf(change) ?? '?')})`;
      const twoSteps = change.action === 'replace' && change.replace_strategy === 'create_before_delete';
      const verb = twoSteps ? 'created' : pastTenseOf(change);
      return `${verb.padEnd(8)} ${printable(change.address)}${outcome.id ? ` (id ${printable(outcome.id)})` : ''}${twoSteps ? `, replacing id ${printable(change.id ?? '?')}` : ''}`;
    }
    case 'failed':
      return `FAILED   ${printable(change.address)}: ${printable(outcome.error)}`;
    case 'skipped':
      return `skipped  ${printable(change.address)}: ${printable(outcome.reason)}`;
    case 'pending':
      return `pending  ${printable(change.address)}: ${printable(outcome.reason)}`;
    case 'blocked':
      return `blocked  ${printable(change.address)}: ${printable(outcome.reason)}`;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** A change waiting on the registry (`--wait`). */
export function renderWaiting(event: Extract<ApplyEvent, { type: 'waiting' }>): string {
  return `waiting  ${printable(event.change.address)}: ${printable(event.on)} is ${printable(event.status)} (${Math.round(event.elapsedMs / 1000)}s)`;
}

/** The live status line of a running apply (a terminal only). */
export function renderApplyStatus(finished: number, total: number, running: readonly string[]): string {
  const names = printable(running.slice(0, 3).join(', '));
  return `applying: ${finished}/${total} done, running ${names}${running.length > 3 ? ` and ${running.length - 3} more` : ''}`;
}

export function renderApplySummary(plan: Plan, result: ApplyResult): string {
  const counts = { created: 0, updated: 0, replaced: 0, deleted: 0, adopted: 0 };
  for (const change of plan.changes) {
    if (result.outcomes.get(change.address)?.status !== 'done') continue;
    const done = pastTenseOf(change);
    if (done === 'created') counts.created += 1;
    else if (done === 'updated') counts.updated += 1;
    else if (change.action === 'replace') counts.replaced += 1;
    else if (change.action === 'delete') counts.deleted += 1;
    else if (change.action === 'adopt') counts.adopted += 1;
  }
  return (
    `Apply complete: ${counts.created} created, ${counts.updated} updated, ${counts.replaced} replaced, ${counts.deleted} deleted, ${counts.adopted} adopted. ` +
    `Pending: ${result.pending}. Blocked: ${result.blocked}. Failed: ${result.failed}.`
  );
}

/** The changes that neither finished nor wait for a later apply, one line each; empty when none. */
export function renderNotApplied(plan: Plan, result: ApplyResult): string[] {
  const problems = plan.changes.filter((change) => {
    const outcome = result.outcomes.get(change.address);
    return outcome && outcome.status !== 'done' && outcome.status !== 'pending';
  });
  if (problems.length === 0) return [];
  return [
    'Not applied:',
    ...problems.map(
      (change) =>
        `  ${renderOutcome(change, result.outcomes.get(change.address) ?? { status: 'skipped', reason: 'unknown' })}`,
    ),
  ];
}

/** One account's apply as text: its summary line, then what was not applied, one line each. */
export function renderAppliedText(applied: AccountOutcome): string {
  return `${printable(applied.summary)}\n${(applied.problems ?? []).map((line) => `  ${printable(line)}\n`).join('')}`;
}

/** One account's apply as JSON: its entry of the accounts report, as `apply --accounts` would list it. */
export function renderAppliedJson(applied: AccountOutcome): string {
  return `${printableJson(JSON.stringify(applied, null, 2))}\n`;
}
