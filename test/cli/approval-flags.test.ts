import type { Command, Option } from 'commander';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { cleanEnv, runCli } from '../e2e/cli.js';
import { approvalFlagNames } from '../../src/cli/arguments/approvals.js';

// Every flag that approves something is declared once (cli/arguments/approvals.ts) with one checked
// parser: walked over every command of the program, each is that declaration, and each bad value is a
// one-line user error (exit 1) before anything runs. `revert --max-cost abc` once approved any cost.

/** Every command and subcommand, with the words that name it (`state claim`). */
function walk(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands.flatMap((sub) => {
    const named = [...path, sub.name()];
    return [{ path: named, command: sub }, ...walk(sub, named)];
  });
}

/** A flag that approves what a gate refuses: --allow-…, --max-…, --force-…, --over. */
const approvalLike = (option: Option) =>
  /^--(allow-|max-|force-|over$)/.test(option.long ?? '') && option.long !== '--allow-secret-files-outside';

describe('approval flags', () => {
  it('every command declares its approval flags from the one declaration', async () => {
    const program = await buildProgram([]);
    const found = walk(program).flatMap(({ path, command }) =>
      command.options.filter(approvalLike).map((option) => `${path.join(' ')} ${option.long}`),
    );
    expect(found.length).toBeGreaterThanOrEqual(14);
    for (const entry of found) expect(approvalFlagNames).toContain(entry.split(' ').at(-1));
  });

  it('a bad value of each, on every command that takes it, is a one-line user error with exit 1', async () => {
    const program = await buildProgram([]);
    const cases = walk(program).flatMap(({ path, command }) =>
      command.options
        .filter((option) => approvalLike(option) && (option.required || option.optional))
        .map((option) => ({ path, flag: option.long as string })),
    );
    expect(cases.map(({ path, flag }) => `${path.join(' ')} ${flag}`)).toEqual(
      expect.arrayContaining(['revert --max-cost', 'plan --max-cost', 'apply --max-numbers-affected']),
    );
    // The built CLI, as a user runs it: commander refuses the value before any command runs.
    const runs = await Promise.all(
      cases.map(async ({ path, flag }) => {
        const args = [...path, ...(path[0] === 'revert' ? ['1'] : []), flag, 'abc!'];
        const run = await runCli(args, { cwd: tmpdir(), env: cleanEnv() });
        return { path, flag, code: run.code, lines: run.stderr.trimEnd().split('\n') };
      }),
    );
    for (const { path, flag, code, lines } of runs) {
      expect({ path, flag, code }).toEqual({ path, flag, code: 1 });
      expect(lines[0]).toMatch(new RegExp(`^error: option '${flag} <[a-z]+>' argument 'abc!' is invalid\\. expected `));
      // One line: no usage dump, no stack, no internal error.
      expect(lines).toHaveLength(1);
    }
  });
});
