import type { Command } from 'commander';

/**
 * Every command of the CLI, one file each, registered here and nowhere else, in `--help` order.
 * Each is loaded only when needed: `validate` should not pay for the engine, the API client and
 * the emulator on every start.
 */
export const commands: ReadonlyArray<{ name: string; load: () => Promise<Command>; hidden?: boolean }> = [
  { name: 'validate', load: async () => (await import('./validate.js')).validateCommand() },
  { name: 'plan', load: async () => (await import('./plan.js')).planCommand() },
  { name: 'apply', load: async () => (await import('./apply.js')).applyCommand() },
  { name: 'approve', load: async () => (await import('./approve.js')).approveCommand() },
  { name: 'approvals', load: async () => (await import('./approvals.js')).approvalsCommand() },
  { name: 'acknowledge', load: async () => (await import('./acknowledge.js')).acknowledgeCommand() },
  { name: 'explain', load: async () => (await import('./explain.js')).explainCommand() },
  { name: 'show', load: async () => (await import('./show.js')).showCommand() },
  { name: 'drift', load: async () => (await import('./drift.js')).driftCommand() },
  { name: 'import', load: async () => (await import('./import.js')).importCommand() },
  { name: 'test', load: async () => (await import('./test.js')).testCommand() },
  { name: 'snapshot', load: async () => (await import('./snapshot.js')).snapshotCommand() },
  { name: 'history', load: async () => (await import('./history.js')).historyCommand() },
  { name: 'revert', load: async () => (await import('./revert.js')).revertCommand() },
  { name: 'state', load: async () => (await import('./state.js')).stateCommand() },
  { name: 'serve', load: async () => (await import('./serve.js')).serveCommand() },
  { name: 'report', load: async () => (await import('./report.js')).reportCommand() },
  { name: 'emulator', load: async () => (await import('./emulator-commands.js')).emulatorCommands() },
  { name: 'completion', load: async () => (await import('./completion.js')).completionCommand() },
  {
    name: '__complete-addresses',
    load: async () => (await import('./completion.js')).completeAddressesCommand(),
    hidden: true,
  },
];

/** Program options that take a value, so the value is not taken for a command name. */
const optionsWithValues = new Set(['--endpoint', '--state', '--workspace', '--lock-timeout']);

/** Program options that print and exit before any command runs. */
const versionOptions = new Set(['-V', '--version']);

/**
 * The commands to load for these arguments: the one named; none for `--version` alone (it prints
 * before any command would run, and loading them all costs most of its start-up); else all of
 * them (help, a typo: commander then lists them or suggests one).
 */
export function commandsFor(args: readonly string[]): typeof commands {
  let versionAsked = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (optionsWithValues.has(arg)) {
      index += 1;
      continue;
    }
    if (versionOptions.has(arg)) versionAsked = true;
    if (arg.startsWith('-')) continue;
    const named = commands.find((command) => command.name === arg);
    // The completion script describes every command, so it needs them all.
    return named && named.name !== 'completion' ? [named] : commands;
  }
  return versionAsked ? [] : commands;
}
