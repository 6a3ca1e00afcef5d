import { Command } from 'commander';
import { backendFor, openStateBackend } from '../state/backends/registry.js';
import { TelformError } from '../util/errors.js';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { openState, stateLocation } from '../run/state-location.js';

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
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const from = stateLocation(globals, io.env);
      const to = { state: options.to, workspace: options.toWorkspace ?? from.workspace };
      const source = await openState(globals, io.env, { lock: true });
      try {
        const target = await openStateBackend(to, io.env);
        try {
          if (target.location === source.file) throw new TelformError('bad_option', `--to names the state being migrated (${source.file})`);
          await source.copyTo(target, globals.lockTimeout ?? 0);
          const count = Object.keys(source.ledger.resources).length;
          io.stdout(`copied ${count} managed resource${count === 1 ? '' : 's'} (serial ${source.ledger.serial}) from ${source.file} to ${target.location}\n`);
          const flags = backendFor(to.state).flags(to);
          source.retire(flags);
          await source.compact();
          io.stderr(`${source.file} is retired: every command on it now refuses and names the new place; use ${flags} from now on`);
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
