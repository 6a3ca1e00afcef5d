import { describe, expect, it } from 'vitest';
import { commands, commandsFor } from '../../src/cli/commands.js';

describe('commandsFor', () => {
  const names = (args: string[]) => commandsFor(args).map((command) => command.name);

  it('loads only the command named, wherever the program options stand', () => {
    expect(names(['validate', '-f', 'x'])).toEqual(['validate']);
    expect(names(['--state', 'plan', 'apply', '-f', 'x'])).toEqual(['apply']);
    expect(names(['--endpoint', 'local', '--no-color', 'drift'])).toEqual(['drift']);
    expect(names(['--endpoint=local', 'state', 'list'])).toEqual(['state']);
  });

  it('loads every command for help and for an unknown name', () => {
    const all = commands.map((command) => command.name);
    expect(names([])).toEqual(all);
    expect(names(['--help'])).toEqual(all);
    expect(names(['help', 'plan'])).toEqual(all);
    expect(names(['plna'])).toEqual(all);
  });

  it('loads no command for --version alone, and the named one when a command follows', () => {
    expect(names(['--version'])).toEqual([]);
    expect(names(['-V'])).toEqual([]);
    expect(names(['--no-color', '--version'])).toEqual([]);
    expect(names(['--version', 'plan'])).toEqual(['plan']);
  });
});
