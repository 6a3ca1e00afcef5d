import { Command, Option } from 'commander';
import type { HistoryView } from '../render/history.js';
import { formatChoices, rendererFor } from '../render/index.js';
import { parseHistoryArguments, type HistoryFlags } from './arguments/history.js';
import { inputOrRefuse } from './arguments/parsed.js';
import {
  readAccountsHistory,
  readStateHistory,
  setHistoryRetention,
  shownRecords,
  verifyStateHistory,
} from '../run/history-read.js';
import { TelformError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import type { GlobalOptions } from '../run/context.js';
import { processIo } from './io.js';
import { collect, positiveInteger } from './option-parsers.js';

/**
 * `telform history [ADDRESS]`: what changed, when, from which commit and by whom — the records the
 * state keeps of every apply, state edit, drift seen and registry event, newest first; `verify`
 * checks their chain, `retain` sets how many are kept. Reads the state only: no credentials needed.
 */
export function historyCommand(): Command {
  const history = new Command('history')
    .description(
      'Show what changed, when and from where: the applies, state edits and drift the state recorded, newest first.',
    )
    .argument('[address]', "Kind/name: that resource's timeline across applies, drift checks and registry events")
    .addOption(new Option('--format <format>', 'output format').choices(formatChoices('history')).default('text'))
    .option('--limit <n>', 'only the newest N records', positiveInteger)
    .option('--accounts <file>', 'every account of this accounts file, each from its own state')
    .option('--only <name>', 'with --accounts: only this account (repeatable)', collect, [])
    .addHelpText(
      'after',
      `
Each record has a number (#N): telform revert N plans putting back what apply #N changed.
Secrets never appear: a changed secret shows as "(secret, changed)".

Examples:
  $ telform history
  $ telform history OriginationUri/pbx-primary          # one resource's timeline, field by field
  $ telform history --format markdown --limit 5 >> incident.md
  $ telform history --accounts accounts.yaml --limit 3
  $ telform history verify                               # check that no record was edited or removed
  $ telform history retain 5000                          # keep the newest 5000 records (default 1000)`,
    )
    .action(async (address: string | undefined, flags: HistoryFlags, cmd: Command) => {
      const io = processIo();
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      if (address !== undefined && !/^[A-Za-z]+\/.+$/.test(address)) {
        throw new TelformError(
          'bad_address',
          `"${address}" is not an address like Kind/name (or a subcommand: verify, retain)`,
        );
      }
      const options = inputOrRefuse(parseHistoryArguments(flags));
      const views: HistoryView[] = options.accounts
        ? (await readAccountsHistory(options.accounts, options.only, { io })).map((account) => ({
            account: account.name,
            location: account.location,
            records: account.records,
            ...(account.error ? { error: account.error } : {}),
          }))
        : [await readStateHistory(globals, { io })];
      const shown = views.map((view) => ({ ...view, records: shownRecords(view.records, address, options.limit) }));
      io.stdout(
        rendererFor(options.format, 'history')(shown, {
          ...(address === undefined ? {} : { address }),
          accounts: options.accounts !== undefined,
        }),
      );
    });
  history
    .command('verify')
    .description(
      "Check the history's chain and its ends: every record unchanged, none removed or inserted, none cut from the end; names the first that does not fit.",
    )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (options: { format: 'text' | 'json' }, cmd: Command) => {
      const io = processIo();
      const { location, verdict } = await verifyStateHistory(cmd.optsWithGlobals<GlobalOptions>(), { io });
      if (options.format === 'json') {
        io.stdout(`${JSON.stringify({ location, ...verdict }, null, 2)}\n`);
        if (!verdict.ok) process.exitCode = 1;
        return;
      }
      if (!verdict.ok)
        throw new TelformError('history_broken', `the history of ${location} does not verify: ${verdict.problem}`);
      if (verdict.count === 0) {
        io.stdout(`the history of ${printable(location)} holds no records yet: nothing to verify\n`);
        return;
      }
      const trimmed = verdict.trimmed ? `; records before #${verdict.first} were dropped by retention` : '';
      const anchored = verdict.anchored
        ? ', the newest as the state anchors it'
        : '; the state does not anchor its end (written before telform did), so records removed from the end cannot be seen';
      io.stdout(
        `the history of ${printable(location)} verifies: ${verdict.count} record${verdict.count === 1 ? '' : 's'}, #${verdict.first} to #${verdict.last}, each chained to the one before${anchored}${trimmed}\n`,
      );
    });
  history
    .command('retain')
    .description(
      'Set how many history records the state keeps (the newest; default 1000); the oldest beyond it are dropped now and as records are added.',
    )
    .argument('<n>', 'records to keep', positiveInteger)
    .action(async (keep: number, _options: unknown, cmd: Command) => {
      const io = processIo();
      const set = await setHistoryRetention(keep, cmd.optsWithGlobals<GlobalOptions>(), { io });
      io.stdout(
        `the state ${printable(set.location)} now keeps its newest ${keep} history records (was ${set.previous})${set.dropped > 0 ? `; dropped the oldest ${set.dropped}` : ''}\n`,
      );
    });
  return history;
}
