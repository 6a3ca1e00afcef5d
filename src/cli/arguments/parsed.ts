// What a command's flag rules give back: the typed input of its operation, or every problem the
// flags have (not only the first), each a sentence that names the flags involved. The rules are pure
// functions of the parsed option values (and of which flags the command line gave), so a test
// checks them without a process; the command refuses the problems in one `bad_option` error. A flag
// combination that is well formed but not allowed to run (an apply nobody approved) is a refusal with
// its own code, said only when the flags have no other problem.
import { TelformError, type ErrorCode } from '../../util/errors.js';

export type Parsed<T> =
  { input: T; problems?: undefined; code?: undefined } | { input?: undefined; problems: string[]; code?: ErrorCode };

/** Collects problems; `check` adds one when its condition holds. */
export class Problems {
  readonly list: string[] = [];
  private refusal: { code: ErrorCode; problem: string } | undefined;

  check(condition: boolean, problem: string | (() => string)): void {
    if (condition) this.list.push(typeof problem === 'string' ? problem : problem());
  }

  /** Runs a parser that refuses by throwing a user error, keeping its sentence as a problem. */
  attempt<T>(parse: () => T): T | undefined {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof TelformError)) throw error;
      this.list.push(error.message);
      return undefined;
    }
  }

  /** A refusal under its own error code (the first one holds), reported when no other problem is. */
  refuse(condition: boolean, code: ErrorCode, problem: string): void {
    if (condition && this.refusal === undefined) this.refusal = { code, problem };
  }

  result<T>(input: () => T): Parsed<T> {
    if (this.list.length > 0) return { problems: [...this.list] };
    if (this.refusal) return { problems: [this.refusal.problem], code: this.refusal.code };
    return { input: input() };
  }
}

/** The input, or the problems refused as one user error (one sentence per problem, joined). */
export function inputOrRefuse<T>(parsed: Parsed<T>): T {
  if (parsed.problems !== undefined) throw new TelformError(parsed.code ?? 'bad_option', parsed.problems.join('; '));
  return parsed.input;
}

/** The option attributes a command line gave explicitly (not defaults or the environment). */
export type GivenFlags = ReadonlySet<string>;
