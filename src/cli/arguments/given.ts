// Which flags a command line gave: the flag rules tell "--shard given" from "--shard defaulted".
import type { Command } from 'commander';
import type { GivenFlags } from './parsed.js';

export function givenFlags(command: Command): GivenFlags {
  return new Set(
    command.options
      .map((option) => option.attributeName())
      .filter((attribute) => command.getOptionValueSource(attribute) === 'cli'),
  );
}
