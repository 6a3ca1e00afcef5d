// `--values FILE` and `--value NAME=V`: the values of a single-account run (an accounts run takes
// its values from the accounts file, per account). Read here, at the edge; the manifest layer
// substitutes and checks them.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { mergeValues, type GivenValue, type ValueSet } from '../manifest/values.js';
import { displayPath } from '../manifest/files.js';
import { collect } from './option-parsers.js';

export interface ValuesOptionValues {
  values?: string;
  value: string[];
  accounts?: string;
}

export function addValuesOptions(command: Command): Command {
  return command
    .option('--values <file>', 'values for { value: NAME } in the manifests: a YAML mapping of names to values (see docs/values-and-waves.md)')
    .option('--value <name=value>', 'one value, read as YAML (quote it to keep a string); over --values (repeatable)', collect, []);
}

/** The run's values, or undefined when none is given (the flag rules refuse them with `--accounts`). */
export async function valuesFromOptions(options: ValuesOptionValues, cwd: string): Promise<ValueSet | undefined> {
  const given = options.values !== undefined || options.value.length > 0;
  if (!given) return undefined;
  const { parseValueFlag, parseValuesFile } = await import('../manifest/values-file.js');
  let fromFile: ValueSet | undefined;
  if (options.values !== undefined) {
    const absolute = path.resolve(cwd, options.values);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (error) {
      throw new TelformError('values_file', `cannot read the values file ${options.values}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    fromFile = parseValuesFile(text, displayPath(absolute, cwd));
  }
  const flags = new Map<string, GivenValue>();
  for (const flag of options.value) {
    const { name, value } = parseValueFlag(flag);
    flags.set(name, { value, origin: { where: `--value ${name}` } });
  }
  return mergeValues(fromFile, flags);
}
