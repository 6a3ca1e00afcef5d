import type { ApplyEvent } from '../engine/apply.js';
import { renderApplyStatus, renderOutcome, renderWaiting } from '../render/apply.js';

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
        this.output.line(renderWaiting(event));
        break;
      case 'finished':
        this.running.delete(event.change.address);
        this.finished += 1;
        this.output.clearStatus?.();
        this.output.line(renderOutcome(event.change, event.outcome, event.oldDeleted === true));
        break;
      default: {
        const never: never = event;
        return never;
      }
    }
    if (this.output.status && this.running.size > 0) this.output.status(renderApplyStatus(this.finished, this.total, [...this.running]));
  };
}
