import type { Command, Option } from 'commander';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { cleanEnv, runCli } from '../e2e/cli.js';
import { approvalFlagNames, parseApprovalFlagsFile } from '../../src/cli/arguments/approvals.js';

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

describe('the approval flags file (telform plan --approval-flags, the CI templates)', () => {
  // A value each approval flag `plan` takes accepts: a flag added without one here fails the test below.
  const samples: Record<string, string> = {
    '--allow-irreversible': 'Campaign/old-promo',
    '--max-cost': '15',
    '--max-numbers-affected': '3',
    '--allow-lint': 'all',
  };

  it('expresses every approval flag plan takes, each parsed by its one declaration', async () => {
    const program = await buildProgram([]);
    const plan = program.commands.find((command) => command.name() === 'plan') as Command;
    const flags = plan.options.filter(approvalLike);
    expect(flags.map((option) => option.long)).toEqual(
      expect.arrayContaining(['--max-numbers-affected', '--allow-lint', '--allow-empty', '--force-deletes']),
    );
    const lines = flags.map((option) =>
      option.required ? `${option.long} ${samples[option.long as string] ?? '?'}` : (option.long as string),
    );
    const parsed = parseApprovalFlagsFile(
      'telform.approvals',
      `# reviewed\n\n${lines.join('\n')}\n--allow-irreversible all\n`,
    );
    expect(parsed).toEqual({
      values: {
        allowIrreversible: ['Campaign/old-promo', 'all'],
        maxCost: 15,
        maxNumbersAffected: 3,
        allowLint: ['all'],
        forceDeletes: true,
        allowEmpty: true,
      },
      problems: [],
    });
  });

  it('names the line of anything that is not one approval flag, or a bad value', () => {
    const { problems } = parseApprovalFlagsFile(
      'telform.approvals',
      '--max-cost 15\n--endpoint https://example.com\n--max-cost abc\n--force-deletes yes\n--over 3\n',
    );
    expect(problems).toEqual([
      'telform.approvals:2: "--endpoint https://example.com" is not one approval flag (--allow-irreversible <address>, --max-cost <usd>, --max-numbers-affected <n>, --allow-lint <rule>, --force-deletes, --allow-empty)',
      expect.stringMatching(/^telform\.approvals:3: --max-cost "abc": expected /),
      'telform.approvals:4: "--force-deletes yes" is not one approval flag (--allow-irreversible <address>, --max-cost <usd>, --max-numbers-affected <n>, --allow-lint <rule>, --force-deletes, --allow-empty)',
      'telform.approvals:5: "--over 3" is not one approval flag (--allow-irreversible <address>, --max-cost <usd>, --max-numbers-affected <n>, --allow-lint <rule>, --force-deletes, --allow-empty)',
    ]);
  });

  it('is read by telform plan: a bad line is a one-line user error naming it (exit 1)', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-approval-flags-'));
    try {
      await writeFile(path.join(folder, 'telform.approvals'), '--max-cost 15\n--endpoint https://example.com\n');
      const run = await runCli(['plan', '-f', 'manifests', '--approval-flags', 'telform.approvals'], {
        cwd: folder,
        env: cleanEnv(),
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({
        code: 1,
        stderr:
          'error: --approval-flags telform.approvals:2: "--endpoint https://example.com" is not one approval flag (--allow-irreversible <address>, --max-cost <usd>, --max-numbers-affected <n>, --allow-lint <rule>, --force-deletes, --allow-empty)\n',
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
