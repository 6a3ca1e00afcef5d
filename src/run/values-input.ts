// The values of a single-account run (`--values FILE`, `--value NAME=V`): read and merged here, the
// manifest layer substitutes and checks them. An accounts run takes its values from the accounts
// file, per account.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TelformError } from '../util/errors.js';
import { mergeValues, type GivenValue, type ValueSet } from '../manifest/values.js';
import { displayPath } from '../manifest/files.js';

export interface ValuesInput {
  /** `--values FILE`, relative to the working directory. */
  values?: string | undefined;
  /** `--value NAME=V` (repeatable), over the file's. */
  value: readonly string[];
}

/** The run's values, or undefined when none is given (the flag rules refuse them with `--accounts`). */
export async function readValues(input: ValuesInput, cwd: string): Promise<ValueSet | undefined> {
  const given = input.values !== undefined || input.value.length > 0;
  if (!given) return undefined;
  const { parseValueFlag, parseValuesFile } = await import('../manifest/values-file.js');
  let fromFile: ValueSet | undefined;
  if (input.values !== undefined) {
    const absolute = path.resolve(cwd, input.values);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (error) {
      throw new TelformError(
        'values_file',
        `cannot read the values file ${input.values}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    fromFile = parseValuesFile(text, displayPath(absolute, cwd));
  }
  const flags = new Map<string, GivenValue>();
  for (const flag of input.value) {
    const { name, value } = parseValueFlag(flag);
    flags.set(name, { value, origin: { where: `--value ${name}` } });
  }
  return mergeValues(fromFile, flags);
}
