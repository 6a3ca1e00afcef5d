import { describe, expect, it } from 'vitest';
import { compareOutput, parsePage } from './examples.js';
import { runPage } from './run-page.js';

const fence = '```';

describe('parsePage', () => {
  it('reads commands, their output, exit statuses, files and skipped blocks with their lines', () => {
    const page = parsePage(
      [
        '# A page',
        '<!-- doc-test: port 8080 -->',
        '<!-- doc-test: file manifests/a.yaml -->',
        `${fence}yaml`,
        'kind: Trunk',
        fence,
        `${fence}text`,
        '$ telform emulator --port 8080 &   # shared by the examples below',
        'listening on http://127.0.0.1:8080',
        '$ telform validate \\',
        '    -f manifests/',
        'error: one',
        '',
        '[exit 1]',
        '',
        fence,
        '<!-- doc-test: skip it needs a real account -->',
        `${fence}sh`,
        'telform apply',
        fence,
      ].join('\n'),
    );
    expect(page.problems).toEqual([]);
    expect(page.ports).toEqual([8080]);
    expect(page.steps).toEqual([
      { kind: 'file', line: 4, path: 'manifests/a.yaml', content: 'kind: Trunk\n' },
      {
        kind: 'commands',
        line: 7,
        commands: [
          {
            line: 8,
            command: 'telform emulator --port 8080',
            background: true,
            output: [{ line: 9, text: 'listening on http://127.0.0.1:8080' }],
            exit: 0,
          },
          {
            line: 10,
            command: 'telform validate \\\n    -f manifests/',
            background: false,
            output: [{ line: 12, text: 'error: one' }],
            exit: 1,
          },
        ],
      },
      { kind: 'skip', line: 18, reason: 'it needs a real account' },
    ]);
  });

  it('names each mistake in the form with its line', () => {
    const page = parsePage(
      [
        `${fence}sh`,
        'telform plan',
        fence,
        '<!-- doc-test: skip -->',
        `${fence}text`,
        '$ true',
        fence,
        '<!-- doc-test: skipping -->',
        '<!-- doc-test: file -->',
        'text',
        `${fence}text`,
        'before',
        '$ true',
        fence,
      ].join('\n'),
    );
    expect(page.problems).toEqual([
      '1: a sh block without "$ " lines: write it as an example, or mark it <!-- doc-test: skip REASON -->',
      '4: "doc-test: skip" needs the reason the block is not run',
      '8: unknown doc-test directive "skipping" (skip REASON, file PATH, port N)',
      '9: "doc-test: file" is not right above a fenced block',
      '12: output before the block\'s first "$ " line',
    ]);
  });
});

describe('compareOutput', () => {
  const shown = (...texts: string[]) => texts.map((text, index) => ({ line: 10 + index, text }));

  it('takes [..] for any text in a line and a line … for any lines', () => {
    expect(
      compareOutput(
        shown('created Trunk/a (id [..])', '…', 'Apply complete.'),
        'created Trunk/a (id 42)\nx\ny\nApply complete.\n',
      ),
    ).toBe(undefined);
    expect(compareOutput(shown('a', '…', 'b'), 'a\nb')).toBe(undefined);
    expect(compareOutput(shown('a  '), 'a\n\n')).toBe(undefined);
  });

  it('names the shown line where they part, and what came instead', () => {
    expect(compareOutput(shown('a', 'Plan: 1 to create'), 'a\nPlan: 2 to create')).toEqual({
      line: 11,
      expected: 'Plan: 1 to create',
      actual: 'Plan: 2 to create',
    });
    expect(compareOutput(shown('a', '…', 'c'), 'a\nb')).toEqual({ line: 12, expected: 'c', actual: 'b' });
    // After a `…`, the actual line most like the shown one, not the line the `…` began at.
    expect(
      compareOutput(
        shown('a', '…', 'Plan: 0 to create, 2 to change', 'end'),
        'a\n\nx\nPlan: 0 to create, 2 to update\nend',
      ),
    ).toEqual({ line: 12, expected: 'Plan: 0 to create, 2 to change', actual: 'Plan: 0 to create, 2 to update' });
    expect(compareOutput(shown('a'), 'a\nmore')).toEqual({
      line: undefined,
      expected: '(end of the shown output)',
      actual: 'more',
    });
    expect(compareOutput(shown('a', 'b'), 'a')).toEqual({ line: 11, expected: 'b', actual: '(end of the output)' });
  });
});

describe('runPage', () => {
  it('runs the commands in one shell in page order and reports each difference at its page line', async () => {
    const page = parsePage(
      [
        '<!-- doc-test: file notes.txt -->',
        `${fence}text`,
        'first',
        fence,
        `${fence}sh`,
        '$ export WORD=second',
        '$ cat notes.txt; echo "$WORD"',
        'first',
        'second',
        '$ echo third',
        'thrid',
        '$ false',
        '$ exit_two() { return 2; }; exit_two',
        '[exit 2]',
        fence,
      ].join('\n'),
    );
    const failures = await runPage(page, { name: 'docs/page.md', withExamples: false });
    expect(failures).toEqual([
      'docs/page.md:11: output of `echo third` (line 10) differs\n  expected: thrid\n  actual:   third\n  the whole output:\n    | third',
      'docs/page.md:12: `false` exited 1, the page shows 0 (an [exit N] line under its output shows another)\n  the whole output:\n    | ',
    ]);
  });

  it('runs a command ending in & in the background, waits for its shown lines, and stops it at the end', async () => {
    const page = parsePage(
      [
        '<!-- doc-test: port 8080 -->',
        `${fence}sh`,
        "$ node -e \"require('http').createServer((q, s) => s.end('up')).listen(8080, () => console.log('listening on 8080'))\" &",
        'listening on 8080',
        '$ curl -s http://127.0.0.1:8080/',
        'up',
        fence,
      ].join('\n'),
    );
    expect(await runPage(page, { name: 'page.md', withExamples: false })).toEqual([]);
  });
});
