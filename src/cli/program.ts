import { ownPackageVersion } from '../manifest/schema-reference.js';
import { Command, CommanderError } from 'commander';
import { TelformError, formatPlace } from '../util/errors.js';
import { printable, printableJson } from '../util/printable.js';
import { ExitCode, exitCodeHelp } from '../run/exit-codes.js';
import { commandsFor } from './commands.js';
import { duration, workspaceName } from './option-parsers.js';

/** Every command's `--help` lists the program's options too (--endpoint, --state, …), which it accepts. */
function showGlobalOptions(command: Command): void {
  command.configureHelp({ ...command.configureHelp(), showGlobalOptions: true });
  for (const sub of command.commands) showGlobalOptions(sub);
}

/** Builds the commander program with the commands `args` need (see `commandsFor`). */
export async function buildProgram(args: readonly string[]): Promise<Command> {
  const program = new Command('telform')
    .description('Infrastructure as code for SIP authentication, SIP trunking and US 10DLC registration.')
    .option(
      '--endpoint <url>',
      'API base URL, or "local" for the embedded emulator (default: TELFORM_ENDPOINT, else production with credentials, else local)',
    )
    .option(
      '--state <path|url>',
      'the ownership ledger: a file, or postgres://USER@HOST:PORT/DB (default TELFORM_STATE, else telform.state.json)',
    )
    .option(
      '--workspace <name>',
      "the ledger's workspace in a database state (default TELFORM_WORKSPACE, else default)",
      workspaceName,
    )
    .option(
      '--lock-timeout <duration>',
      'wait this long for the state lock another run holds (e.g. 5m; default: refuse at once)',
      duration,
    )
    .option(
      '--reopen-retired',
      'use a state that `state migrate` retired: a command that writes makes it a new ledger (new lineage)',
    )
    .option('--no-color', 'never colour the output (NO_COLOR is honoured too)')
    .option('--quiet', 'print only errors and the final summary')
    .option('--log-http', 'print every API request and response on stderr (secrets redacted)')
    .option('--debug', 'print the stack trace of an internal error (a bug); a user error is its one-line message')
    .version(ownPackageVersion(), '-V, --version', 'print the version of telform')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText('after', `\n${exitCodeHelp}`);
  const entries = commandsFor(args);
  const loaded = await Promise.all(entries.map((entry) => entry.load()));
  loaded.forEach((command, index) => {
    showGlobalOptions(command);
    program.addCommand(command, entries[index]?.hidden ? { hidden: true } : {});
  });
  return program;
}

/**
 * Runs the CLI and returns the exit code. User errors (`TelformError`) become one line on stderr
 * (never a stack trace, even under `--debug`: the message is the whole story), and, when the command
 * was asked for `--format json`, a JSON document on stdout with the error's code; anything else is
 * a bug: a short message, with the stack only under `--debug`.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv.slice(2));
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    return reportError(error, { debug: argv.includes('--debug'), json: asksForJson(argv.slice(2)) });
  }
}

/** `--format json` (or `--format=json`) among the arguments: what the command's output would have been. */
function asksForJson(args: readonly string[]): boolean {
  return args.some((arg, index) => arg === '--format=json' || (arg === '--format' && args[index + 1] === 'json'));
}

/**
 * The error as `--format json` output (docs/errors.md): `exit_code` and `error` with its stable
 * `code`, as an account's entry of an accounts report carries it, and the place when there is one.
 */
function errorDocument(code: string, message: string, exitCode: number, error?: TelformError): string {
  const place = error?.place && Object.keys(error.place).length > 0 ? { place: error.place } : {};
  const details = error && Object.keys(error.details).length > 0 ? { details: error.details } : {};
  return `${printableJson(JSON.stringify({ exit_code: exitCode, error: { code, message, ...place, ...details } }, null, 2))}\n`;
}

function reportError(error: unknown, options: { debug: boolean; json: boolean }): number {
  if (error instanceof CommanderError) {
    // commander already printed the message (or the help/version text).
    if (error.exitCode === 0) return ExitCode.ok;
    if (options.json)
      process.stdout.write(errorDocument('bad_option', error.message.replace(/^error: /, ''), ExitCode.error));
    return ExitCode.error;
  }
  if (error instanceof TelformError) {
    const place = formatPlace(error.place);
    // A message may quote live text (an API message, a name): escaped, line by line.
    process.stderr.write(`error: ${place ? `${place}  ` : ''}${printableLines(error.message)}\n`);
    if (options.json) process.stdout.write(errorDocument(error.code, error.message, error.exitCode, error));
    return error.exitCode;
  }
  const message = printableLines(error instanceof Error ? error.message : String(error));
  process.stderr.write(
    `internal error: ${message}\nThis is a bug in telform; please report it with the command you ran.\n`,
  );
  if (options.json) process.stdout.write(errorDocument('internal_error', message, ExitCode.error));
  if (options.debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write('Run again with --debug for the stack trace.\n');
  return ExitCode.error;
}

function printableLines(message: string): string {
  return message.split('\n').map(printable).join('\n');
}
