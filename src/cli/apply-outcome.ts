// What `apply -f` and `revert` print once their operation returns, and the terminal prompt both ask:
// one rendering of an apply's outcome, with each command's own words.
import { createInterface } from 'node:readline/promises';
import { renderApplySummary, renderNotApplied } from '../render/apply.js';
import { recordedLine, type ApplyRunOutcome } from '../run/apply.js';
import { ExitCode } from '../run/exit-codes.js';
import { refusalError, refusalLines } from '../run/safety.js';
import { TelformError } from '../util/errors.js';
import type { CommandIo } from './io.js';

/** The plan an apply ran (the renderer's view of it: the CLI does not import the engine). */
type Plan = Parameters<typeof renderApplySummary>[0];

/** A command's own words around the shared outcome. */
interface OutcomeWords {
  /** stdout when the plan held nothing to send. */
  nothing: string;
  /** stderr when the prompt was declined. */
  cancelled: string;
  /** stderr after the summary of an apply that ran, if anything (the history record it made). */
  recorded(seq: number): string | undefined;
  /** Clear the live progress line before the summary. */
  clearLine: boolean;
}

/** Prints an apply's outcome and returns the exit code; a refusal is thrown as the gates' error. */
export function renderApplyOutcome(plan: Plan, outcome: ApplyRunOutcome, io: CommandIo, words: OutcomeWords): number {
  switch (outcome.status) {
    case 'refused':
      for (const line of refusalLines(outcome.violations)) io.stderr(line);
      throw refusalError(outcome.violations);
    case 'no_changes':
      for (const recorded of outcome.recorded) io.stderr(recordedLine(recorded));
      io.stdout(`${words.nothing}\n`);
      return ExitCode.ok;
    case 'cancelled':
      io.stderr(words.cancelled);
      return ExitCode.error;
    case 'applied': {
      if (words.clearLine) process.stderr.write('\r\u001b[K');
      io.stdout(`${renderApplySummary(plan, outcome.result)}\n`);
      for (const line of renderNotApplied(plan, outcome.result)) io.stderr(line);
      const recorded = words.recorded(outcome.record.seq);
      if (recorded !== undefined) io.stderr(recorded);
      return outcome.failed ? ExitCode.error : ExitCode.ok;
    }
    default: {
      const never: never = outcome;
      throw new Error(`unhandled apply outcome ${String(never)}`);
    }
  }
}

/**
 * Asks on the terminal; only "yes" approves. Off a terminal nothing can answer, so the run is refused
 * with `refusal`, the sentence saying what was not done and how to approve instead.
 */
export async function approveOnTerminal(io: CommandIo, question: string, refusal: string): Promise<boolean> {
  if (!io.isTty || !process.stdin.isTTY) throw new TelformError('not_approved', refusal);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(`${question} Only "yes" is accepted: `)).trim() === 'yes';
  } finally {
    prompt.close();
  }
}
