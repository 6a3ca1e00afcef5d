import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { buildProgram } from '../../src/cli/program.js';

/**
 * Every `telform …` command line of the CI templates, checked against the CLI's own commander
 * parser without running it: an option renamed or a command removed breaks the templates' test,
 * not a team's pipeline.
 */

/** A shell command in a template: where it is, and its words after variable substitution. */
export interface TemplateCommand {
  file: string;
  text: string;
  words: string[];
}

/** Shell text of a template: a workflow's `run`, GitLab's `script`, or a whole script file. */
export function shellTexts(file: string, content: string): string[] {
  if (!/\.ya?ml$/.test(file)) return [content];
  const texts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        // `args`: a Kubernetes container's arguments, here the script of `sh -c`.
        if (['run', 'script', 'before_script', 'after_script', 'args'].includes(key)) {
          for (const text of Array.isArray(value) ? value : [value]) if (typeof text === 'string') texts.push(text);
        } else walk(value);
      }
    }
  };
  // Kubernetes files hold several documents.
  for (const document of parseAllDocuments(content)) walk(document.toJS());
  return texts;
}

/** Sample values for the variables the templates pass, so each option gets a value of its kind. */
const samples: Record<string, string[]> = {
  // GitLab's `set --` lists: what plan and apply both take (plan's also holds --approval-flags FILE).
  '@': ['--policy', 'policies/approvals.yaml', '--approvals', 'telform-approvals'],
  'approvals[@]': ['--approval-flags', 'telform.approvals'],
  'signed[@]': ['--policy', 'policies/approvals.yaml', '--approvals', 'telform-approvals'],
  'rehearse[@]': ['--rehearse'],
  // A shard number, as in "${SHARD}/4".
  SHARD: ['1'],
  shard: ['1'],
};

/** `telform` (or `npx telform`) where a shell command starts: a line's start, or after `&&`, `||`, `;`, `$(`, `then`, `do`, `else`, `if`, `!`. */
const commandStart = /(?:^|&&|\|\||;|\$\(|\b(?:then|do|else|if)\b|!)\s*(?:npx\s+)?telform\s+/g;

export function templateCommands(file: string, content: string): TemplateCommand[] {
  const commands: TemplateCommand[] = [];
  for (const text of shellTexts(file, content)) {
    for (const line of text.split('\n')) {
      if (line.trim().startsWith('#')) continue;
      for (const match of line.matchAll(commandStart)) {
        const rest = line.slice((match.index ?? 0) + match[0].length);
        const words = shellWords(rest);
        commands.push({ file, text: `telform ${rest}`.trim(), words });
      }
    }
  }
  return commands;
}

/** Words up to the first unquoted operator (`|`, `>`, `<`, `;`, `&`, `)`), with `$VAR`s replaced by samples. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === ' ' || char === '\t') {
      index += 1;
      continue;
    }
    if ('|><;&)'.includes(char) || (char === '2' && text[index + 1] === '>')) break;
    let word = '';
    let variable: string | undefined;
    while (index < text.length && !' \t|><;&)'.includes(text[index] as string)) {
      const current = text[index] as string;
      if (current === '"' || current === "'") {
        const end = text.indexOf(current, index + 1);
        const quoted = text.slice(index + 1, end);
        const name = /^\$\{?([A-Za-z_@][A-Za-z0-9_[\]@]*)\}?$/.exec(quoted)?.[1];
        if (current === '"' && name) variable = name;
        else
          word += quoted.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, inner: string) => samples[inner]?.[0] ?? 'x');
        index = end + 1;
      } else if (current === '$') {
        const name = /^\$\{?([A-Za-z_@][A-Za-z0-9_]*)\}?/.exec(text.slice(index));
        word += 'x';
        index += name ? name[0].length : 1;
      } else {
        word += current;
        index += 1;
      }
    }
    if (variable !== undefined && word === '') words.push(...(samples[variable] ?? ['x']));
    else words.push(word);
  }
  return words;
}

/** Parses `telform <words>` with the real program, actions replaced by no-ops. Returns the error, if any. */
export async function parseError(words: readonly string[]): Promise<string | undefined> {
  const program = await buildProgram(words);
  let errors = '';
  const quiet = (command: Command): void => {
    command.exitOverride().configureOutput({ writeErr: (text) => (errors += text), writeOut: () => undefined });
    if (command !== program) command.action(() => undefined);
    for (const sub of command.commands) quiet(sub);
  };
  quiet(program);
  try {
    await program.parseAsync(['node', 'telform', ...words]);
    return undefined;
  } catch (error) {
    return errors.trim() || String(error);
  }
}
