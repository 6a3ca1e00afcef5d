// The rehearsal's report (run/rehearse.ts builds it, rehearsal.ts prints it): what the API of a replica of
// the account did with the plan.
import type { Plan } from '../engine/plan-types.js';

export interface RehearsalRefusal {
  address: string;
  action: string;
  /** The API's message (or telform's reason when it did not send the change). */
  message: string;
}

export interface Rehearsal {
  /** The plan as the replica saw it (the same changes as the real plan when nothing moved between the reads). */
  plan: Plan;
  /** Changes the replica's API refused, in plan order. */
  refused: RehearsalRefusal[];
  /** Changes that waited on the registry beyond the rehearsal's wait. */
  pending: string[];
  /** Requests the rehearsed apply sent to the replica, and the plan's estimate of them. */
  requests: { sent: number; estimated: number };
  /** What the plan after the rehearsal still wants (it should want nothing): addresses with their action. */
  after: Array<{ address: string; action: string }>;
  /** The traffic the rehearsed changes broke, from the plan's blast radius (numbers, trunks, applications). */
  traffic: NonNullable<Plan['summary']['blast_radius']> | undefined;
  /** When the snapshot the replica holds was taken. */
  takenAt: string;
  clean: boolean;
}
