import type { ApplyEvent } from '../engine/apply.js';
import { renderApplyStatus, renderOutcome, renderWaiting } from '../render/apply.js';
import type { CommandIo } from './io.js';

export interface ProgressOutput {
  /** Finished lines (stderr): one, or several joined by newlines. */
  line(text: string): void;
  /** Redraws the live status line (a terminal only). */
  status?(text: string): void;
  clearStatus?(): void;
}

/**
 * Apply progress: one line per finished operation; on a terminal also a live status line of what
 * is running. Quiet runs print nothing here (the summary still comes).
 *
 * Off a terminal (a pipe, a CI log) the lines of one turn of the event loop are written together:
 * a write to a pipe blocks the process, and one per operation (thousands in a large apply) held up
 * the answers of the requests in flight. On a terminal each line is written at once, in order with
 * the status line.
 */
export class ApplyProgress {
  private readonly running = new Set<string>();
  private finished = 0;
  private pending: string[] = [];
  private flushing = false;

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
        this.emit(renderWaiting(event));
        break;
      case 'finished':
        this.running.delete(event.change.address);
        this.finished += 1;
        this.output.clearStatus?.();
        this.emit(renderOutcome(event.change, event.outcome, event.oldDeleted === true));
        break;
      default: {
        const never: never = event;
        return never;
      }
    }
    if (this.output.status && this.running.size > 0)
      this.output.status(renderApplyStatus(this.finished, this.total, [...this.running]));
  };

  /** Where the apply stands: operations finished, of how many, and those under way. */
  standing(): { finished: number; total: number; running: string[] } {
    return { finished: this.finished, total: this.total, running: [...this.running] };
  }

  /** The lines not written yet, taken (for a last synchronous write when the process is interrupted). */
  takePending(): string[] {
    const lines = this.pending;
    this.pending = [];
    return lines;
  }

  /** Writes the lines not written yet; the apply calls it before its summary. */
  flush(): void {
    this.flushing = false;
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n');
    this.pending = [];
    this.output.line(text);
  }

  private emit(line: string): void {
    this.pending.push(line);
    if (this.output.status) {
      this.flush();
      return;
    }
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }
}

/**
 * The progress of one account's apply (`apply`, `revert`): its lines on stderr unless quiet, and with
 * `liveView` (a terminal) the status line redrawn in place below them.
 */
export function applyProgress(
  steps: number,
  io: CommandIo,
  view: { quiet: boolean; liveView: boolean },
): ApplyProgress {
  return new ApplyProgress(steps, {
    line: (text) => {
      if (!view.quiet) io.stderr(text);
    },
    ...(view.liveView
      ? {
          status: (text: string) => process.stderr.write(`\r\u001b[K${text}`),
          clearStatus: () => process.stderr.write('\r\u001b[K'),
        }
      : {}),
  });
}
