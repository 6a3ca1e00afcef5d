import { Command } from 'commander';
import { isDatabaseUrl, redactUrl } from '../util/database-url.js';
import { TelformError } from '../util/errors.js';
import { processIo } from './io.js';
import type { GlobalOptions } from './session.js';
import { openState, openStateBackend, stateLocation } from './state-location.js';

/**
 * `telform state migrate --to PATH|URL`: copies the ledger (as `--state`/`--workspace` name it) to
 * a file or a PostgreSQL workspace that holds none yet, with its lineage and serial, under both
 * locks. The source is left as it was, so nothing is lost if the new place turns out wrong.
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
          const flags = isDatabaseUrl(to.state) ? `--state ${redactUrl(to.state)} --workspace ${to.workspace}` : `--state ${to.state}`;
          io.stderr(`${source.file} is left as it was; use ${flags} from now on, and remove the old one once the new one works`);
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
