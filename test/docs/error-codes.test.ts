import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/run/exit-codes.js';
import { errorCodes } from '../../src/util/errors.js';

/** The rows of the markdown tables in `text`: the first cell of each, backticks dropped. */
function firstCells(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !/^\|\s*Code\s*\|/.test(line) && !line.startsWith('|---'))
    .map((line) => (line.split('|')[1] ?? '').trim().replace(/`/g, ''));
}

/** The lines of `text` from the heading `title` to the next heading of any level. */
function section(text: string, title: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(title);
  if (start < 0) throw new Error(`no "${title}" heading`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('#'));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

describe('the documented codes', () => {
  it('docs/errors.md lists exactly the error codes of src/util/errors.ts, each once', async () => {
    const documented = firstCells(await readFile('docs/errors.md', 'utf8'));
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(errorCodes).sort());
  });

  it('the exit-code table of docs/commands.md has exactly the exit codes of src/run/exit-codes.ts', async () => {
    const table = firstCells(section(await readFile('docs/commands.md', 'utf8'), '## Exit codes'));
    expect(table.map(Number)).toEqual([...new Set(Object.values(ExitCode))].sort((a, b) => a - b));
  });
});
