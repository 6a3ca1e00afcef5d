// `--values FILE` and `--value NAME=V`: the values of a single-account run (an accounts run takes
// its values from the accounts file, per account). Declared here; read by the operation
// (`readValues`, run/values-input.ts).
import type { Command } from 'commander';
import { collect } from './option-parsers.js';

export interface ValuesOptionValues {
  values?: string;
  value: string[];
  accounts?: string;
}

export function addValuesOptions(command: Command): Command {
  return command
    .option(
      '--values <file>',
      'values for { value: NAME } in the manifests: a YAML mapping of names to values (see docs/values-and-waves.md)',
    )
    .option(
      '--value <name=value>',
      'one value, read as YAML (quote it to keep a string); over --values (repeatable)',
      collect,
      [],
    );
}
