import type { ApplyEvent, ChangeOutcome } from '../engine/apply.js';
import type { PlannedChange } from '../engine/plan-types.js';

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

export interface ProgressOutput {
  /** A finished line (stderr). */
  line(text: string): void;
  /** Redraws the live status line (a terminal only). */
  status?(text: string): void;
  clearStatus?(): void;
}

/**
 * Apply progress: one line per finished operation; on a terminal also a live status line of what
 * is running. Quiet runs print nothing here (the summary still comes).
 */
export class ApplyProgress {
  private readonly running = new Set<string>();
  private finished = 0;

  constructor(
    private readonly total: number,
    private readonly output: ProgressOutput,
  ) {}

  onEvent = (event: ApplyEvent): void => {
    switch (event.type) {
      case 'started':
        this.running.add(event.change.address);
        break;
      case 'waiting':
        this.output.clearStatus?.();
        this.output.line(`waiting  ${event.change.address}: ${event.on} is ${event.status} (${Math.round(event.elapsedMs / 1000)}s)`);
        break;
      case 'finished':
        this.running.delete(event.change.address);
        this.finished += 1;
        this.output.clearStatus?.();
        this.output.line(describeOutcome(event.change, event.outcome));
        break;
      default: {
        const never: never = event;
        return never;
      }
    }
    if (this.output.status && this.running.size > 0) {
      const names = [...this.running].slice(0, 3).join(', ');
      this.output.status(`applying: ${this.finished}/${this.total} done, running ${names}${this.running.size > 3 ? ` and ${this.running.size - 3} more` : ''}`);
    }
  };
}

export function describeOutcome(change: PlannedChange, outcome: ChangeOutcome): string {
  switch (outcome.status) {
    case 'done':
      return `${pastTense[change.action].padEnd(8)} ${change.address}${outcome.id ? ` (id ${outcome.id})` : ''}`;
    case 'failed':
      return `FAILED   ${change.address}: ${outcome.error}`;
    case 'skipped':
      return `skipped  ${change.address}: ${outcome.reason}`;
    case 'pending':
      return `pending  ${change.address}: ${outcome.reason}`;
    case 'blocked':
      return `blocked  ${change.address}: ${outcome.reason}`;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}
