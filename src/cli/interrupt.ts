// SIGINT and SIGTERM during an apply: the process still ends by the signal (a shell sees 130 or 143,
// and nothing more is sent), after one line that says what was interrupted and that the next run
// settles it. Every operation journals its intent before its request, so whatever was under way is
// found by the next plan or apply, which reads those objects back before planning anything.
import { writeSync } from 'node:fs';
import type { ApplyProgress } from './progress.js';

const signals = ['SIGINT', 'SIGTERM'] as const;

/** What to say when interrupted: lines not written yet, and where the run stood (after "interrupted by SIGINT: "). */
export interface Standing {
  pending: string[];
  text: string;
}

/** The standing of one account's apply, from its progress. */
export function applyStanding(progress: ApplyProgress): () => Standing {
  return () => {
    const { finished, total, running } = progress.standing();
    return {
      pending: progress.takePending(),
      text: `${finished} of ${total} operations finished, ${running.length} under way; the state's journal records what was under way, and the next telform plan or apply settles it`,
    };
  };
}

/**
 * The standing of an apply that starts by claiming its account: while the claim (the first write)
 * is under way, that is what was interrupted; after it, `then`.
 */
export function claimStanding(
  claim: { claiming: boolean; account: string; state: string },
  then: () => Standing,
): () => Standing {
  return () =>
    claim.claiming
      ? {
          pending: [],
          text: `it was claiming account ${claim.account} for the state ${claim.state} (its ownership marker, the first write); nothing else was sent, and the next telform apply of this state finishes the claim`,
        }
      : then();
}

/** Runs `apply` with the handlers in place, and removes them when it ends. `what` names the command (`telform apply`). */
export async function interruptible<T>(what: string, standing: () => Standing, apply: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const name of signals) process.off(name, onSignal);
    const { pending, text } = standing();
    // Synchronous: the process ends right after, and a write to a pipe could still be queued.
    try {
      writeSync(
        2,
        `${process.stderr.isTTY ? '\r\u001b[K' : ''}${[...pending, `${what} interrupted by ${signal}: ${text}`].join('\n')}\n`,
      );
    } catch {
      // stderr closed: nobody to tell.
    }
    process.kill(process.pid, signal);
  };
  for (const name of signals) process.on(name, onSignal);
  try {
    return await apply();
  } finally {
    for (const name of signals) process.off(name, onSignal);
  }
}
