// `telform completion bash|zsh|fish` prints a completion script; the hidden `__complete-addresses`
// answers the script's questions for addresses while a line is being completed.
import { Argument, Command, type Option } from 'commander';
import {
  renderCompletion,
  shells,
  type CompletionCommand,
  type CompletionOption,
  type Shell,
} from '../render/completion.js';
import { catalog } from '../resources/index.js';
import { processIo } from './io.js';
import { collect } from './option-parsers.js';
import type { GlobalOptions } from '../run/context.js';
import { listAddresses } from '../run/addresses.js';

export function completionCommand(): Command {
  return new Command('completion')
    .description(
      'Print a shell completion script: commands, flags, kinds for explain, addresses for --target, --exclude and state.',
    )
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(shells))
    .addHelpText(
      'after',
      `
Addresses come from the manifests named by -f on the line being completed, and from the state
(--state, else TELFORM_STATE, else telform.state.json in the current directory).

Examples:
  $ source <(telform completion bash)                 # now, in this bash
  $ telform completion bash > /etc/bash_completion.d/telform
  $ telform completion zsh > "\${fpath[1]}/_telform"
  $ telform completion fish > ~/.config/fish/completions/telform.fish`,
    )
    .action(async (shell: Shell, _options: unknown, cmd: Command) => {
      // The program holds every command when it runs this one (commands.ts loads them all for it).
      const program = cmd.parent;
      const loaded = (program?.commands ?? []).filter(
        (command) => command.name() !== 'completion' && !command.name().startsWith('__'),
      );
      processIo().stdout(
        renderCompletion(shell, {
          globals: program ? program.options.map(describeOption) : [],
          commands: [...loaded.map(describeCommand), { name: 'completion', options: [], subcommands: [] }],
          kinds: [...catalog.names],
        }),
      );
    });
}

/** Addresses of the manifests (`-f`, repeatable) and of the state, one a line; nothing for what cannot be read. */
export function completeAddressesCommand(): Command {
  return new Command('__complete-addresses')
    .description('Addresses for shell completion (used by the completion scripts).')
    .option('-f, --file <path>', 'manifest file or folder (repeatable)', collect, [])
    .action(async (options: { file: string[] }, cmd: Command) => {
      const io = processIo();
      const addresses = await listAddresses(options.file, cmd.optsWithGlobals<GlobalOptions>(), io.env, io.cwd);
      io.stdout(addresses.map((address) => `${address}\n`).join(''));
    });
}

function describeCommand(command: Command): CompletionCommand {
  return {
    name: command.name(),
    options: command.options.map(describeOption),
    subcommands: command.commands.map(describeCommand),
  };
}

function describeOption(option: Option): CompletionOption {
  const names = [option.long, option.short].filter((name): name is string => typeof name === 'string');
  return { names, takesValue: option.required || option.optional };
}
