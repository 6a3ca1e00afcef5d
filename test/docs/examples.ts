// Reads the examples of a markdown page (README.md, docs/*.md) in the form the docs test runs: a fenced
// block of `$ command` lines each followed by its output, a block written to a file, or a block marked
// not runnable with the reason. The format is described in docs/contributing.md ("Docs that run").

/** One `$ command` of an example and the output shown under it. */
export interface ShownCommand {
  /** 1-based line of the `$` in the page. */
  line: number;
  /** The command as the shell gets it (continuation lines joined with their newlines). */
  command: string;
  /** Runs in the background (`&` at the end): its output is what it prints before the next command. */
  background: boolean;
  /** The output lines shown, each with its page line; `[exit N]` is taken out into `exit`. */
  output: { line: number; text: string }[];
  /** The exit status shown (`[exit N]` as the last output line), 0 when none is shown. */
  exit: number;
}

export type PageStep =
  | { kind: 'commands'; line: number; commands: ShownCommand[] }
  | { kind: 'file'; line: number; path: string; content: string }
  | { kind: 'skip'; line: number; reason: string };

export interface DocPage {
  steps: PageStep[];
  /** `<!-- doc-test: port N -->`: the literal port N stands for a free port the runner picks. */
  ports: number[];
  /** Mistakes in the page's examples, each `line: what`. */
  problems: string[];
}

const directivePattern = /^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$/;
/** A fence, also indented (a block inside a list item): its indent, its marker and its language. */
const fencePattern = /^( *)(`{3,}|~{3,})\s*([\w-]*)/;
/** Languages whose blocks are shell: each must be an example or say why it is not run. */
const shellLanguages = new Set(['sh', 'shell', 'bash', 'console']);
/** Languages whose blocks may be examples (`$` lines); others (yaml, json, markdown…) never are. */
const exampleLanguages = new Set([...shellLanguages, '', 'text']);

/** Parses one page's examples; `problems` lists every mistake in their form, each with its line. */
export function parsePage(text: string): DocPage {
  const lines = text.split('\n');
  const steps: PageStep[] = [];
  const ports: number[] = [];
  const problems: string[] = [];
  let pending: { line: number; words: string } | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const directive = directivePattern.exec(line);
    if (directive) {
      const words = directive[1] ?? '';
      const port = /^port (\d+)$/.exec(words);
      if (port) ports.push(Number(port[1]));
      else if (/^(skip|file)\b/.test(words)) pending = { line: index + 1, words };
      else problems.push(`${index + 1}: unknown doc-test directive "${words}" (skip REASON, file PATH, port N)`);
      continue;
    }
    const fence = fencePattern.exec(line);
    if (!fence) {
      if (pending && line.trim() !== '') {
        problems.push(`${pending.line}: "doc-test: ${pending.words}" is not right above a fenced block`);
        pending = undefined;
      }
      continue;
    }
    const indent = fence[1] ?? '';
    const marker = fence[2] ?? '```';
    const language = (fence[3] ?? '').toLowerCase();
    const start = index + 1;
    const body: string[] = [];
    index += 1;
    while (index < lines.length && !(lines[index] ?? '').trimStart().startsWith(marker)) {
      const text = lines[index++] ?? '';
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    const directiveHere = pending;
    pending = undefined;
    if (directiveHere?.words.startsWith('skip')) {
      const reason = directiveHere.words.replace(/^skip\s*[:—-]?\s*/, '');
      if (reason === '') problems.push(`${directiveHere.line}: "doc-test: skip" needs the reason the block is not run`);
      steps.push({ kind: 'skip', line: start, reason });
      continue;
    }
    if (directiveHere?.words.startsWith('file')) {
      const path = directiveHere.words.replace(/^file\s*/, '');
      if (path === '' || path.startsWith('/') || path.split('/').includes('..'))
        problems.push(`${directiveHere.line}: "doc-test: file" needs a path inside the page's folder`);
      steps.push({ kind: 'file', line: start, path, content: body.length ? `${body.join('\n')}\n` : '' });
      continue;
    }
    const isExample = exampleLanguages.has(language) && body.some((text) => text.startsWith('$ '));
    if (isExample) steps.push(parseCommands(body, start, problems));
    else if (shellLanguages.has(language))
      problems.push(
        `${start}: a ${language} block without "$ " lines: write it as an example, or mark it <!-- doc-test: skip REASON -->`,
      );
  }
  if (pending) problems.push(`${pending.line}: "doc-test: ${pending.words}" is not right above a fenced block`);
  return { steps, ports, problems };
}

function parseCommands(body: string[], fenceLine: number, problems: string[]): PageStep {
  const commands: ShownCommand[] = [];
  let current: ShownCommand | undefined;
  for (let offset = 0; offset < body.length; offset += 1) {
    const text = body[offset] ?? '';
    const line = fenceLine + 1 + offset;
    if (text.startsWith('$ ')) {
      const parts = [text.slice(2)];
      while (/\\$/.test(parts[parts.length - 1] ?? '') && offset + 1 < body.length) {
        offset += 1;
        parts.push(body[offset] ?? '');
      }
      let command = parts.join('\n');
      // `&` at the end, or before a trailing comment.
      const background = /\s&(\s+#.*)?$/.test(command);
      if (background) command = command.replace(/\s*&(\s+#.*)?$/, '');
      current = { line, command, background, output: [], exit: 0 };
      commands.push(current);
      continue;
    }
    if (!current) {
      if (text.trim() !== '') problems.push(`${line}: output before the block's first "$ " line`);
      continue;
    }
    current.output.push({ line, text });
  }
  for (const command of commands) {
    while (command.output.length && (command.output[command.output.length - 1]?.text ?? '').trim() === '')
      command.output.pop();
    const last = command.output[command.output.length - 1];
    const exit = last && /^\[exit (\d+)\]$/.exec(last.text.trim());
    if (exit) {
      command.exit = Number(exit[1]);
      command.output.pop();
      while (command.output.length && (command.output[command.output.length - 1]?.text ?? '').trim() === '')
        command.output.pop();
    }
  }
  return { kind: 'commands', line: fenceLine, commands };
}

/** A shown line that stands for any number of lines (zero or more): the example is abridged there. */
export function isAbridged(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '…' || trimmed === '...';
}

function linePattern(shown: string): RegExp {
  const parts = shown.trimEnd().split('[..]');
  return new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?')}$`);
}

/** Where shown output and actual output first part: the shown line (or the end) and the actual line met there. */
export interface Mismatch {
  /** The page line of the shown line that did not match, or undefined when the shown output ended too soon. */
  line: number | undefined;
  expected: string;
  actual: string;
}

/**
 * Compares actual output with the shown lines: `[..]` in a line stands for any text, a line `…` for
 * any number of lines; trailing spaces and trailing empty lines are not compared. Returns the mismatch
 * the furthest into the shown output (the most useful one to report), or undefined when they agree.
 */
export function compareOutput(shown: ShownCommand['output'], actualText: string): Mismatch | undefined {
  const actual = actualText.split('\n').map((text) => text.trimEnd());
  while (actual.length && actual[actual.length - 1] === '') actual.pop();
  const patterns = shown.map((item) => (isAbridged(item.text) ? undefined : linePattern(item.text)));
  const seen = new Set<number>();
  // The shown line furthest in, and every actual line it was tried at (after a `…`, many).
  let furthest = { shownIndex: -1, tried: [] as number[] };
  const matches = (i: number, j: number): boolean => {
    const key = i * (actual.length + 1) + j;
    if (seen.has(key)) return false;
    seen.add(key);
    if (i > furthest.shownIndex) furthest = { shownIndex: i, tried: [j] };
    else if (i === furthest.shownIndex) furthest.tried.push(j);
    if (i === shown.length) return j === actual.length;
    const pattern = patterns[i];
    if (pattern === undefined) {
      for (let k = j; k <= actual.length; k += 1) if (matches(i + 1, k)) return true;
      return false;
    }
    return j < actual.length && pattern.test(actual[j] ?? '') && matches(i + 1, j + 1);
  };
  if (matches(0, 0)) return undefined;
  const { shownIndex, tried } = furthest;
  const at = shown[shownIndex];
  // Of the actual lines it was tried at, the one that agrees with it longest (the first of those):
  // the line a reader compares it with, not the line after the `…` before it.
  const agreement = (index: number) => commonPrefix(at?.text ?? '', actual[index] ?? '');
  const actualIndex = tried.reduce((best, index) => (agreement(index) > agreement(best) ? index : best), tried[0] ?? 0);
  return {
    line: at?.line,
    expected: at ? at.text : '(end of the shown output)',
    actual: actualIndex < actual.length ? (actual[actualIndex] ?? '') : '(end of the output)',
  };
}

function commonPrefix(a: string, b: string): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}
