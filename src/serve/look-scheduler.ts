// What the service asks of whatever decides when each account is looked at: the in-process
// `Scheduler` (one process watches every account) or the `QueueScheduler` (replicas share the
// accounts through a PostgreSQL job queue). The service neither knows nor cares which.
import type { EventCause } from './model.js';

/** What a look asks to happen next: `apply` when `--apply safe` found a plan to heal and left it to its own job. */
export type LookOutcome = 'apply' | undefined;

/** `check`: a check, and with `--apply safe` the apply right after; `check-only`: leave an apply to its own job; `apply`: apply, then check. */
export type LookStep = 'check' | 'check-only' | 'apply';

/** Looks at one account; must not throw (a failure is that look's result). */
export type LookWork = (name: string, cause: EventCause, step: LookStep) => Promise<LookOutcome>;

export interface LookScheduler {
  start(): void | Promise<void>;
  /** Asks for a look at `name` soon (a callback's hint, an apply's confirmation); false when it is not watched or stopping. */
  trigger(name: string, cause: EventCause): boolean;
  /** Accounts being looked at now by this process. */
  active(): string[];
  /** Starts nothing more; resolves when the looks under way have ended. */
  stop(): Promise<void>;
  /**
   * The drain ran out of time: what is still under way is being abandoned (its requests abort), and
   * is handed back to be done again elsewhere rather than recorded as done.
   */
  handBack?(): void;
}

/** Makes the scheduler of a service: `work` looks at an account, `onScheduled` hears when one is next due. */
export type LookSchedulerFactory = (
  names: readonly string[],
  work: LookWork,
  onScheduled: (name: string, dueAt: number) => void,
) => LookScheduler;
