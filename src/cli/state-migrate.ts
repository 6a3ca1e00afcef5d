import { Command } from 'commander';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { migrateState } from '../run/state-hand-over.js';

/**
 * `telform state migrate --to PATH|URL`: copies the ledger (as `--state`/`--workspace` name it) to
 * a file or a PostgreSQL workspace that holds none yet, with its lineage and serial, under both
 * locks. The source is then retired: it keeps its content (nothing is lost if the new place turns
 * out wrong), but every command on it refuses and names the new place, so two ledgers never fight
 * over one account; `--reopen-retired` uses it again, as a new ledger.
 */
export function stateMigrateCommand(): Command {
  return new Command('migrate')
    .description('Copy the ledger to another place (a file or postgres://…): both ways, to an empty place only.')
    .requiredOption('--to <path|url>', 'where to: a state file, or postgres://USER@HOST:PORT/DB')
    .option('--to-workspace <name>', 'the workspace there, for a database (default: the same as --workspace)')
    .addHelpText(
      'after',
      `
Examples:
  $ telform state migrate --to postgres://telform@db.internal:5432/telform --workspace acme
  $ telform --state postgres://telform@db.internal:5432/telform --workspace acme state migrate --to acme.state.json`,
    )
    .action(async (options: { to: string; toWorkspace?: string }, cmd: Command) => {
      const io = processIo();
      const done = await migrateState(options.to, options.toWorkspace, cmd.optsWithGlobals<GlobalOptions>(), { io });
      io.stdout(
        `copied ${done.resources} managed resource${done.resources === 1 ? '' : 's'} (serial ${done.serial}) from ${done.from} to ${done.to}\n`,
      );
      io.stderr(
        `${done.from} is retired: every command on it now refuses and names the new place; use ${done.flags} from now on`,
      );
    });
}
