// `telform completion bash|zsh|fish`: shell scripts that complete commands, their flags, the kinds
// `explain` takes, and resource addresses. The commands and flags are written into the script (the
// CLI describes its own commander tree); addresses are asked of `telform __complete-addresses` at
// completion time, with the -f and --state of the line being completed. Pure text, no I/O.

export interface CompletionOption {
  /** Long and short names, e.g. `['--file', '-f']`. */
  names: string[];
  /** Takes a value (so the next word is not a command). */
  takesValue: boolean;
}

export interface CompletionCommand {
  name: string;
  options: CompletionOption[];
  subcommands: CompletionCommand[];
}

export interface CompletionSpec {
  /** The program's own options, accepted before and after the command. */
  globals: CompletionOption[];
  commands: CompletionCommand[];
  /** For `explain`. */
  kinds: string[];
}

export type Shell = 'bash' | 'zsh' | 'fish';
export const shells: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** Flags whose value is a resource address (`--accept` is drift --write's). */
const addressFlags = ['--target', '--exclude', '--accept'];
/** `state` subcommands whose arguments are addresses of the state. */
const stateAddressCommands = ['show', 'mv', 'rm', 'unprotect'];

export function renderCompletion(shell: Shell, spec: CompletionSpec): string {
  switch (shell) {
    case 'bash':
      return bashScript(spec);
    case 'zsh':
      // zsh runs the bash function through its bash-compatible completion layer.
      return `#compdef telform\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(spec)}`;
    case 'fish':
      return fishScript(spec);
    default: {
      const unreachable: never = shell;
      throw new Error(`unknown shell ${String(unreachable)}`);
    }
  }
}

function words(list: readonly string[]): string {
  return list.join(' ');
}

function valueFlags(spec: CompletionSpec): string[] {
  const all = [
    ...spec.globals,
    ...spec.commands.flatMap((command) => [...command.options, ...command.subcommands.flatMap((sub) => sub.options)]),
  ];
  return [...new Set(all.filter((option) => option.takesValue).flatMap((option) => option.names))].sort();
}

function bashScript(spec: CompletionSpec): string {
  const flagsOf = (command: CompletionCommand): string =>
    words(
      [...command.options, ...spec.globals].flatMap((option) => option.names).filter((name) => name.startsWith('--')),
    );
  const cases = spec.commands
    .map((command) => {
      const subs = command.subcommands.map(
        (sub) =>
          `        ${sub.name}) flags="${words([...sub.options, ...spec.globals].flatMap((option) => option.names).filter((name) => name.startsWith('--')))}" ;;`,
      );
      const inner =
        command.subcommands.length > 0
          ? `\n      case "$sub" in\n${subs.join('\n')}\n        *) COMPREPLY=($(compgen -W "${words(command.subcommands.map((sub) => sub.name))}" -- "$cur")); [[ $cur != -* ]] && return ;;\n      esac`
          : '';
      return `    ${command.name})\n      flags="${flagsOf(command)}"${inner}\n      ;;`;
    })
    .join('\n');
  return `# telform completion for bash: source <(telform completion bash)
_telform_addresses() {
  local source=$1 i args=()
  for ((i = 1; i < \${#COMP_WORDS[@]}; i++)); do
    case "\${COMP_WORDS[i]}" in
      -f | --file) [[ $source == all ]] && args+=(-f "\${COMP_WORDS[i+1]}") ;;
      --state | --workspace) args+=("\${COMP_WORDS[i]}" "\${COMP_WORDS[i+1]}") ;;
    esac
  done
  "\${COMP_WORDS[0]}" __complete-addresses "\${args[@]}" 2>/dev/null
}

_telform() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local command= sub= i word flags
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    case "$word" in
      ${words(valueFlags(spec)).replace(/ /g, ' | ')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z $command ]]; then command=$word; elif [[ -z $sub ]]; then sub=$word; fi ;;
    esac
  done
  local IFS=$'\\n'
  case "$prev" in
    ${addressFlags.join(' | ')}) COMPREPLY=($(compgen -W "$(_telform_addresses all)" -- "$cur")); return ;;
    -f | --file | -o | --out | --accounts | --values | --data) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  IFS=$' \\t\\n'
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "${words(spec.globals.flatMap((option) => option.names).filter((name) => name.startsWith('--')))}" -- "$cur"))
    else COMPREPLY=($(compgen -W "${words(spec.commands.map((command) => command.name))}" -- "$cur")); fi
    return
  fi
  if [[ $command == explain && $cur != -* && -z $sub ]]; then COMPREPLY=($(compgen -W "${words(spec.kinds)}" -- "$cur")); return; fi
  if [[ $command == state && $cur != -* ]]; then
    case "$sub" in ${stateAddressCommands.join(' | ')}) IFS=$'\\n'; COMPREPLY=($(compgen -W "$(_telform_addresses state)" -- "$cur")); return ;; esac
  fi
  case "$command" in
${cases}
    *) flags= ;;
  esac
  [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  return 0
}
complete -o default -F _telform telform
`;
}

function fishScript(spec: CompletionSpec): string {
  const lines = [
    '# telform completion for fish: telform completion fish | source',
    'function __telform_addresses',
    '    set -l tokens (commandline -opc)',
    '    set -l args',
    '    for i in (seq 2 (count $tokens))',
    '        switch $tokens[$i]',
    '            case -f --file',
    '                test "$argv[1]" = all; and set -a args -f $tokens[(math $i + 1)]',
    '            case --state --workspace',
    '                set -a args $tokens[$i] $tokens[(math $i + 1)]',
    '        end',
    '    end',
    '    telform __complete-addresses $args 2>/dev/null',
    'end',
    'complete -c telform -f',
    `complete -c telform -n __fish_use_subcommand -a '${words(spec.commands.map((command) => command.name))}'`,
  ];
  const optionLine = (condition: string, option: CompletionOption): string => {
    const long = option.names
      .filter((name) => name.startsWith('--'))
      .map((name) => ` -l ${name.slice(2)}`)
      .join('');
    const short = option.names
      .filter((name) => /^-[^-]$/.test(name))
      .map((name) => ` -s ${name.slice(1)}`)
      .join('');
    const address = option.names.some((name) => addressFlags.includes(name))
      ? " -x -a '(__telform_addresses all)'"
      : option.takesValue
        ? ' -r -F'
        : '';
    return `complete -c telform -n '${condition}'${long}${short}${address}`;
  };
  for (const option of spec.globals) lines.push(optionLine('true', option));
  for (const command of spec.commands) {
    const condition = `__fish_seen_subcommand_from ${command.name}`;
    for (const option of command.options) lines.push(optionLine(condition, option));
    if (command.name === 'explain') lines.push(`complete -c telform -n '${condition}' -a '${words(spec.kinds)}'`);
    if (command.subcommands.length > 0) {
      const names = words(command.subcommands.map((sub) => sub.name));
      lines.push(`complete -c telform -n '${condition}; and not __fish_seen_subcommand_from ${names}' -a '${names}'`);
      for (const sub of command.subcommands) {
        for (const option of sub.options)
          lines.push(optionLine(`${condition}; and __fish_seen_subcommand_from ${sub.name}`, option));
      }
      if (command.name === 'state') {
        lines.push(
          `complete -c telform -n '${condition}; and __fish_seen_subcommand_from ${words(stateAddressCommands)}' -a '(__telform_addresses state)'`,
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
